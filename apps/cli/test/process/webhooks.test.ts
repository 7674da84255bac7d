import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { EndpointSummary } from '@svc/api';
import { ChangelogResponseSchema, HistoryPublicationSchema, ScoreHistoryResponseSchema } from '@svc/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptTerms,
  afterOpenModeWarning,
  childEnv,
  type Env,
  embedded,
  freshSchema,
  postgresAvailable,
  type Served,
  serve,
  storeOf,
  svcIn,
  svcJsonIn,
} from '../operations.js';
import { type Received, type Receiver, startReceiver } from '../receiver.js';
import { BIN, EXAMPLES, STACK_FRAME, tempDir, WORKED_EXAMPLE } from '../svc.js';

/** A history of publications only (no withdrawal in it). */
const PublicationsHistory = ScoreHistoryResponseSchema.extend({ data: HistoryPublicationSchema.array() });

interface CreatedWorkspace {
  workspace_id: string;
  webhook_secret: string;
}

interface RotatedSecret extends CreatedWorkspace {
  previous_secret_valid_until: string | null;
}

interface WebhookEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const LOW_BAND = join(EXAMPLES, 'low-band.json');
const HOUR_MS = 3_600_000;

/** Plain http to the loopback receiver, a fast poll, a short attempt timeout: the settings every test here runs with. */
const WEBHOOK_SETTINGS: Env = {
  SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
  SVC_WEBHOOK_POLL_INTERVAL: '100ms',
  SVC_WEBHOOK_TIMEOUT: '5s',
  SVC_WEBHOOK_DISPATCH: 'true',
};

// ---- signatures, computed as a receiver would with node:crypto ----

/** `x-svc-signature`: hex HMAC-SHA-256 of the raw body, keyed with the UTF-8 bytes of the secret as shown. */
function hexSignature(secret: string, raw: Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');
}

/** One Standard Webhooks `v1,` entry: base64 HMAC of `id.timestamp.body`, keyed with the secret's base64 part. */
function standardEntry(secret: string, r: Received): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${header(r, 'webhook-id')}.${header(r, 'webhook-timestamp')}.`;
  return `v1,${createHmac('sha256', key).update(signed).update(r.raw).digest('base64')}`;
}

function header(r: Received, name: string): string | undefined {
  const value = r.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function eventOf(r: Received): WebhookEvent {
  return JSON.parse(r.raw.toString('utf8')) as WebhookEvent;
}

// ---- running the CLI ----

/** Resolves with what `find` returns once it is not undefined; rejects after `timeoutMs`. */
async function until<T>(what: string, find: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first delivery of an event of this type (and provider, when given) that the receiver got. */
function deliveryOf(receiver: Receiver, type: string, providerId?: string): Promise<Received> {
  return until(`a ${type} delivery${providerId ? ` for ${providerId}` : ''}`, () =>
    receiver.received.find((r) => {
      const event = eventOf(r);
      return event.type === type && (providerId === undefined || event.data.provider_id === providerId);
    }),
  );
}

/** Submits by alice, approves by bob, publishes: returns the provider id. */
async function publishDocument(vars: Env, path: string): Promise<string> {
  const imported = await svcJsonIn<{ provider_id: string; inputs_sha256: string }[]>(
    vars,
    'inputs',
    'import',
    path,
    '--by',
    'alice',
  );
  expect(imported.status, imported.stderr).toBe(0);
  const providerId = imported.json[0]?.provider_id as string;
  const sha256 = imported.json[0]?.inputs_sha256 as string;
  const approved = await svcIn(vars, 'inputs', 'approve', providerId, '--sha256', sha256, '--by', 'bob');
  expect(approved.status, approved.stderr).toBe(0);
  const published = await svcIn(vars, 'publish', providerId, '--json');
  expect(published.status, published.stderr).toBe(0);
  expect(JSON.parse(published.stdout)).toMatchObject({ counts: { published: 1 } });
  return providerId;
}

/** A migrated store with a workspace and a PROFESSIONAL key. */
async function workspaceWithKey(vars: Env): Promise<CreatedWorkspace & { key: string }> {
  const migrated = await svcIn(vars, 'db', 'migrate');
  expect(migrated.status, migrated.stderr).toBe(0);
  const workspace = await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Webhooks');
  expect(workspace.status, workspace.stderr).toBe(0);
  const { workspace_id } = workspace.json;
  await acceptTerms(vars, workspace_id);
  const key = await svcJsonIn<{ key: string }>(
    vars,
    'key',
    'create',
    '--workspace',
    workspace_id,
    '--tier',
    'PROFESSIONAL',
  );
  expect(key.status, key.stderr).toBe(0);
  return { ...workspace.json, key: key.json.key };
}

/** Registers the receiver over HTTP, as a consumer does; returns the webhook id. */
async function register(served: Served, key: string, url: string, events: string[]): Promise<string> {
  const response = await fetch(`${served.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.id;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

async function listed(vars: Env, ...args: string[]): Promise<EndpointSummary[]> {
  const run = await svcJsonIn<EndpointSummary[]>(vars, 'webhooks', 'list', ...args);
  expect(run.status, run.stderr).toBe(0);
  return run.json;
}

interface Dispatching {
  firstLine: string;
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }>;
}

/** Starts `svc webhooks dispatch` and waits for its first line. */
function startDispatch(vars: Env, ...args: string[]): Promise<Dispatching> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'webhooks', 'dispatch', ...args], { env: childEnv(vars) });
  running.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc webhooks dispatch printed nothing in 20 s: ${err}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      resolve({
        firstLine: out.split('\n')[0] as string,
        stop: async (signal) => {
          child.kill(signal);
          return { code: await exited, stderr: err };
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc webhooks dispatch exited (${code}) before printing a line: ${err}`));
    });
  });
}

// Children and receivers of a test are ended after it, even when it fails.
const running: ChildProcess[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const child of running.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

async function serving(vars: Env): Promise<Served> {
  const served = await serve(vars, '--port', '0', '--json');
  running.push(served.child);
  return served;
}

// ---- rotate-secret ----

async function workspaceRow(vars: Env, id: string) {
  const store = storeOf(vars);
  try {
    return await store.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  } finally {
    await store.close();
  }
}

describe('svc workspace rotate-secret', () => {
  it('prints a new whsec_ secret once, with the warning; the store keeps it sealed and the old one for 24 h', async () => {
    const vars = await embedded();
    const created = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Rotation')).json;
    const before = Date.now();
    const run = await svcIn(vars, 'workspace', 'rotate-secret', created.workspace_id);
    expect(run.status, run.stderr).toBe(0);
    const secret = /new webhook signing secret: (whsec_[A-Za-z0-9+/]{43}=)\n/.exec(run.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(created.webhook_secret);
    expect(run.stdout).toMatch(new RegExp(`^workspace ${created.workspace_id}: new webhook signing secret: `));
    expect(run.stdout).toContain('Copy the secret now: it will not be shown again');
    expect(run.stdout).toMatch(/The previous secret still signs every delivery until \d{4}-\d{2}-\d{2}T/);
    const row = await workspaceRow(vars, created.workspace_id);
    for (const plain of [secret as string, created.webhook_secret]) {
      expect(JSON.stringify(row)).not.toContain(plain.slice('whsec_'.length));
    }
    expect(row.previous_webhook_secret_enc).not.toBeNull();
    const until = Date.parse(row.previous_secret_expires_at as string);
    expect(until - before).toBeGreaterThanOrEqual(24 * HOUR_MS);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * HOUR_MS);
  });

  it('--json gives {workspace_id, webhook_secret, previous_secret_valid_until}; --overlap 30m, 7d and 0', async () => {
    const vars = await embedded();
    const { workspace_id, webhook_secret } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'R')).json;
    const seen = new Set([webhook_secret]);
    for (const [overlap, ms] of [
      ['30m', HOUR_MS / 2],
      ['7d', 168 * HOUR_MS],
    ] as const) {
      const before = Date.now();
      const run = await svcJsonIn<RotatedSecret>(
        vars,
        'workspace',
        'rotate-secret',
        workspace_id,
        '--overlap',
        overlap,
      );
      expect(run.status, run.stderr).toBe(0);
      expect(Object.keys(run.json).sort()).toEqual(['previous_secret_valid_until', 'webhook_secret', 'workspace_id']);
      expect(run.json.workspace_id).toBe(workspace_id);
      expect(run.json.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(seen.has(run.json.webhook_secret)).toBe(false);
      seen.add(run.json.webhook_secret);
      const until = Date.parse(run.json.previous_secret_valid_until as string);
      expect(until - before).toBeGreaterThanOrEqual(ms);
      expect(until - Date.now()).toBeLessThanOrEqual(ms);
    }
    const none = await svcJsonIn<RotatedSecret>(vars, 'workspace', 'rotate-secret', workspace_id, '--overlap', '0');
    expect(none.status, none.stderr).toBe(0);
    expect(none.json.previous_secret_valid_until).toBeNull();
    expect(seen.has(none.json.webhook_secret)).toBe(false);
    const row = await workspaceRow(vars, workspace_id);
    expect(row.previous_webhook_secret_enc).toBeNull();
    expect(row.previous_secret_expires_at).toBeNull();
    const text = await svcIn(vars, 'workspace', 'rotate-secret', workspace_id, '--overlap', '0');
    expect(text.stdout).toContain('The previous secret no longer signs');
  });

  it('a bad --overlap (8d, abc, -1h, 1.5h, 169h, empty) is a usage error (exit 2) and changes nothing', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'R')).json;
    const before = await workspaceRow(vars, workspace_id);
    for (const overlap of ['8d', 'abc', '-1h', '1.5h', '169h', '']) {
      const run = await svcIn(vars, 'workspace', 'rotate-secret', workspace_id, `--overlap=${overlap}`);
      expect(run.status, overlap).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `error: --overlap must be a duration from 0 to 7d, such as 30m, 24h or 7d (0 ends the previous secret at once), not "${overlap}"\n`,
      );
      const json = await svcIn(vars, 'workspace', 'rotate-secret', workspace_id, '--overlap', overlap, '--json');
      expect(json.status).toBe(2);
      expect(JSON.parse(json.stdout)).toMatchObject({ code: 'usage' });
    }
    expect(await workspaceRow(vars, workspace_id)).toEqual(before);
  });

  it('an unknown workspace is not_found (exit 1) and changes nothing; a missing id is a usage error', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'R')).json;
    const before = await workspaceRow(vars, workspace_id);
    const unknown = 'ws_000000000000000000000000';
    const run = await svcIn(vars, 'workspace', 'rotate-secret', unknown);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(afterOpenModeWarning(run.stderr)).toBe(`error: no workspace ${unknown}\n`);
    const json = await svcIn(vars, 'workspace', 'rotate-secret', unknown, '--json');
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ error: `no workspace ${unknown}`, code: 'not_found' });
    expect(await workspaceRow(vars, workspace_id)).toEqual(before);
    const missing = await svcIn(vars, 'workspace', 'rotate-secret');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^error: /);
    expect(missing.stderr).not.toMatch(STACK_FRAME);
  });
});

// ---- delivery, end to end, on every store ----

const engines = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(engines)('webhooks end to end on %s', (engine) => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(drops.map((drop) => drop()));
  });

  /** A fresh store of this engine, with the webhook settings. */
  async function freshVars(): Promise<Env> {
    if (engine === 'sqlite') return { ...(await embedded()), ...WEBHOOK_SETTINGS };
    const schema = await freshSchema();
    drops.push(schema.drop);
    return {
      DATABASE_URL: schema.url,
      SVC_DATA_DIR: join(await tempDir(), 'data'),
      SVC_MASTER_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      ...WEBHOOK_SETTINGS,
    };
  }

  it('a publication reaches the registered receiver through svc serve, signed with the secret from workspace create', async () => {
    const vars = await freshVars();
    const hook = await receiver();
    const { workspace_id, webhook_secret, key } = await workspaceWithKey(vars);
    const served = await serving(vars);
    const webhookId = await register(served, key, hook.url, ['risk_indicator.published']);

    const providerId = await publishDocument(vars, WORKED_EXAMPLE);
    expect(providerId).toBe(WORKED_ID);
    const delivery = await deliveryOf(hook, 'risk_indicator.published', providerId);

    const event = eventOf(delivery);
    expect(event.data).toMatchObject({ provider_id: providerId, change_type: 'NEW', previous_band: null });
    expect(header(delivery, 'x-svc-signature')).toBe(hexSignature(webhook_secret, delivery.raw));
    expect(header(delivery, 'x-svc-signature')).not.toBe(hexSignature(`${webhook_secret}x`, delivery.raw));
    expect(header(delivery, 'x-svc-signature-previous')).toBeUndefined();
    expect(header(delivery, 'x-svc-event-id')).toBe(event.id);
    expect(header(delivery, 'x-svc-delivery-attempt')).toBe('1');
    expect(header(delivery, 'webhook-id')).toBe(event.id);
    expect(header(delivery, 'webhook-signature')).toBe(standardEntry(webhook_secret, delivery));

    const changelog = await getJson(`${served.url}/api/public/changelog`);
    expect(changelog.status).toBe(200);
    const entries = ChangelogResponseSchema.parse(changelog.body).data.filter((c) => c.provider_id === providerId);
    expect(entries.map((c) => c.change_type)).toEqual(['NEW']);
    expect(entries[0]?.risk_indicator_id).toBe(event.data.risk_indicator_id);

    const history = await getJson(`${served.url}/api/v1/scores/${providerId}/history`, { 'x-api-key': key });
    expect(history.status).toBe(200);
    const rows = PublicationsHistory.parse(history.body).data;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.risk_indicator_id).toBe(event.data.risk_indicator_id);

    const endpoints = await until('the delivery recorded as delivered', async () => {
      const now = await listed(vars);
      return now[0]?.delivered === 1 ? now : undefined;
    });
    expect(endpoints).toEqual([
      {
        id: webhookId,
        workspace_id,
        url: hook.url,
        events: ['risk_indicator.published'],
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        pending: 0,
        delivered: 1,
        failed: 0,
      },
    ]);
    expect(hook.received).toHaveLength(1);

    const stopped = await served.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(served.stderr()).not.toMatch(STACK_FRAME);
  });

  it('with SVC_WEBHOOK_DISPATCH=false serve sends nothing; svc webhooks dispatch --once sends it and reports 1 attempt', async () => {
    const vars = await freshVars();
    const hook = await receiver();
    const { webhook_secret, key } = await workspaceWithKey(vars);
    const served = await serving({ ...vars, SVC_WEBHOOK_DISPATCH: 'false' });
    await register(served, key, hook.url, ['risk_indicator.published']);

    const providerId = await publishDocument(vars, WORKED_EXAMPLE);
    // Ten poll intervals of a dispatcher that is not running: nothing may arrive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(hook.received).toHaveLength(0);
    expect((await listed(vars))[0]).toMatchObject({ pending: 1, delivered: 0 });

    const once = await svcIn(vars, 'webhooks', 'dispatch', '--once', '--json');
    expect(once.status, once.stderr).toBe(0);
    expect(JSON.parse(once.stdout)).toEqual({ attempts: 1 });
    // drain() waits for the answers: the receiver has it when the command returns.
    expect(hook.received).toHaveLength(1);
    const delivery = await deliveryOf(hook, 'risk_indicator.published', providerId);
    expect(header(delivery, 'x-svc-signature')).toBe(hexSignature(webhook_secret, delivery.raw));
    expect((await listed(vars))[0]).toMatchObject({ pending: 0, delivered: 1, failed: 0 });

    const again = await svcIn(vars, 'webhooks', 'dispatch', '--once');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('0 delivery attempts made\n');
    expect(hook.received).toHaveLength(1);
    expect((await served.stop('SIGTERM')).code).toBe(0);
  });

  it('svc webhooks dispatch sends what falls due while it runs and stops on SIGTERM with exit 0', async () => {
    const vars = await freshVars();
    const hook = await receiver();
    const { webhook_secret, key } = await workspaceWithKey(vars);
    const served = await serving({ ...vars, SVC_WEBHOOK_DISPATCH: 'false' });
    await register(served, key, hook.url, ['risk_indicator.published']);
    const dispatching = await startDispatch(vars, '--json');
    expect(JSON.parse(dispatching.firstLine)).toEqual({ dispatching: true, store: engine, poll_ms: 100 });

    const providerId = await publishDocument(vars, LOW_BAND);
    const delivery = await deliveryOf(hook, 'risk_indicator.published', providerId);
    expect(header(delivery, 'x-svc-signature')).toBe(hexSignature(webhook_secret, delivery.raw));

    const stopped = await dispatching.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toBe('SIGTERM: finishing the attempts in flight, then stopping\nstopped\n');
    expect((await served.stop('SIGTERM')).code).toBe(0);
  });

  it('after rotate-secret --overlap 1h a delivery is signed by the new and the old secret; after --overlap 0 by the new one only', async () => {
    const vars = await freshVars();
    const hook = await receiver();
    const { workspace_id, webhook_secret: original, key } = await workspaceWithKey(vars);
    const served = await serving(vars);
    const webhookId = await register(served, key, hook.url, ['risk_indicator.published']);

    const rotated = await svcJsonIn<RotatedSecret>(vars, 'workspace', 'rotate-secret', workspace_id, '--overlap', '1h');
    expect(rotated.status, rotated.stderr).toBe(0);
    const fresh = rotated.json.webhook_secret;
    expect(fresh).not.toBe(original);
    const ping = await fetch(`${served.url}/api/v1/webhooks/${webhookId}/test`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(ping.status).toBe(202);
    const overlapping = await deliveryOf(hook, 'ping');
    expect(header(overlapping, 'x-svc-signature')).toBe(hexSignature(fresh, overlapping.raw));
    expect(header(overlapping, 'x-svc-signature-previous')).toBe(hexSignature(original, overlapping.raw));
    expect(header(overlapping, 'x-svc-signature')).not.toBe(hexSignature(original, overlapping.raw));
    const both = header(overlapping, 'webhook-signature')?.split(' ');
    expect(both).toEqual([standardEntry(fresh, overlapping), standardEntry(original, overlapping)]);

    const ended = await svcJsonIn<RotatedSecret>(vars, 'workspace', 'rotate-secret', workspace_id, '--overlap', '0');
    expect(ended.status, ended.stderr).toBe(0);
    const newest = ended.json.webhook_secret;
    const providerId = await publishDocument(vars, WORKED_EXAMPLE);
    const single = await deliveryOf(hook, 'risk_indicator.published', providerId);
    expect(header(single, 'x-svc-signature')).toBe(hexSignature(newest, single.raw));
    expect(header(single, 'x-svc-signature-previous')).toBeUndefined();
    expect(header(single, 'webhook-signature')).toBe(standardEntry(newest, single));
    expect(header(single, 'webhook-signature')?.split(' ')).toHaveLength(1);
    expect((await served.stop('SIGTERM')).code).toBe(0);
  });
});

// ---- list ----

describe('svc webhooks list', () => {
  let vars: Env;
  let served: Served;
  let hook: Receiver;
  let setUp: CreatedWorkspace & { key: string; webhookId: string; other: string };

  beforeAll(async () => {
    vars = { ...(await embedded()), ...WEBHOOK_SETTINGS };
    hook = await startReceiver();
    const workspace = await workspaceWithKey(vars);
    const other = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'No hooks')).json.workspace_id;
    served = await serve(vars, '--port', '0', '--json');
    const webhookId = await register(served, workspace.key, hook.url, [
      'risk_indicator.published',
      'risk_indicator.band_changed',
    ]);
    setUp = { ...workspace, webhookId, other };
    await publishDocument(vars, WORKED_EXAMPLE);
    await publishDocument(vars, LOW_BAND);
    await until('two deliveries recorded', async () => ((await listed(vars))[0]?.delivered === 2 ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    // Either may be missing when beforeAll failed.
    if (served?.child.exitCode === null) await served.stop('SIGTERM');
    await hook?.close();
  });

  it('--json lists the endpoint with its events as an array and its delivery counts', async () => {
    expect(await listed(vars)).toEqual([
      {
        id: setUp.webhookId,
        workspace_id: setUp.workspace_id,
        url: hook.url,
        events: ['risk_indicator.published', 'risk_indicator.band_changed'],
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        pending: 0,
        delivered: 2,
        failed: 0,
      },
    ]);
    expect(hook.received.map((r) => eventOf(r).type)).toEqual(['risk_indicator.published', 'risk_indicator.published']);
  });

  it('prints a table for people, and never a secret', async () => {
    const run = await svcIn(vars, 'webhooks', 'list');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Webhook id .*Workspace .*URL .*Events .*Status .*Pending .*Delivered .*Failed/);
    expect(run.stdout).toMatch(
      new RegExp(`│ ${setUp.webhookId} +│ ${setUp.workspace_id} +│ .*│ active +│ 0 +│ 2 +│ 0 +│`),
    );
    expect(run.stdout).toContain('risk_indicator.band_changed');
    expect(run.stdout).not.toContain(setUp.webhook_secret.slice('whsec_'.length));
  });

  it('--workspace keeps one workspace: its endpoint, or none', async () => {
    expect((await listed(vars, '--workspace', setUp.workspace_id)).map((e) => e.id)).toEqual([setUp.webhookId]);
    expect(await listed(vars, '--workspace', setUp.other)).toEqual([]);
    const none = await svcIn(vars, 'webhooks', 'list', '--workspace', setUp.other);
    expect(none.stdout).toBe(`workspace ${setUp.other} has no webhook endpoints\n`);
  });

  it('on a store without endpoints it says so', async () => {
    const run = await svcIn(await embedded(), 'webhooks', 'list');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('no webhook endpoints\n');
  });
});
