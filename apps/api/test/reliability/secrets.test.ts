import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Endpoint,
  type EndpointName,
  endpoints,
  TIER_RANK,
  type Tier,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger, type RunningServer, startServer } from '../../src/server.js';
import {
  createKey,
  createWorkspace,
  hashKey,
  revokeKey,
  rotateWebhookSecret,
} from '../../src/services/access/access.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { ctxOf } from '../support/context.js';
import { engineIndicator, example, framework, LOW_BAND_ID, validated, WORKED_ID } from '../support/documents.js';
import { POSTGRES_URL } from '../support/environment.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { TEST_MASTER_KEY, UNKNOWN_KEY } from '../support/server.js';
import { type Engine, engines, freshLocation, retryOnSchemaRace } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { enableAgentTools } from '../support/terms.js';

/**
 * No API key, key hash, webhook secret (old or new, whole or its base64 body), master key or sealed secret in any
 * log line or any HTTP answer. A server logs at debug into memory through the production logger (createLogger, with
 * its redaction); the suite drives every endpoint of the contract with valid, unknown, malformed and revoked keys
 * and a lower tier, webhook registration and deliveries that succeed, fail and disable an endpoint (so the
 * dispatcher logs), a secret rotation, the agent tools, client errors and, on PostgreSQL, a store outage (503); it
 * records every answer. Then every secret it saw is looked for, as any 16 characters of it, in every log line,
 * everything else the process printed, and every answer's status, headers and body. Secrets are shown on purpose
 * only by the CLI, never over HTTP: there is no exception.
 */

/** Any run of this many characters of a secret counts as a leak: a truncated key is still a leak. */
const WINDOW = 16;
const RI_ID = engineIndicator(example('worked-example')).risk_indicator_id;
const HOLDINGS = {
  holdings: [
    { provider_id: WORKED_ID, amount: 250_000 },
    { provider_id: LOW_BAND_ID, amount: 150_000 },
  ],
};
const WEBHOOKS = '/api/v1/webhooks';
const box = secretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request of the suite. */
interface Probe {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Raw body text instead of JSON. */
  raw?: string;
  headers?: Record<string, string>;
}

/** An answer as the suite got it. */
interface Answer {
  probe: string;
  status: number;
  headers: [string, string][];
  text: string;
}

/** Each secret the suite saw, by what it is (a failure names that, never the value). */
type Secrets = [string, string][];

/** Every window of a secret, each pointing back at what it is. */
function windowsOf(secrets: Secrets): Map<string, string> {
  const windows = new Map<string, string>();
  for (const [what, value] of secrets) {
    for (let i = 0; i + WINDOW <= value.length; i++) windows.set(value.slice(i, i + WINDOW), what);
    if (value.length < WINDOW) throw new Error(`${what} is shorter than the scan window`);
  }
  return windows;
}

/** Which secrets a text carries (any window of one), by what they are. */
function secretsIn(text: string, windows: Map<string, string>): string[] {
  const found = new Set<string>();
  for (let i = 0; i + WINDOW <= text.length; i++) {
    const what = windows.get(text.slice(i, i + WINDOW));
    if (what) found.add(what);
  }
  return [...found];
}

/** The random part of a key, its hash, and the key itself. */
function keySecrets(what: string, key: string): Secrets {
  return [
    [`${what}`, key],
    [`${what} (random part)`, key.slice('svc_live_'.length)],
    [`${what} SHA-256`, hashKey(key)],
  ];
}

/** A webhook secret whole, its base64 body after whsec_, and its bytes in hex. */
function webhookSecrets(what: string, secret: string): Secrets {
  const body = secret.slice('whsec_'.length);
  return [
    [what, secret],
    [`${what} (base64 body)`, body],
    [`${what} (bytes as hex)`, Buffer.from(body, 'base64').toString('hex')],
  ];
}

/** A sealed secret whole and each of its base64 parts (IV, tag, ciphertext). */
function sealedSecrets(what: string, sealed: string): Secrets {
  const [, iv = '', tag = '', body = ''] = sealed.split(':');
  return [
    [what, sealed],
    [`${what} (IV)`, iv],
    [`${what} (tag)`, tag],
    [`${what} (ciphertext)`, body],
  ];
}

describe.each(engines)('no key, secret or hash in a log line or an answer, on %s', (engine: Engine) => {
  /** Every line the server's logger wrote. */
  const lines: string[] = [];
  /** Everything else the process printed meanwhile (console, stdout, stderr). */
  const printed: string[] = [];
  const answers: Answer[] = [];
  const secrets: Secrets = [
    ['the master key', TEST_MASTER_KEY],
    ['the master key (base64)', Buffer.from(TEST_MASTER_KEY, 'hex').toString('base64')],
  ];
  /** Strings sent in bodies, query strings and headers: none may reach a log line. */
  const canary = `canary${randomBytes(8).toString('hex')}`;
  const proxy = engine === 'postgres' ? new TcpProxy(POSTGRES_URL) : null;
  let running: RunningServer | undefined;
  let cleanup = async () => {};
  let receiver: Receiver;
  const restore: (() => void)[] = [];

  const server = () => {
    if (!running) throw new Error('the server has not started');
    return running;
  };

  /** Sends a request and records the answer. */
  async function call(probe: Probe, key?: string): Promise<Answer> {
    const headers: Record<string, string> = {
      ...(key === undefined ? {} : { 'x-api-key': key }),
      ...(probe.body === undefined && probe.raw === undefined ? {} : { 'content-type': 'application/json' }),
      ...probe.headers,
    };
    const body = probe.raw ?? (probe.body === undefined ? undefined : JSON.stringify(probe.body));
    const res = await fetch(`${server().url}${probe.path}`, {
      method: probe.method,
      headers,
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = {
      // A failure message names the request; it must not print a key the suite put in a path.
      probe: `${probe.method} ${probe.path.replace(/svc_live_[\w-]+/g, 'svc_live_…')}`,
      status: res.status,
      headers: [...res.headers],
      text: await res.text(),
    };
    answers.push(answer);
    return answer;
  }

  /** A key of the tier in the workspace, recorded as a secret. */
  async function issue(workspaceId: string, tier: Tier): Promise<{ key: string; keyId: string }> {
    const { store, clock } = server().services;
    const created = await createKey(ctxOf(store, { clock }), { workspaceId, tier });
    secrets.push(...keySecrets(`the ${tier} key ${created.key_id}`, created.key));
    return { key: created.key, keyId: created.key_id };
  }

  /** A workspace with the agent tools on, its webhook secret and sealed secret recorded. */
  async function workspace(name: string): Promise<string> {
    const { store, clock } = server().services;
    const ws = await createWorkspace(ctxOf(store, { clock, box }), { name });
    await enableAgentTools(ctxOf(store, { clock }), ws.workspace_id);
    secrets.push(...webhookSecrets(`the webhook secret of ${name}`, ws.webhook_secret));
    await recordSealed(ws.workspace_id);
    return ws.workspace_id;
  }

  async function recordSealed(workspaceId: string): Promise<void> {
    const row = await server()
      .services.store.db.selectFrom('workspaces')
      .selectAll()
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    secrets.push(...sealedSecrets(`the sealed secret of ${workspaceId}`, row.webhook_secret_enc));
    if (row.previous_webhook_secret_enc) {
      secrets.push(...sealedSecrets(`the sealed previous secret of ${workspaceId}`, row.previous_webhook_secret_enc));
    }
  }

  /** Polls an endpoint's log until every delivery has left pending. */
  async function settled(key: string, webhookId: string, count: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await fetch(`${server().url}${WEBHOOKS}/${webhookId}/deliveries`, { headers: { 'x-api-key': key } });
      const text = await res.text();
      answers.push({ probe: 'poll', status: res.status, headers: [...res.headers], text });
      const log = JSON.parse(text) as { data: { status: string }[] };
      if (log.data.length === count && log.data.every((d) => d.status !== 'pending')) return log.data;
      if (Date.now() > deadline) throw new Error(`the deliveries of ${webhookId} did not settle`);
      await pause(20);
    }
  }

  const ctx = {
    key: '',
    free: '',
    revoked: '',
    revokedId: '',
    other: '',
    workspaceId: '',
    webhookId: '',
    deliveryId: '',
  };

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        printed.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof stream.write;
      restore.push(() => {
        stream.write = write;
      });
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = vi.spyOn(console, method);
      restore.push(() => {
        printed.push(...spy.mock.calls.map((args) => args.map(String).join(' ')));
        spy.mockRestore();
      });
    }

    const place = await freshLocation(engine);
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-secrets-'));
    cleanup = async () => {
      await place.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    };
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      SVC_DATA_DIR: dataDir,
      SVC_MASTER_KEY: TEST_MASTER_KEY,
      SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
      SVC_MCP_ENABLED: 'true',
      SVC_WEBHOOK_RETRY_SCHEDULE: '20ms,40ms',
      SVC_WEBHOOK_POLL_INTERVAL: '20ms',
      SVC_WEBHOOK_TIMEOUT: '2s',
      SVC_STORE_TIMEOUT_MS: '500',
    });
    const logger = createLogger(config, { write: (line: string) => void lines.push(line) });
    let storeLocation = place.location;
    if (proxy && storeLocation.kind === 'postgres') {
      await proxy.start();
      storeLocation = { ...storeLocation, url: proxy.url };
    }
    running = await retryOnSchemaRace(() => startServer(config, { storeLocation, logger }));
    const { store, clock, snapshot } = running.services;
    for (const name of ['worked-example', 'low-band'] as const) {
      const document = validated(example(name));
      await publishIndicator(ctxOf(store, { clock }), { document, framework, approvedAt: '2026-06-02T10:00:00.000Z' });
    }
    snapshot.invalidate();
    receiver = await startReceiver();

    ctx.workspaceId = await workspace('consumer');
    ctx.key = (await issue(ctx.workspaceId, 'ENTERPRISE')).key;
    ctx.free = (await issue(ctx.workspaceId, 'FREE')).key;
    const revoked = await issue(ctx.workspaceId, 'CUSTOM');
    ctx.revoked = revoked.key;
    ctx.revokedId = revoked.keyId;
    ctx.other = (await issue(await workspace('another consumer'), 'PROFESSIONAL')).key;
  });

  afterAll(async () => {
    for (const undo of restore.splice(0).reverse()) undo();
    await receiver?.close();
    if (proxy && !proxy.listening) await proxy.start();
    await running?.close();
    await proxy?.stop();
    await cleanup();
  });

  /** A valid request for every endpoint of the contract: a new endpoint without one does not compile. */
  const VALID: Record<EndpointName, () => Promise<Probe> | Probe> = {
    listScores: () => ({ method: 'GET', path: '/api/v1/scores' }),
    getScore: () => ({ method: 'GET', path: `/api/v1/scores/${WORKED_ID}` }),
    getScoreHistory: () => ({ method: 'GET', path: `/api/v1/scores/${WORKED_ID}/history` }),
    getMethodology: () => ({ method: 'GET', path: '/api/v1/methodology' }),
    getComputation: () => ({ method: 'GET', path: `/api/v1/computation/${RI_ID}` }),
    listIssuances: () => ({ method: 'GET', path: '/api/v1/issuances' }),
    getStatus: () => ({ method: 'GET', path: '/api/v1/status' }),
    listPublicScores: () => ({ method: 'GET', path: '/api/public/scores' }),
    getChangelog: () => ({ method: 'GET', path: '/api/public/changelog' }),
    getChangelogAtom: () => ({ method: 'GET', path: '/api/public/changelog.atom' }),
    listFrameworks: () => ({ method: 'GET', path: '/api/public/frameworks' }),
    getFramework: () => ({ method: 'GET', path: '/api/public/frameworks/1.0' }),
    requestScore: () => ({
      method: 'POST',
      path: '/api/public/score-request',
      body: { provider_name: `Lending ${canary}`, contact_email: `${canary}@example.com`, message: canary },
    }),
    getScoreRequest: async () => {
      const made = await call({
        method: 'POST',
        path: '/api/public/score-request',
        body: { provider_name: `Status ${canary}`, contact_email: `${canary}@example.com` },
      });
      return { method: 'GET', path: `/api/public/score-request/${JSON.parse(made.text).request_id}` };
    },
    getPublicationStatement: () => ({ method: 'GET', path: `/api/public/publications/${RI_ID}` }),
    getSigningKeys: () => ({ method: 'GET', path: '/.well-known/svc-signing-keys.json' }),
    getStatement: async () => {
      const { statement_sha256 } = await server()
        .services.store.db.selectFrom('statements')
        .select('statement_sha256')
        .orderBy('id')
        .executeTakeFirstOrThrow();
      return { method: 'GET', path: `/api/public/statements/${statement_sha256}` };
    },
    getTransitionStatistics: () => ({ method: 'GET', path: '/api/public/statistics/transitions?from=2026-04-01' }),
    getBandStatistics: () => ({ method: 'GET', path: '/api/public/statistics/bands' }),
    listRatingActions: () => ({ method: 'GET', path: '/api/public/rating-actions' }),
    getRatingActionsAtom: () => ({ method: 'GET', path: '/api/public/rating-actions.atom' }),
    getRatingActionStatement: async () => {
      const { id } = await server()
        .services.store.db.selectFrom('rating_actions')
        .select('id')
        .orderBy('seq')
        .executeTakeFirstOrThrow();
      return { method: 'GET', path: `/api/public/rating-actions/${id}/statement` };
    },
    createWebhook: () => ({
      method: 'POST',
      path: WEBHOOKS,
      body: { url: `${receiver.url}/quiet`, events: ['methodology.published'], description: canary },
    }),
    listWebhooks: () => ({ method: 'GET', path: WEBHOOKS }),
    deleteWebhook: async () => {
      const made = await call(
        { method: 'POST', path: WEBHOOKS, body: { url: `${receiver.url}/gone`, events: ['issuance.updated'] } },
        ctx.key,
      );
      return { method: 'DELETE', path: `${WEBHOOKS}/${WebhookEndpointSchema.parse(JSON.parse(made.text)).id}` };
    },
    listDeliveries: () => ({ method: 'GET', path: `${WEBHOOKS}/${ctx.webhookId}/deliveries` }),
    redeliver: () => ({ method: 'POST', path: `${WEBHOOKS}/${ctx.webhookId}/deliveries/${ctx.deliveryId}/redeliver` }),
    testWebhook: () => ({ method: 'POST', path: `${WEBHOOKS}/${ctx.webhookId}/test` }),
    searchProviders: () => ({ method: 'GET', path: '/api/v1/providers/search?q=example' }),
    compareScores: () => ({ method: 'GET', path: `/api/v1/scores/compare?ids=${WORKED_ID},${LOW_BAND_ID}` }),
    exportScores: () => ({ method: 'GET', path: '/api/v1/scores/export.csv' }),
    scorePortfolio: () => ({ method: 'POST', path: '/api/v1/portfolio/score', body: HOLDINGS }),
    portfolioMemo: () => ({ method: 'POST', path: '/api/v1/portfolio/memo', body: HOLDINGS }),
    whatIf: () => ({
      method: 'POST',
      path: `/api/v1/scores/${WORKED_ID}/what-if`,
      body: { inputs: { collateral_coverage_ratio: 1.5 } },
    }),
    getScoreMemo: () => ({ method: 'GET', path: `/api/v1/scores/${WORKED_ID}/memo` }),
    getEvidenceSchedule: () => ({ method: 'GET', path: `/api/v1/scores/${WORKED_ID}/evidence-schedule` }),
    getMcpManifest: () => ({ method: 'GET', path: '/api/mcp' }),
    callMcpTool: () => ({
      method: 'POST',
      path: '/api/mcp',
      body: { tool_name: 'search_providers', input: { query: canary } },
    }),
  };
  const NAMES = Object.keys(endpoints) as EndpointName[];

  describe('the exercise', () => {
    it('webhooks: a delivery that succeeds, one whose retries are spent, one disabled by 410; then a rotation with overlap', async () => {
      const register = async (path: string) => {
        const answer = await call(
          { method: 'POST', path: WEBHOOKS, body: { url: `${receiver.url}${path}`, events: ['issuance.updated'] } },
          ctx.key,
        );
        expect(answer.status, answer.text).toBe(201);
        return WebhookEndpointSchema.parse(JSON.parse(answer.text)).id;
      };
      const ping = async (webhookId: string) => {
        const answer = await call({ method: 'POST', path: `${WEBHOOKS}/${webhookId}/test` }, ctx.key);
        expect(answer.status, answer.text).toBe(202);
        return WebhookDeliverySchema.parse(JSON.parse(answer.text)).id;
      };
      receiver.answer((request) =>
        request.path.endsWith('/failing')
          ? { status: 500, body: 'down' }
          : request.path.endsWith('/gone')
            ? { status: 410, body: 'gone' }
            : { status: 200, body: 'ok' },
      );
      ctx.webhookId = await register('/ok');
      ctx.deliveryId = await ping(ctx.webhookId);
      const failing = await register('/failing');
      await ping(failing);
      const gone = await register('/gone');
      await ping(gone);
      expect((await settled(ctx.key, ctx.webhookId, 1)).map((d) => d.status)).toEqual(['delivered']);
      expect((await settled(ctx.key, failing, 1)).map((d) => d.status)).toEqual(['failed']);
      expect((await settled(ctx.key, gone, 1)).map((d) => d.status)).toEqual(['failed']);

      const { store, clock } = server().services;
      const rotated = await rotateWebhookSecret(ctxOf(store, { clock, box }), {
        workspaceId: ctx.workspaceId,
        overlapMs: 3_600_000,
      });
      secrets.push(...webhookSecrets('the rotated webhook secret', rotated.webhook_secret));
      await recordSealed(ctx.workspaceId);
      const before = receiver.received.length;
      await ping(ctx.webhookId);
      await settled(ctx.key, ctx.webhookId, 2);
      // Both secrets signed it: the rotation really happened.
      expect(receiver.received[before]?.headers['x-svc-signature-previous']).toBeDefined();
      const ended = await rotateWebhookSecret(ctxOf(store, { clock, box }), {
        workspaceId: ctx.workspaceId,
        overlapMs: 0,
      });
      secrets.push(...webhookSecrets('the second rotated webhook secret', ended.webhook_secret));
      await recordSealed(ctx.workspaceId);

      const warnings = lines.map((l) => JSON.parse(l) as { msg: string }).map((l) => l.msg);
      expect(warnings).toContain('webhook delivery failed: retries spent');
      expect(warnings).toContain('webhook endpoint disabled: 410 Gone');
    });

    it('every endpoint of the contract answers a valid request with a valid key', async () => {
      for (const name of NAMES) {
        const endpoint = endpoints[name] as Endpoint;
        const answer = await call(await VALID[name](), endpoint.tier ? ctx.key : undefined);
        expect(answer.status, `${name}: ${answer.text.slice(0, 300)}`).toBe(endpoint.success.status);
      }
    });

    it('every keyed endpoint refuses no key, an unknown, a malformed, a misplaced and a revoked key, and a lower tier', async () => {
      const { store, clock } = server().services;
      expect((await call(VALID.listScores() as Probe, ctx.revoked)).status).toBe(200);
      await revokeKey(ctxOf(store, { clock }), { keyId: ctx.revokedId });
      for (const name of NAMES) {
        const endpoint = endpoints[name] as Endpoint;
        if (!endpoint.tier) continue;
        const probe = await VALID[name]();
        for (const key of [undefined, UNKNOWN_KEY, ctx.key.slice(0, -1), ` ${ctx.key}x`, ctx.revoked]) {
          expect((await call(probe, key)).status, name).toBe(401);
        }
        // The key where it does not belong: a bearer token, and in the query string.
        const bearer = await call({ ...probe, headers: { authorization: `Bearer ${ctx.key}` } });
        expect(bearer.status).toBe(401);
        const inQuery = `${probe.path}${probe.path.includes('?') ? '&' : '?'}api_key=${ctx.key}`;
        expect((await call({ ...probe, path: inQuery }, ctx.key)).status).toBe(400);
        const free = await call(probe, ctx.free);
        expect(free.status, name).toBe(TIER_RANK[endpoint.tier] > TIER_RANK.FREE ? 403 : endpoint.success.status);
      }
    });

    it('client errors: bad JSON, a wrong media type, an oversized body, an unknown route, a wrong method, bad fields', async () => {
      const got = [
        await call({ method: 'POST', path: WEBHOOKS, raw: `{"url": "${canary}", "events": [` }, ctx.key),
        await call({ method: 'POST', path: WEBHOOKS, raw: canary, headers: { 'content-type': 'text/plain' } }, ctx.key),
        await call({ method: 'POST', path: '/api/v1/portfolio/score', raw: `"${'x'.repeat(70_000)}"` }, ctx.key),
        await call({ method: 'GET', path: `/api/v1/nothing-here?token=${canary}` }, ctx.key),
        await call({ method: 'DELETE', path: '/api/v1/scores' }, ctx.key),
        await call(
          { method: 'POST', path: WEBHOOKS, body: { url: canary, events: ['nope'], secret: canary } },
          ctx.key,
        ),
        await call({ method: 'GET', path: `/api/v1/providers/search?q=${canary}&limit=0` }, ctx.key),
        await call({ method: 'GET', path: `${WEBHOOKS}/wh_${'0'.repeat(24)}/deliveries` }, ctx.other),
        // A key pasted into the path by mistake, where a provider id or a route belongs.
        await call({ method: 'GET', path: `/api/v1/scores/${ctx.key}` }, ctx.key),
        await call({ method: 'GET', path: `/api/v1/scores/${ctx.key}/history` }),
        await call({ method: 'GET', path: `/api/v1/${ctx.key}` }),
      ];
      expect(got.map((a) => a.status)).toEqual([400, 415, 413, 404, 405, 400, 400, 404, 400, 401, 404]);
      // The problem still names the path, with the key masked.
      const pasted = JSON.parse(got[10]?.text ?? '{}') as { instance: string; detail: string };
      expect(pasted).toMatchObject({
        instance: '/api/v1/svc_live_[redacted]',
        detail: 'no route GET /api/v1/svc_live_[redacted]',
      });
    });

    it('the agent tools over the Model Context Protocol: initialize, tools/list and tools/call', async () => {
      const headers = { accept: 'application/json, text/event-stream' };
      const rpc = (id: number, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params });
      const messages = [
        rpc(1, 'initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'secrets-test', version: '1.0.0' },
        }),
        rpc(2, 'tools/list'),
        rpc(3, 'tools/call', { name: 'get_provider_score', arguments: { provider_name: canary } }),
        rpc(4, 'tools/call', { name: 'get_rating_actions', arguments: { provider_name: canary, type: 'NEW' } }),
      ];
      for (const body of messages) {
        const answer = await call({ method: 'POST', path: '/api/mcp', body, headers }, ctx.key);
        expect(answer.status, answer.text).toBe(200);
      }
    });

    it.runIf(engine === 'postgres')(
      'a store outage: keyed requests get 503 and the dispatcher logs it; then the store is back',
      async () => {
        await proxy?.stop();
        await pause(300);
        for (const name of ['listWebhooks', 'listScores', 'callMcpTool'] as const) {
          const answer = await call(await VALID[name](), ctx.key);
          expect(answer.status, answer.text).toBe(503);
        }
        const deadline = Date.now() + 10_000;
        while (!lines.some((l) => l.includes('could not read the outbox: store unavailable'))) {
          if (Date.now() > deadline) throw new Error('the dispatcher did not log the outage');
          await pause(20);
        }
        await proxy?.start();
        for (;;) {
          const answer = await call(VALID.listWebhooks() as Probe, ctx.key);
          if (answer.status === 200) break;
          if (Date.now() > deadline) throw new Error('the store did not come back');
          await pause(100);
        }
      },
    );
  });

  describe('the scan', () => {
    /** Lets the last request lines and dispatcher lines be written. */
    beforeAll(async () => {
      await pause(100);
      expect(lines.length).toBeGreaterThan(answers.length);
    });

    it('no issued key, key hash, webhook secret, master key or sealed secret is in any log line or anything printed', () => {
      const windows = windowsOf(secrets);
      const found = [...lines, ...printed].flatMap((text, n) =>
        secretsIn(text, windows).map((what) => `${n}: ${what}`),
      );
      expect(found).toEqual([]);
      // What was looked for: every key issued (with its hash), three webhook secrets of the rotated workspace, ...
      expect(secrets.filter(([what]) => what.endsWith('SHA-256')).length).toBe(4);
      expect(secrets.filter(([what]) => what.startsWith('the sealed')).length).toBeGreaterThanOrEqual(5 * 4);
    });

    it('no such secret is in any answer the suite got: status line, headers or body', () => {
      const windows = windowsOf(secrets);
      const found = answers.flatMap((a) => {
        const text = `${a.status}\n${a.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n${a.text}`;
        return secretsIn(text, windows).map((what) => `${a.probe} (${a.status}): ${what}`);
      });
      expect(found).toEqual([]);
      expect(answers.length).toBeGreaterThan(150);
    });

    it('every answer has a request log line with its request id and status; no line carries a body, query or header', () => {
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const line of parsed) {
        expect(line).toMatchObject({ service: 'svc-api' });
        expect(typeof line.level).toBe('number');
        expect(typeof line.msg).toBe('string');
      }
      const requests = new Map(parsed.filter((l) => l.msg === 'request').map((l) => [l.req_id, l]));
      for (const a of answers) {
        const id = a.headers.find(([k]) => k === 'x-request-id')?.[1];
        expect(id, a.probe).toBeDefined();
        expect(requests.get(id)?.status, `${a.probe}: ${id}`).toBe(a.status);
      }
      // The canary went in bodies (webhook description, coverage request, MCP arguments, bad JSON), query strings
      // and a path's query; none of it is logged.
      expect(lines.filter((l) => l.includes(canary))).toEqual([]);
      expect(lines.filter((l) => /x-api-key|authorization|content-type/i.test(l))).toEqual([]);
    });

    it('a request id sent by the client is echoed and logged as the request id', async () => {
      const id = `trace-${randomBytes(6).toString('hex')}`;
      const answer = await call({ method: 'GET', path: '/api/v1/status', headers: { 'x-request-id': id } });
      expect(answer.headers).toContainEqual(['x-request-id', id]);
      await pause(50);
      expect(lines.filter((l) => l.includes(`"req_id":"${id}"`))).toHaveLength(1);
    });

    it('the scan finds a key written into a log line, whole or cut short; the logger redacts one under `key`', () => {
      const scratch: string[] = [];
      const logger = createLogger({ logLevel: 'debug' }, { write: (line: string) => void scratch.push(line) });
      logger.info({ presented: ctx.key }, 'a careless line');
      logger.info({ note: `first part ${ctx.key.slice(0, 24)}` }, 'a truncated key');
      logger.info({ key: ctx.key, secret: 'whsec_x', webhook_secret: 'whsec_y', headers: { a: 1 } }, 'redacted');
      const windows = windowsOf(secrets);
      const found = scratch.map((line) => secretsIn(line, windows).length > 0);
      expect(found).toEqual([true, true, false]);
      expect(scratch[2]).toContain('"key":"[redacted]"');
    });
  });
});
