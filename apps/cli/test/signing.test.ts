import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { canonicalJson } from '@svc/methodology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, expectFailed, withStoreOf, withToken } from './governance-support.js';
import { contentsOf, type Env, type Served, serve, svcIn, svcJsonIn } from './operations.js';
import { EXAMPLES, pins, STACK_FRAME, tempDir } from './svc.js';

/**
 * Issue 14 from the command line: a demo store's statements checked with `svc verify --statement --keys` against a
 * running `svc serve`, every way a statement can fail to verify, key rotation, SVC_SIGNING_KEY, and the admin rule.
 */

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const LOW_ID = '6102dd70-63e8-440e-9dd8-904f07489671';

interface SignedStatement {
  statement: Record<string, unknown> & { signed_at: string; package_sha256?: string };
  signature: string;
  kid: string;
  alg: string;
  statement_sha256: string;
}

interface Jwks {
  keys: { kid: string; x: string; status: string; not_before: string; not_after?: string }[];
}

interface KeySummary {
  kid: string;
  status: 'active' | 'retired';
  not_before: string;
  not_after: string | null;
  held: 'store' | 'environment';
}

/**
 * One GET on a connection of its own (the test blocks its event loop while `svc` runs, so a kept-alive connection
 * may be closed under it): the status and the body bytes.
 */
function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function getJson<T>(url: string): Promise<T> {
  const { status, body } = await get(url);
  expect(status, body.toString('utf8')).toBe(200);
  return JSON.parse(body.toString('utf8')) as T;
}

/** Every indicator of the store with its package's stored bytes (what GET /api/v1/computation/{id} answers). */
function packagesOf(vars: Env): Promise<{ id: string; provider_id: string; text: string }[]> {
  return withStoreOf(vars, async (store) => {
    const rows = await store.db
      .selectFrom('risk_indicators')
      .select(['risk_indicator_id', 'provider_id', 'package'])
      .orderBy('risk_indicator_id')
      .execute();
    return rows.map((r) => ({ id: r.risk_indicator_id, provider_id: r.provider_id, text: r.package }));
  });
}

/** The id of a provider's current indicator. */
function currentIdOf(vars: Env, providerId: string): Promise<string> {
  return withStoreOf(vars, async (store) => {
    const row = await store.db
      .selectFrom('providers')
      .select('current_indicator_id')
      .where('id', '=', providerId)
      .executeTakeFirstOrThrow();
    return row.current_indicator_id ?? '';
  });
}

/** An Ed25519 key from `openssl genpkey`, and its kid computed from the key openssl derives (not by our code). */
function opensslKey(): { pem: string; kid: string } {
  const pem = execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519'], { encoding: 'utf8' });
  const spki = execFileSync('openssl', ['pkey', '-pubout', '-outform', 'DER'], { input: pem });
  const raw = spki.subarray(spki.length - 32);
  return { pem, kid: createHash('sha256').update(raw).digest('hex').slice(0, 16) };
}

/** Imports, approves (by another person) and publishes one example document: a new publication. */
async function publishExample(vars: Env, file: string, providerId: string): Promise<void> {
  for (const args of [
    ['inputs', 'import', join(EXAMPLES, file), '--by', 'alice'],
    ['inputs', 'approve', providerId, ...pins(providerId), '--by', 'Bob'],
    ['publish', '--all'],
  ]) {
    const run = await svcIn(vars, ...args);
    expect(run.status, `${args.join(' ')}\n${run.stderr}`).toBe(0);
  }
}

describe.each(ENGINES)('signed statements from the command line on %s', (_engine, fresh) => {
  let vars: Env;
  let served: Served;
  let dir: string;
  let packages: { id: string; provider_id: string; text: string }[];
  const statementUrl = (id: string) => `${served.url}/api/public/publications/${id}`;
  const keysUrl = () => `${served.url}/.well-known/svc-signing-keys.json`;
  /** A package written to a file, by id. */
  const packageFile = async (id: string) => {
    const p = packages.find((x) => x.id === id);
    if (!p) throw new Error(`no package ${id}`);
    const file = join(dir, `${id}.json`);
    await writeFile(file, p.text);
    return file;
  };

  beforeAll(async () => {
    vars = await fresh();
    dir = await tempDir();
    const seeded = await svcIn(vars, 'db', 'seed', '--demo');
    expect(seeded.status, seeded.stderr).toBe(0);
    served = await serve(vars, '--port', '0');
    packages = await packagesOf(vars);
  });

  afterAll(async () => {
    if (served.child.exitCode === null) await served.stop();
  });

  it('every demo indicator: svc verify PACKAGE --statement URL --keys URL exits 0, naming the key and the package hash', async () => {
    expect(packages.length).toBeGreaterThanOrEqual(12);
    const { keys } = await getJson<Jwks>(keysUrl());
    expect(keys).toHaveLength(1);
    const kid = keys[0]?.kid ?? '';
    for (const p of packages) {
      const file = await packageFile(p.id);
      const run = await svcIn(vars, 'verify', file, '--statement', statementUrl(p.id), '--keys', keysUrl());
      expect(run.status, `${p.id}\n${run.stderr}`).toBe(0);
      const sha = createHash('sha256').update(p.text, 'utf8').digest('hex');
      expect(run.stdout).toContain(`reproduced: ${p.id}`);
      expect(run.stdout).toContain(`statement verified: signed by key ${kid} (active)`);
      expect(run.stdout).toContain(`naming package sha256 ${sha}`);
      expect(run.stderr).toBe('');
    }
  });

  it('every demo statement verifies with openssl pkeyutl -verify against the JWKS key, and names its package by hash', async () => {
    const { keys } = await getJson<Jwks>(keysUrl());
    const key = keys[0];
    if (!key) throw new Error('no key in the JWKS');
    const der = join(dir, 'key.der');
    // SubjectPublicKeyInfo of an Ed25519 key: the fixed prefix, then the 32 raw bytes of the JWK's x.
    await writeFile(
      der,
      Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(key.x, 'base64url')]),
    );
    for (const p of packages) {
      const signed = await getJson<{ statement: Record<string, unknown>; signature: string; kid: string }>(
        statementUrl(p.id),
      );
      expect(signed.kid).toBe(key.kid);
      expect(signed.statement.package_sha256).toBe(createHash('sha256').update(p.text, 'utf8').digest('hex'));
      const statement = join(dir, `${p.id}.statement`);
      const signature = join(dir, `${p.id}.sig`);
      await writeFile(statement, canonicalJson(signed.statement));
      await writeFile(signature, Buffer.from(signed.signature, 'base64url'));
      const args = ['pkeyutl', '-verify', '-pubin', '-keyform', 'DER', '-inkey', der, '-rawin'];
      const out = execFileSync('openssl', [...args, '-in', statement, '-sigfile', signature], { encoding: 'utf8' });
      expect(out).toContain('Signature Verified Successfully');
    }
  });

  it("the demo store holds one statement per publication and withdrawal, each provider's chained to the one before", async () => {
    const { statements, published, withdrawn } = await withStoreOf(vars, async (store) => ({
      statements: await store.db.selectFrom('statements').selectAll().orderBy('id').execute(),
      published: await store.db.selectFrom('indicator_history').select('seq').execute(),
      withdrawn: await store.db.selectFrom('withdrawals').select('after_seq').execute(),
    }));
    expect(statements.filter((s) => s.type === 'publication')).toHaveLength(published.length);
    expect(statements.filter((s) => s.type === 'withdrawal')).toHaveLength(withdrawn.length);
    const last = new Map<string, string>();
    for (const s of statements) {
      const statement = JSON.parse(s.statement) as { prev_statement_sha256: string | null };
      expect(statement.prev_statement_sha256, `statement ${s.id}`).toBe(last.get(s.provider_id) ?? null);
      expect(createHash('sha256').update(s.statement, 'utf8').digest('hex')).toBe(s.statement_sha256);
      last.set(s.provider_id, s.statement_sha256);
    }
  });

  it('--json adds the statement check; files work as URLs do', async () => {
    const [p] = packages;
    const id = p?.id ?? '';
    const statement = join(dir, 'statement.json');
    const keys = join(dir, 'keys.json');
    await writeFile(statement, (await get(statementUrl(id))).body);
    await writeFile(keys, (await get(keysUrl())).body);
    const run = await svcJsonIn<{ status: string; statement: Record<string, unknown> }>(
      vars,
      'verify',
      await packageFile(id),
      '--statement',
      statement,
      '--keys',
      keys,
    );
    expect(run.status, run.stderr).toBe(0);
    const signed = await getJson<SignedStatement>(statementUrl(id));
    expect(run.json.status).toBe('reproduced');
    expect(run.json.statement).toEqual({
      kid: signed.kid,
      statement_sha256: signed.statement_sha256,
      signed_at: signed.statement.signed_at,
      key_status: 'active',
      package_sha256: createHash('sha256')
        .update(p?.text ?? '')
        .digest('hex'),
    });
  });

  it('a tampered statement exits 1 naming the signature; a statement of another package exits 1 naming package_sha256', async () => {
    const [a, b] = packages;
    const signed = await getJson<SignedStatement>(statementUrl(a?.id ?? ''));
    const keys = join(dir, 'keys.json');
    await writeFile(keys, (await get(keysUrl())).body);
    for (const [what, change] of [
      ['the score', { final_score: Number(signed.statement.final_score) + 0.01 }],
      ['the band', { risk_band: signed.statement.risk_band === 'LOW' ? 'SEVERE' : 'LOW' }],
      ['the signing time', { signed_at: '2026-01-01T00:00:00.000Z' }],
      ['a field added', { note: 'added' }],
    ] as const) {
      const file = join(dir, 'tampered.json');
      await writeFile(file, JSON.stringify({ ...signed, statement: { ...signed.statement, ...change } }));
      const run = await svcIn(vars, 'verify', await packageFile(a?.id ?? ''), '--statement', file, '--keys', keys);
      expectFailed(run, 1, /the statement does not verify: the Ed25519 signature does not match/, what);
    }
    const badSignature = join(dir, 'bad-signature.json');
    const flipped = Buffer.from(signed.signature, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    await writeFile(badSignature, JSON.stringify({ ...signed, signature: flipped.toString('base64url') }));
    expectFailed(
      await svcIn(vars, 'verify', await packageFile(a?.id ?? ''), '--statement', badSignature, '--keys', keys),
      1,
      /signature/,
    );
    // A genuine statement, of another indicator: the signature holds, the package is not the one it names.
    const other = await svcIn(
      vars,
      'verify',
      await packageFile(b?.id ?? ''),
      '--statement',
      statementUrl(a?.id ?? ''),
      '--keys',
      keys,
    );
    expectFailed(
      other,
      1,
      /the statement does not verify: it names package_sha256 [0-9a-f]{64}, the package has [0-9a-f]{64}/,
    );
  });

  it('a key missing from the JWKS, or retired before the statement says it was signed, exits 1', async () => {
    const [p] = packages;
    const id = p?.id ?? '';
    const signed = await getJson<SignedStatement>(statementUrl(id));
    const jwks = await getJson<Jwks>(keysUrl());
    const write = async (name: string, value: unknown) => {
      const file = join(dir, name);
      await writeFile(file, JSON.stringify(value));
      return file;
    };
    const before = new Date(Date.parse(signed.statement.signed_at) - 1000).toISOString();
    const retiredEarly = await write('retired-early.json', {
      keys: jwks.keys.map((k) => ({ ...k, status: 'retired', not_after: before })),
    });
    expectFailed(
      await svcIn(vars, 'verify', await packageFile(id), '--statement', statementUrl(id), '--keys', retiredEarly),
      1,
      `key ${signed.kid} was retired at ${before}, before the statement says it was signed (${signed.statement.signed_at})`,
    );
    const later = new Date(Date.parse(signed.statement.signed_at) + 1000).toISOString();
    const notYet = await write('not-yet.json', { keys: jwks.keys.map((k) => ({ ...k, not_before: later })) });
    expectFailed(
      await svcIn(vars, 'verify', await packageFile(id), '--statement', statementUrl(id), '--keys', notYet),
      1,
      /before key [0-9a-f]{16} existed/,
    );
    const none = await write('no-key.json', { keys: [] });
    expectFailed(
      await svcIn(vars, 'verify', await packageFile(id), '--statement', statementUrl(id), '--keys', none),
      1,
      `no key ${signed.kid} in`,
    );
    // Another key under the statement's kid: the kid is not that key's (rule 3), before any signature is tried.
    const swapped = await write('swapped.json', {
      keys: jwks.keys.map((k) => ({ ...k, x: Buffer.alloc(32, 3).toString('base64url') })),
    });
    expectFailed(
      await svcIn(vars, 'verify', await packageFile(id), '--statement', statementUrl(id), '--keys', swapped),
      1,
      /the kid [0-9a-f]{16} is not the first 16 hex digits of the SHA-256 of its key's x \(rule 3\)/,
    );
  });

  it('usage and unreadable input exit 2, with a clear message and no stack trace', async () => {
    const [p] = packages;
    const id = p?.id ?? '';
    const pkg = await packageFile(id);
    expectFailed(
      await svcIn(vars, 'verify', pkg, '--statement', statementUrl(id)),
      2,
      '--statement and --keys go together',
    );
    expectFailed(await svcIn(vars, 'verify', pkg, '--keys', keysUrl()), 2, '--statement and --keys go together');
    const missing = join(dir, 'no-such-statement.json');
    expectFailed(await svcIn(vars, 'verify', pkg, '--statement', missing, '--keys', keysUrl()), 2, missing);
    const notJson = join(dir, 'not-json.json');
    await writeFile(notJson, 'this is not JSON');
    expectFailed(await svcIn(vars, 'verify', pkg, '--statement', notJson, '--keys', keysUrl()), 2, notJson);
    const notStatement = join(dir, 'not-statement.json');
    await writeFile(notStatement, JSON.stringify({ hello: 'world' }));
    expectFailed(
      await svcIn(vars, 'verify', pkg, '--statement', notStatement, '--keys', keysUrl()),
      2,
      'is not a signed statement',
    );
    expectFailed(
      await svcIn(vars, 'verify', pkg, '--statement', statementUrl(id), '--keys', notStatement),
      2,
      'is not a JWKS',
    );
    expectFailed(
      await svcIn(vars, 'verify', pkg, '--statement', statementUrl('ri_000000000000000000000000'), '--keys', keysUrl()),
      2,
      'HTTP 404',
    );
    expectFailed(
      await svcIn(vars, 'verify', pkg, '--statement', 'http://127.0.0.1:1/statement', '--keys', keysUrl()),
      2,
      /cannot fetch/,
    );
  });

  it('signing-key rotate: list shows two keys, old statements still verify, new publications use the new kid', async () => {
    const before = await svcJsonIn<KeySummary[]>(vars, 'signing-key', 'list');
    expect(before.json).toHaveLength(1);
    const old = before.json[0] as KeySummary;
    const rotated = await svcJsonIn<KeySummary>(vars, 'signing-key', 'rotate');
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.json).toMatchObject({ status: 'active', not_after: null, held: 'store' });
    expect(rotated.json.kid).not.toBe(old.kid);
    const listed = await svcJsonIn<KeySummary[]>(vars, 'signing-key', 'list');
    expect(listed.json).toEqual([{ ...old, status: 'retired', not_after: rotated.json.not_before }, rotated.json]);
    const table = (await svcIn(vars, 'signing-key', 'list')).stdout;
    expect(table).toContain(old.kid);
    expect(table).toContain(rotated.json.kid);
    expect(table).toMatch(/retired/);

    const { keys } = await getJson<Jwks>(keysUrl());
    expect(keys.map((k) => [k.kid, k.status])).toEqual([
      [old.kid, 'retired'],
      [rotated.json.kid, 'active'],
    ]);
    for (const p of packages.slice(0, 3)) {
      const run = await svcIn(
        vars,
        'verify',
        await packageFile(p.id),
        '--statement',
        statementUrl(p.id),
        '--keys',
        keysUrl(),
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`signed by key ${old.kid} (retired)`);
    }

    await publishExample(vars, 'worked-example.json', WORKED_ID);
    const id = await currentIdOf(vars, WORKED_ID);
    packages = await packagesOf(vars);
    const signed = await getJson<SignedStatement>(statementUrl(id));
    expect(signed.kid).toBe(rotated.json.kid);
    const run = await svcIn(
      vars,
      'verify',
      await packageFile(id),
      '--statement',
      statementUrl(id),
      '--keys',
      keysUrl(),
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`signed by key ${rotated.json.kid} (active)`);
  });

  it('with SVC_SIGNING_KEY set: a PEM from openssl genpkey comes into use recorded as a rotation and signs with its kid; rotating to it again is refused; garbage is refused naming the variable', async () => {
    const key = opensslKey();
    const withKey = { ...vars, SVC_SIGNING_KEY: key.pem };
    const dump = (await svcJsonIn<KeySummary[]>(vars, 'signing-key', 'list')).json;

    // Garbage in the variable: refused before anything is published, exit 2, naming the variable.
    for (const args of [
      ['inputs', 'import', join(EXAMPLES, 'low-band.json'), '--by', 'alice'],
      ['inputs', 'approve', LOW_ID, ...pins(LOW_ID), '--by', 'Bob'],
    ]) {
      expect((await svcIn(vars, ...args)).status).toBe(0);
    }
    const garbage = await svcIn({ ...vars, SVC_SIGNING_KEY: 'not a key' }, 'publish', '--all');
    expectFailed(garbage, 2, /SVC_SIGNING_KEY/);
    expect(garbage.stderr).not.toContain('not a key\n');
    expect(await packagesOf(vars)).toHaveLength(packages.length);
    expect(await currentIdOf(vars, LOW_ID)).toBe('');

    // Open mode: whoever runs the command is the administrator, and bringing the key into use is recorded.
    const published = await svcIn(withKey, 'publish', '--all');
    expect(published.status, published.stderr).toBe(0);
    const introduced = (
      await svcJsonIn<{ action: string; subject: { id: string }; details: unknown }[]>(
        vars,
        'audit',
        'list',
        '--action',
        'signing_key.',
      )
    ).json;
    expect(introduced.at(-1)).toMatchObject({
      action: 'signing_key.rotated',
      subject: { id: key.kid },
      details: { retired: [dump[1]?.kid], held: 'environment' },
    });
    expectFailed(
      await svcIn(withKey, 'signing-key', 'rotate'),
      1,
      /SVC_SIGNING_KEY holds signing key [0-9a-f]{16}, which is already the active key/,
    );
    const id = await currentIdOf(vars, LOW_ID);
    packages = await packagesOf(vars);
    const signed = await getJson<SignedStatement>(statementUrl(id));
    expect(signed.kid).toBe(key.kid);
    const run = await svcIn(
      vars,
      'verify',
      await packageFile(id),
      '--statement',
      statementUrl(id),
      '--keys',
      keysUrl(),
    );
    expect(run.status, run.stderr).toBe(0);
    const listed = (await svcJsonIn<KeySummary[]>(vars, 'signing-key', 'list')).json;
    expect(listed.map((k) => [k.kid, k.status, k.held])).toEqual([
      [dump[0]?.kid, 'retired', 'store'],
      [dump[1]?.kid, 'retired', 'store'],
      [key.kid, 'active', 'environment'],
    ]);
    expect((await svcIn(vars, 'signing-key', 'list')).stdout).toContain('SVC_SIGNING_KEY');
    // The private half never reaches the store.
    const stored = await withStoreOf(vars, (store) =>
      store.db
        .selectFrom('signing_keys')
        .select('private_key_enc')
        .where('kid', '=', key.kid)
        .executeTakeFirstOrThrow(),
    );
    expect(stored.private_key_enc).toBeNull();

    // Without the variable, a command that signs is refused: the active key is held elsewhere; nothing is published.
    const caps = JSON.parse(await readFile(join(EXAMPLES, 'multiple-caps.json'), 'utf8')) as {
      provider: { id: string };
    };
    for (const args of [
      ['inputs', 'import', join(EXAMPLES, 'multiple-caps.json'), '--by', 'alice'],
      ['inputs', 'approve', caps.provider.id, ...pins(caps.provider.id), '--by', 'Bob'],
    ]) {
      expect((await svcIn(vars, ...args)).status).toBe(0);
    }
    expectFailed(
      await svcIn(vars, 'publish', '--all'),
      1,
      /the active signing key [0-9a-f]{16} was given in SVC_SIGNING_KEY/,
    );
    expect(await packagesOf(vars)).toHaveLength(packages.length);
    // A rotation makes a key the store holds active again, and publishing goes on with it.
    const rotated = await svcJsonIn<KeySummary>(vars, 'signing-key', 'rotate');
    expect(rotated.status, rotated.stderr).toBe(0);
    const again = await svcIn(vars, 'publish', '--all');
    expect(again.status, again.stderr).toBe(0);
    const capsId = await currentIdOf(vars, caps.provider.id);
    packages = await packagesOf(vars);
    expect((await getJson<SignedStatement>(statementUrl(capsId))).kid).toBe(rotated.json.kid);
    expect(
      (await svcIn(vars, 'verify', await packageFile(capsId), '--statement', statementUrl(capsId), '--keys', keysUrl()))
        .status,
    ).toBe(0);
  });

  /** The operators' tokens, once the test below has added them. */
  let tokens = { admin: '', alan: '' };

  // Last: once the store has operators, every command that changes the records needs a token.
  it('once operators exist, signing-key rotate needs an administrator: no token and a non-admin token are refused', async () => {
    const admin = await svcJsonIn<{ token: string }>(vars, 'operator', 'add', 'Ada', '--role', 'admin');
    expect(admin.status, admin.stderr).toBe(0);
    const analyst = await svcJsonIn<{ token: string }>(
      withToken(vars, admin.json.token),
      'operator',
      'add',
      'Alan',
      '--role',
      'analyst,approver',
    );
    expect(analyst.status, analyst.stderr).toBe(0);
    tokens = { admin: admin.json.token, alan: analyst.json.token };
    const keys = (await svcJsonIn<KeySummary[]>(vars, 'signing-key', 'list')).json;
    expectFailed(await svcIn(vars, 'signing-key', 'rotate'), 1, 'this store has operators: set SVC_OPERATOR_TOKEN');
    expectFailed(
      await svcIn(withToken(vars, analyst.json.token), 'signing-key', 'rotate'),
      1,
      /rotating the signing key needs the admin role, which Alan does not hold/,
    );
    expect((await svcJsonIn<KeySummary[]>(withToken(vars, admin.json.token), 'signing-key', 'list')).json).toEqual(
      keys,
    );
    const rotated = await svcJsonIn<KeySummary>(withToken(vars, admin.json.token), 'signing-key', 'rotate');
    expect(rotated.status, rotated.stderr).toBe(0);
    const entries = (
      await svcJsonIn<{ action: string; actor: { name: string } }[]>(
        withToken(vars, admin.json.token),
        'audit',
        'list',
        '--action',
        'signing_key.',
      )
    ).json;
    expect(entries.map((e) => [e.action, e.actor.name])).toEqual([
      ['signing_key.rotated', null],
      ['signing_key.rotated', null],
      ['signing_key.rotated', null],
      ['signing_key.rotated', 'Ada'],
    ]);
    expect((await svcIn(vars, 'audit', 'verify')).stdout).toMatch(/^audit trail intact/);
    expect((await svcIn(withToken(vars, admin.json.token), 'signing-key', 'list')).stderr).not.toMatch(STACK_FRAME);
  });

  it("once operators exist, a key new to the store is an admin's to bring into use: anyone else's command with it is refused before any write", async () => {
    const admin = withToken(vars, tokens.admin);
    const key = opensslKey();
    const alanWithKey = { ...withToken(vars, tokens.alan), SVC_SIGNING_KEY: key.pem };
    const before = await withStoreOf(vars, contentsOf);
    const keys = (await svcJsonIn<KeySummary[]>(admin, 'signing-key', 'list')).json;
    for (const args of [
      ['publish', '--all'],
      ['provider', 'withdraw', WORKED_ID, '--reason', 'test'],
    ]) {
      const run = await svcIn(alanWithKey, ...args);
      expectFailed(run, 1, new RegExp(`SVC_SIGNING_KEY holds signing key ${key.kid}, which this store does not know`));
      expect(run.stderr).toContain("bringing a new key into use is an administrator's act");
      expect(run.stderr).toContain('needs the admin role, which Alan does not hold');
    }
    expect(await withStoreOf(vars, contentsOf)).toEqual(before);
    expect((await svcJsonIn<KeySummary[]>(admin, 'signing-key', 'list')).json).toEqual(keys);

    const rotated = await svcJsonIn<KeySummary>({ ...admin, SVC_SIGNING_KEY: key.pem }, 'signing-key', 'rotate');
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.json).toMatchObject({ kid: key.kid, status: 'active', held: 'environment' });
    const entry = (
      await svcJsonIn<{ action: string; actor: { name: string }; details: unknown }[]>(
        admin,
        'audit',
        'list',
        '--action',
        'signing_key.',
      )
    ).json.at(-1);
    expect(entry).toMatchObject({
      action: 'signing_key.rotated',
      actor: { name: 'Ada' },
      details: { held: 'environment' },
    });
    // Now the store's active key, it signs for anyone with the role.
    const run = await svcIn(alanWithKey, 'publish', '--all');
    expect(run.status, run.stderr).toBe(0);
    expect((await svcIn(vars, 'audit', 'verify')).stdout).toMatch(/^audit trail intact/);
  });
});

describe.each(ENGINES)('svc db migrate on a store published before signed statements (%s)', (_engine, fresh) => {
  it('signs one statement per past publication, once, each verifying with svc verify against the keys', async () => {
    const vars = await fresh();
    const dir = await tempDir();
    expect((await svcIn(vars, 'db', 'seed', '--demo')).status).toBe(0);
    // The store as migration 0009 left it: no keys, no statements, no index of publications by instant, no rating
    // actions, migrations 0010 to 0012 not recorded.
    await withStoreOf(vars, async (store) => {
      await store.db.schema.dropIndex('indicator_history_in_force').execute();
      await store.db.schema.dropTable('rating_actions').execute();
      await store.db.schema.alterTable('changelog').dropColumn('rating_action_id').execute();
      for (const column of ['outlook', 'watch_direction', 'watch_since', 'watch_review_by']) {
        await store.db.schema.alterTable('providers').dropColumn(column).execute();
      }
      await store.db.deleteFrom('store_meta').where('key', '=', 'rating_action_seq').execute();
      await store.db.schema.dropTable('statements').execute();
      await store.db.schema.dropTable('signing_keys').execute();
      await store.db.schema.alterTable('audit_head').dropColumn('at').execute();
      await store.db.deleteFrom('store_meta').where('key', '=', 'statements_backfilled').execute();
      const migrations = store.db.withTables<{ kysely_migration: { name: string; timestamp: string } }>();
      await migrations
        .deleteFrom('kysely_migration')
        .where('name', 'in', [
          '0010-signed-statements',
          '0011-as-of-index',
          '0012-rating-actions',
          '0013-audit-time-and-name-keys',
        ])
        .execute();
    });
    const count = (table: 'indicator_history' | 'withdrawals') =>
      withStoreOf(vars, async (store) =>
        Number(
          (
            await store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      );
    const publications = await count('indicator_history');
    const withdrawals = await count('withdrawals');
    expect(withdrawals).toBeGreaterThan(0);
    const migrated = await svcJsonIn<{ applied: string[]; statements: { signed: number; kid: string } }>(
      vars,
      'db',
      'migrate',
    );
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.json.applied).toEqual([
      '0010-signed-statements',
      '0011-as-of-index',
      '0012-rating-actions',
      '0013-audit-time-and-name-keys',
    ]);
    // Each publication's and each withdrawal's statement, and those of the rating actions derived from them (the
    // demo's analyst actions went with the table: a store before 0012 had none).
    expect(migrated.json.statements).toEqual({
      signed: 2 * (publications + withdrawals),
      kid: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const again = await svcJsonIn<{ applied: string[]; statements: unknown }>(vars, 'db', 'migrate');
    expect(again.json).toMatchObject({ applied: [], statements: { signed: 0, kid: null } });
    expect((await svcIn(vars, 'audit', 'verify')).status).toBe(0);

    const { rows, keys } = await withStoreOf(vars, async (store) => ({
      rows: await store.db
        .selectFrom('statements as s')
        .innerJoin('risk_indicators as r', 'r.risk_indicator_id', 's.risk_indicator_id')
        .select(['s.statement', 's.signature', 's.kid', 's.statement_sha256', 'r.package', 's.risk_indicator_id'])
        .where('s.type', '=', 'publication')
        .orderBy('s.id')
        .execute(),
      keys: await store.db.selectFrom('signing_keys').selectAll().execute(),
    }));
    expect(rows).toHaveLength(publications);
    const jwks = join(dir, 'keys.json');
    await writeFile(
      jwks,
      JSON.stringify({
        keys: keys.map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: k.public_key, kid: k.kid, not_before: k.not_before })),
      }),
    );
    for (const [i, row] of rows.slice(0, 4).entries()) {
      const pkg = join(dir, `package-${i}.json`);
      const statement = join(dir, `statement-${i}.json`);
      await writeFile(pkg, row.package);
      await writeFile(
        statement,
        JSON.stringify({
          statement: JSON.parse(row.statement),
          signature: row.signature,
          kid: row.kid,
          alg: 'EdDSA',
          statement_sha256: row.statement_sha256,
        }),
      );
      const run = await svcIn(vars, 'verify', pkg, '--statement', statement, '--keys', jwks);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`signed by key ${migrated.json.statements.kid}`);
    }
  });
});
