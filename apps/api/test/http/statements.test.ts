import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignedStatementSchema, SigningKeysResponseSchema } from '@svc/contracts';
import { canonicalJson } from '@svc/methodology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { rotateSigningKey } from '../../src/services/shared/signing.js';
import { ctxOf, TEST_SIGNER } from '../support/context.js';
import { example, LOW_BAND_ID, variantOf, vary } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem, limitHeadersOf } from '../support/responses.js';
import { publish, TEST_MASTER_KEY, type TestServer, useServer } from '../support/server.js';
import { kidRule, sha256 } from '../support/statements.js';
import { engines } from '../support/stores.js';

/**
 * Issue 14's "done means": over real HTTP, every published indicator's statement verifies with the `openssl` command
 * line against the JWKS key, and names the SHA-256 of exactly the bytes GET /api/v1/computation/{id} answers.
 */

const run = promisify(execFile);
const StrictSignedSchema = SignedStatementSchema.strict();
const StrictKeysSchema = SigningKeysResponseSchema.strict();

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-statements-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/**
 * Checks a signature as an auditor does, with nothing of ours: the statement's RFC 8785 bytes, the signature and the
 * raw key (as SubjectPublicKeyInfo DER) in files, then `openssl pkeyutl -verify`. Answers whether it verified, and
 * what openssl printed.
 */
async function opensslVerifies(
  name: string,
  bytes: Buffer,
  signature: string,
  x: string,
): Promise<{ ok: boolean; output: string }> {
  const statement = join(work, `${name}.statement.bin`);
  const sig = join(work, `${name}.sig.bin`);
  const pub = join(work, `${name}.pub.der`);
  const raw = Buffer.from(x, 'base64url');
  expect(raw).toHaveLength(32);
  await writeFile(statement, bytes);
  await writeFile(sig, Buffer.from(signature, 'base64url'));
  await writeFile(pub, Buffer.concat([ED25519_SPKI_PREFIX, raw]));
  const args = ['pkeyutl', '-verify', '-pubin', '-inkey', pub, '-keyform', 'DER', '-rawin', '-in', statement];
  try {
    const { stdout, stderr } = await run('openssl', [...args, '-sigfile', sig]);
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''} (exit ${String(e.code)})` };
  }
}

/** A set like the demo's: every band the examples reach, several providers, a second publication, a withdrawal. */
async function publishSet(s: TestServer): Promise<void> {
  await publish(s, example('worked-example'));
  await publish(s, example('low-band'));
  await publish(s, example('multiple-caps'));
  for (let n = 1; n <= 3; n++) await publish(s, variantOf(example('worked-example'), n));
  await publish(s, variantOf(example('multiple-caps'), 4));
  await publish(s, vary(example('worked-example'), { values: { operating_history_years: 5 } }));
  await publish(s, vary(example('worked-example'), { values: { collateral_coverage_ratio: 1.5 } }));
  const { store, clock } = s.services;
  await withdrawProvider(ctxOf(store, { clock }), { providerId: LOW_BAND_ID, reason: 'no longer lends' });
  s.services.snapshot.invalidate();
}

async function allIndicatorIds(s: TestServer): Promise<string[]> {
  const rows = await s.services.store.db
    .selectFrom('risk_indicators')
    .select('risk_indicator_id')
    .orderBy('risk_indicator_id')
    .execute();
  return rows.map((r) => r.risk_indicator_id);
}

async function getStatement(s: TestServer, id: string) {
  const res = await s.get(`/api/public/publications/${id}`);
  return { res, body: await expectJson(res, StrictSignedSchema) };
}

async function getKeys(s: TestServer) {
  const res = await s.get('/.well-known/svc-signing-keys.json');
  return { res, body: await expectJson(res, StrictKeysSchema) };
}

describe.each(engines)('signed statements over HTTP on %s', (engine) => {
  const server = useServer(engine, publishSet);

  it('every published indicator has a statement whose signature openssl verifies against the JWKS key', async () => {
    const s = server();
    const ids = await allIndicatorIds(s);
    expect(ids.length).toBeGreaterThanOrEqual(9);
    const { body: jwks } = await getKeys(s);
    for (const id of ids) {
      const { res, body } = await getStatement(s, id);
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
      expect(body.alg).toBe('EdDSA');
      expect(body.statement.type).toBe('publication');
      expect(body.statement.risk_indicator_id).toBe(id);
      const bytes = Buffer.from(canonicalJson(body.statement), 'utf8');
      expect(body.statement_sha256).toBe(sha256(bytes));
      const key = jwks.keys.find((k) => k.kid === body.kid);
      expect(key, `no key ${body.kid} in the JWKS`).toBeDefined();
      const verified = await opensslVerifies(id, bytes, body.signature, key?.x ?? '');
      expect(verified.output).toContain('Signature Verified Successfully');
      expect(verified.ok).toBe(true);
    }
  });

  it('a statement changed by one byte, or checked under another key, fails openssl', async () => {
    const s = server();
    const [id] = await allIndicatorIds(s);
    const { body } = await getStatement(s, id ?? '');
    const bytes = Buffer.from(canonicalJson(body.statement), 'utf8');
    const { body: jwks } = await getKeys(s);
    const x = jwks.keys.find((k) => k.kid === body.kid)?.x ?? '';
    // A digit of the score, then every byte position class: the first, one in the middle, the last.
    const score = String(body.statement.type === 'publication' ? body.statement.final_score : '');
    const tampered = Buffer.from(bytes.toString('utf8').replace(`"final_score":${score}`, `"final_score":${score}1`));
    expect(tampered.equals(bytes)).toBe(false);
    for (const [name, changed] of [
      ['score', tampered],
      ['first', flipAt(bytes, 0)],
      ['middle', flipAt(bytes, Math.floor(bytes.length / 2))],
      ['last', flipAt(bytes, bytes.length - 1)],
    ] as const) {
      const verified = await opensslVerifies(`tampered-${name}`, changed, body.signature, x);
      expect(verified.ok, name).toBe(false);
      expect(verified.output, name).toMatch(/Signature Verification Failure/);
    }
    const other = await opensslVerifies('other-key', bytes, body.signature, Buffer.alloc(32, 9).toString('base64url'));
    expect(other.ok).toBe(false);
    const truncatedSignature = Buffer.from(body.signature, 'base64url').subarray(0, 63).toString('base64url');
    expect((await opensslVerifies('short-signature', bytes, truncatedSignature, x)).ok).toBe(false);
  });

  it('package_sha256 is the SHA-256 of exactly the bytes GET /api/v1/computation/{id} answers; the hashes match the package', async () => {
    const s = server();
    const key = await s.key('ENTERPRISE');
    for (const id of await allIndicatorIds(s)) {
      const res = await s.get(`/api/v1/computation/${id}`, { key });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.status, bytes.toString('utf8')).toBe(200);
      const pkg = JSON.parse(bytes.toString('utf8')) as {
        inputs_sha256: string;
        result_sha256: string;
        evaluation_date: string;
        framework: { sha256: string; framework_version: string };
      };
      const { body } = await getStatement(s, id);
      if (body.statement.type !== 'publication') throw new Error('not a publication statement');
      expect(body.statement.package_sha256).toBe(sha256(bytes));
      expect(body.statement).toMatchObject({
        inputs_sha256: pkg.inputs_sha256,
        result_sha256: pkg.result_sha256,
        evaluation_date: pkg.evaluation_date,
        framework_sha256: pkg.framework.sha256,
        framework_version: pkg.framework.framework_version,
      });
    }
  });

  it("the figures are the public form's, and each provider's statements form a chain", async () => {
    const s = server();
    const key = await s.key('ENTERPRISE');
    const byProvider = new Map<string, { prev: string | null; sha: string; publishedAt: string }[]>();
    for (const id of await allIndicatorIds(s)) {
      const { body } = await getStatement(s, id);
      if (body.statement.type !== 'publication') throw new Error('not a publication statement');
      const detail = (await (await s.get(`/api/v1/scores/${body.statement.provider_id}`, { key })).json()) as {
        risk_indicator_id: string;
        final_score: number;
        risk_band: string;
        confidence: number;
      };
      if (detail.risk_indicator_id === id) {
        expect(body.statement).toMatchObject({
          final_score: detail.final_score,
          risk_band: detail.risk_band,
          confidence: detail.confidence,
        });
      }
      const list = byProvider.get(body.statement.provider_id) ?? [];
      list.push({
        prev: body.statement.prev_statement_sha256,
        sha: body.statement_sha256,
        publishedAt: body.statement.published_at,
      });
      byProvider.set(body.statement.provider_id, list);
    }
    // Publications and their rating actions (withdrawals are not served here): each provider's first names null,
    // each action names a statement of its provider, and each later publication names its previous action's.
    for (const [provider, list] of byProvider) {
      list.sort((a, b) => a.publishedAt.localeCompare(b.publishedAt));
      expect(list[0]?.prev, provider).toBeNull();
      const actions = (await (await s.get(`/api/public/rating-actions?provider_id=${provider}`)).json()) as {
        data: { id: string; type: string; signature: { statement_sha256: string } }[];
      };
      const actionStatements = [];
      const shasOfWithdrawals = new Set<string>();
      for (const a of actions.data) {
        const res = await s.get(`/api/public/rating-actions/${a.id}/statement`);
        expect(res.status).toBe(200);
        const signed = (await res.json()) as { statement_sha256: string; statement: { prev_statement_sha256: string } };
        expect(signed.statement_sha256).toBe(a.signature.statement_sha256);
        // A WITHDRAW action names its withdrawal's statement, which this route does not serve.
        if (a.type !== 'WITHDRAW') {
          actionStatements.push({ sha: signed.statement_sha256, prev: signed.statement.prev_statement_sha256 });
        } else shasOfWithdrawals.add(signed.statement_sha256);
      }
      const shas = new Set([...list.map((l) => l.sha), ...actionStatements.map((a) => a.sha), ...shasOfWithdrawals]);
      for (const l of [...list.slice(1), ...actionStatements]) expect(shas.has(l.prev ?? ''), provider).toBe(true);
    }
  });

  it('the JWKS is RFC 8037 OKP Ed25519, kid by the SHA-256 rule, public and cacheable', async () => {
    const { res, body } = await getKeys(server());
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(body.keys).toHaveLength(1);
    const [k] = body.keys;
    expect(k).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: TEST_SIGNER.publicKey,
      kid: TEST_SIGNER.kid,
      use: 'sig',
      alg: 'EdDSA',
      status: 'active',
      not_before: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
    });
    expect(k?.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(k?.x ?? '', 'base64url')).toHaveLength(32);
    expect(k?.kid).toBe(kidRule(k?.x ?? ''));
    expect(k?.kid).toMatch(/^[0-9a-f]{16}$/);
  });

  it('public routes: no key needed, rate-limit headers as the other public routes, on answers and on refusals', async () => {
    const s = server();
    const [id] = await allIndicatorIds(s);
    for (const path of [
      `/api/public/publications/${id}`,
      '/.well-known/svc-signing-keys.json',
      '/api/public/publications/ri_000000000000000000000000',
      '/api/public/publications/nope',
    ]) {
      const res = await s.get(path);
      await res.body?.cancel();
      expect(res.status, path).not.toBe(401);
      const h = limitHeadersOf(res);
      expect(h.limit, path).toBe(120);
      expect(h.policy, path).toBe('"minute";q=120;w=60');
      expect(h.remaining, path).toBeGreaterThanOrEqual(0);
      expect(h.rateLimit, path).toMatch(/^"minute";r=\d+;t=\d+$/);
    }
  });

  it('an unknown id is 404 problem+json; a malformed one is 400; nothing is a 500', async () => {
    const s = server();
    await expectProblem(await s.get('/api/public/publications/ri_000000000000000000000000'), 'not_found');
    const [id = ''] = await allIndicatorIds(s);
    for (const bad of [
      'ri_123',
      'ri_ZZZZZZZZZZZZZZZZZZZZZZZZ',
      id.toUpperCase(),
      LOW_BAND_ID,
      `${id}0`,
      'x'.repeat(5000),
    ]) {
      const res = await s.get(`/api/public/publications/${bad}`);
      const problem = await expectInvalid(res, ['path.riskIndicatorId']);
      expect(problem.status).toBe(400);
    }
    for (const odd of ['%00', '%ff', '..%2f..%2fetc', 'ri_%C3%A9', '%F0%9F%98%80', '%']) {
      const res = await s.get(`/api/public/publications/${odd}`);
      const text = await res.text();
      expect(res.status, `${odd}: ${text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${odd}: ${text}`).toBeLessThan(500);
      expect(text).not.toContain('    at ');
    }
  });

  it("GET /api/public/statements/{sha256}: every statement of every type by its hash; each provider's chain walks back to its first", async () => {
    const s = server();
    const rows = await s.services.store.db
      .selectFrom('statements')
      .select(['statement_sha256', 'type', 'provider_id'])
      .orderBy('id')
      .execute();
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(['publication', 'withdrawal', 'rating_action']));
    const byHash = new Map<string, { prev: string | null; provider: string }>();
    for (const row of rows) {
      const res = await s.get(`/api/public/statements/${row.statement_sha256}`);
      const body = await expectJson(res, StrictSignedSchema);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(body.statement_sha256).toBe(row.statement_sha256);
      expect(sha256(Buffer.from(canonicalJson(body.statement), 'utf8'))).toBe(row.statement_sha256);
      expect(body.statement.type).toBe(row.type);
      byHash.set(row.statement_sha256, { prev: body.statement.prev_statement_sha256, provider: row.provider_id });
    }
    // From each provider's latest statement, prev_statement_sha256 leads through every one of its statements.
    for (const provider of new Set(rows.map((r) => r.provider_id))) {
      const own = rows.filter((r) => r.provider_id === provider).map((r) => r.statement_sha256);
      const walked: string[] = [];
      for (let at: string | null = own.at(-1) ?? null; at !== null; at = byHash.get(at)?.prev ?? null) {
        walked.unshift(at);
      }
      expect(walked).toEqual(own);
    }
  });

  it('GET /api/public/statements/{sha256}: an unknown hash is 404, anything but 64 lowercase hex digits is 400', async () => {
    const s = server();
    await expectProblem(await s.get(`/api/public/statements/${'0'.repeat(64)}`), 'not_found');
    const [row] = await s.services.store.db.selectFrom('statements').select('statement_sha256').limit(1).execute();
    const sha = row?.statement_sha256 ?? '';
    for (const bad of [sha.toUpperCase(), sha.slice(1), `${sha}0`, 'g'.repeat(64), 'x'.repeat(5000)]) {
      await expectInvalid(await s.get(`/api/public/statements/${bad}`), ['path.statementSha256']);
    }
  });

  it("a statement row whose unsigned columns were changed is not served as another indicator's, nor shown as verifying", async () => {
    const s = server();
    const { db } = s.services.store;
    // `first` signed after `second`: a lookup by column alone would find the newer, relabelled row first.
    const publications = await db
      .selectFrom('statements')
      .select('risk_indicator_id')
      .where('type', '=', 'publication')
      .orderBy('id', 'desc')
      .execute();
    const first = publications[0]?.risk_indicator_id ?? '';
    const second = publications.find((p) => p.risk_indicator_id !== first)?.risk_indicator_id ?? '';
    const moved = (await db.selectFrom('statements').select('id').where('risk_indicator_id', '=', first).execute()).map(
      (r) => r.id,
    );
    const before = (await getStatement(s, first)).body;
    // The first indicator's statements now carry the second's id in the column beside their signed text.
    await db.updateTable('statements').set({ risk_indicator_id: second }).where('id', 'in', moved).execute();
    try {
      const served = await getStatement(s, second);
      expect(served.body.statement.type === 'publication' && served.body.statement.risk_indicator_id).toBe(second);
      await expectProblem(await s.get(`/api/public/publications/${first}`), 'not_found');
      const page = await (await s.get(`/verify/${second}`)).text();
      expect(page).toContain(served.body.statement_sha256);
      expect(page).not.toContain(before.statement_sha256);
    } finally {
      await db.updateTable('statements').set({ risk_indicator_id: first }).where('id', 'in', moved).execute();
    }
    expect((await getStatement(s, first)).body).toEqual(before);
  });

  // Last: it adds a key to the server's store.
  it('after a rotation the JWKS has both keys, the old statements still verify, and the retired key shows when it stopped', async () => {
    const s = server();
    const box = secretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
    const rotated = await rotateSigningKey(ctxOf(s.services.store, { box }), { configured: null });
    const { body } = await getKeys(s);
    expect(body.keys.map((k) => [k.kid, k.status])).toEqual([
      [TEST_SIGNER.kid, 'retired'],
      [rotated.kid, 'active'],
    ]);
    expect(body.keys[0]?.not_after).toBe(rotated.not_before);
    expect(body.keys[1]).not.toHaveProperty('not_after');
    for (const k of body.keys) {
      expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
      expect(k.kid).toBe(kidRule(k.x));
    }
    const [id = ''] = await allIndicatorIds(s);
    const { body: signed } = await getStatement(s, id);
    expect(signed.kid).toBe(TEST_SIGNER.kid);
    const x = body.keys.find((k) => k.kid === signed.kid)?.x ?? '';
    const verified = await opensslVerifies(
      'after-rotation',
      Buffer.from(canonicalJson(signed.statement)),
      signed.signature,
      x,
    );
    expect(verified.output).toContain('Signature Verified Successfully');
  });
});

function flipAt(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] ?? 0) ^ 1;
  return copy;
}
