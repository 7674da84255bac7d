import { StatusResponseSchema } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineIndicator, example, WORKED_ID } from '../support/documents.js';
import { POSTGRES_URL } from '../support/environment.js';
import { clientIp, expectJson, expectProblem } from '../support/responses.js';
import { publish, startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const TIMEOUT_MS = 500;
/** How long any answer may take while the store is down: never a hang. */
const ANSWER_WITHIN_MS = 4 * TIMEOUT_MS + 2500;
/** Lets the pool see connections the proxy dropped before the next requests take them. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * Runs an action with the process's uncaught-exception handlers replaced by a
 * recorder, and returns what was recorded: in a real server process each of
 * these would have been fatal.
 */
async function uncaughtDuring(action: () => Promise<void>): Promise<Error[]> {
  const saved = process.listeners('uncaughtException');
  const caught: Error[] = [];
  const record = (error: Error) => {
    caught.push(error);
  };
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', record);
  try {
    await action();
  } finally {
    process.removeListener('uncaughtException', record);
    for (const listener of saved) process.on('uncaughtException', listener);
  }
  return caught;
}

const RI_ID = engineIndicator(example('worked-example')).risk_indicator_id;

describe.skipIf(!engines.includes('postgres'))('store outage (PostgreSQL behind a proxy)', () => {
  const proxy = new TcpProxy(POSTGRES_URL);
  let server: TestServer;
  let key = '';
  let ips = 0;
  let statementSha256 = '';
  let actionId = '';

  beforeAll(async () => {
    await proxy.start();
    server = await startTestServer('postgres', {
      env: { SVC_STORE_TIMEOUT_MS: String(TIMEOUT_MS), TRUST_PROXY: 'true' },
      storeUrl: proxy.url,
    });
    await publish(server, example('worked-example'));
    key = await server.key('ENTERPRISE');
    const row = await server.services.store.db
      .selectFrom('statements')
      .select(['statement_sha256', 'rating_action_id'])
      .where('rating_action_id', 'is not', null)
      .executeTakeFirstOrThrow();
    statementSha256 = row.statement_sha256;
    actionId = row.rating_action_id ?? '';
  });

  afterAll(async () => {
    proxy.forward();
    if (!proxy.listening) await proxy.start();
    await server?.stop();
    await proxy.stop();
  });

  /** Requests that need the store: every keyed route, the change feed and a coverage request. */
  const requests: [string, () => Promise<Response>][] = [
    ['the scores list', () => get('/api/v1/scores')],
    ['a score detail', () => get(`/api/v1/scores/${WORKED_ID}`)],
    ['a score history', () => get(`/api/v1/scores/${WORKED_ID}/history`)],
    ['the methodology', () => get('/api/v1/methodology')],
    ['a computation package', () => get(`/api/v1/computation/${RI_ID}`)],
    ['the issuances list', () => get('/api/v1/issuances')],
    ['the change feed', () => get('/api/public/changelog', false)],
    ['the Atom feed', () => get('/api/public/changelog.atom', false)],
    [
      'a coverage request',
      () =>
        fetch(`${server.url}/api/public/score-request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp(++ips) },
          body: JSON.stringify({ provider_name: 'Outage Co' }),
          signal: AbortSignal.timeout(15_000),
        }),
    ],
  ];

  /** The public record's routes: the rating actions, and each statement route. */
  const records: [string, () => Promise<Response>][] = [
    ['the rating actions', () => get('/api/public/rating-actions?limit=1', false)],
    ['a statement by its hash', () => get(`/api/public/statements/${statementSha256}`, false)],
    ["a publication's statement", () => get(`/api/public/publications/${RI_ID}`, false)],
    ["a rating action's statement", () => get(`/api/public/rating-actions/${actionId}/statement`, false)],
  ];
  const everything = [...requests, ...records];

  function get(path: string, keyed = true): Promise<Response> {
    return server.get(path, { ...(keyed ? { key } : {}), signal: AbortSignal.timeout(15_000) });
  }

  /** Sends every request at once; each must be 2xx. */
  async function expectServed(): Promise<void> {
    const answers = await Promise.all(everything.map(async ([what, send]) => [what, await send()] as const));
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(300);
      await res.body?.cancel();
    }
  }

  /** Sends every request at once; each must be a quick 503 unavailable with Retry-After. */
  async function expectUnavailable(): Promise<void> {
    const answers = await Promise.all(
      everything.map(async ([what, send]) => {
        const started = Date.now();
        const res = await send();
        return { what, res, ms: Date.now() - started };
      }),
    );
    for (const { what, res, ms } of answers) {
      expect(ms, what).toBeLessThan(ANSWER_WITHIN_MS);
      const retryAfter = Number(res.headers.get('retry-after'));
      const problem = await expectProblem(res, 'unavailable');
      expect(retryAfter, what).toBeGreaterThan(0);
      expect(problem.retry_after_seconds).toBe(retryAfter);
      expect(problem.detail).not.toMatch(/ECONN|timeout|postgres|127\.0\.0\.1/i);
    }
  }

  async function status() {
    const started = Date.now();
    const body = await expectJson(await get('/api/v1/status', false), StatusResponseSchema);
    expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
    return body;
  }

  it('while the store answers, every route answers normally', async () => {
    await expectServed();
    expect((await status()).components.store).toBe('ok');
  });

  it('when the store refuses connections, store-backed routes answer 503 unavailable with Retry-After, quickly', async () => {
    await proxy.stop();
    await settle();
    await expectUnavailable();
  });

  it('while the store is down, /api/v1/status answers 200 with components.store unavailable', async () => {
    const body = await status();
    expect(body.status).toBe('degraded');
    expect(body.components.store).toBe('unavailable');
  });

  it('while the store is down, the public scores never hang: the snapshot (200) or 503', async () => {
    const started = Date.now();
    const res = await get('/api/public/scores', false);
    expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
    if (res.status === 200) await res.body?.cancel();
    else await expectProblem(res, 'unavailable');
  });

  it('while the store is down, the pages for people answer the HTML 503 page (or, the ratings list, its snapshot), never a 500', async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    for (const path of [
      '/',
      `/?as_of=${encodeURIComponent(at)}`,
      `/providers/${WORKED_ID}`,
      `/providers/${WORKED_ID}?as_of=${encodeURIComponent(at)}`,
      `/verify/${RI_ID}`,
    ]) {
      const started = Date.now();
      const res = await server.get(path, { signal: AbortSignal.timeout(15_000) });
      const text = await res.text();
      expect(Date.now() - started, path).toBeLessThan(ANSWER_WITHIN_MS);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      // The ratings list may still be served from the snapshot it holds; anything that reads the store is the 503.
      if (path === '/' && res.status === 200) continue;
      expect(res.status, `${path}: ${text.slice(0, 200)}`).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('5');
      expect(text, path).toContain('<h1>Temporarily unavailable</h1>');
    }
  });

  it('when the store is back, the same requests answer 200 again without restarting the server', async () => {
    await proxy.start();
    await expectServed();
    expect((await status()).components.store).toBe('ok');
  });

  it('a store that accepts connections but never answers gives 503 within the store timeout, then recovers', async () => {
    proxy.blackhole();
    await settle();
    await expectUnavailable();
    expect((await status()).components.store).toBe('unavailable');
    proxy.forward();
    await settle();
    await expectServed();
  });

  it('a store that stalls on open connections gives 503 within the query timeout, then recovers', async () => {
    await expectServed();
    proxy.hold();
    await expectUnavailable();
    proxy.forward();
    await settle();
    await expectServed();
    expect((await status()).components.store).toBe('ok');
  });

  it('a store connection that drops while a request is using it gives 503, not an uncaught exception (a crash)', async () => {
    await expectServed();
    const uncaught = await uncaughtDuring(async () => {
      proxy.hold();
      const pending = requests.map(([, send]) => send());
      // The requests now hold pooled connections whose queries wait; the store then goes away under them. (No more
      // requests than the pool has connections: one waiting for a connection would get a new one once it is back.)
      await new Promise((resolve) => setTimeout(resolve, 150));
      proxy.forward();
      for (const res of await Promise.all(pending)) await expectProblem(res, 'unavailable');
      await settle();
    });
    expect(uncaught.map((e) => e.message)).toEqual([]);
    await expectServed();
  });
});
