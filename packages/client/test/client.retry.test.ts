import { afterEach, describe, expect, it } from 'vitest';
import { SvcApiError, SvcClient, type SvcClientOptions, SvcNetworkError } from '../src/index.js';
import { gaps, json, problem, type Reply, type ScriptedServer, startScripted } from './support/scripted-server.js';

// Retries, timeouts and cancellation, against a scripted loopback server that answers 429, 503, hangs or hangs up.

const STATUS = {
  status: 'ok',
  uptime_seconds: 1,
  started_at: '2026-06-30T00:00:00Z',
  framework_version: 'DCRF v1.0',
  data_freshness: { latest_scored_at: null, age_seconds: null },
  components: { store: 'ok', rate_limit_store: 'in_process' },
};
const OK = json(200, STATUS);
const RECEIPT = json(202, { request_id: 'req_1', status: 'RECEIVED', received_at: '2026-06-30T00:00:00Z' });

const servers: ScriptedServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A scripted server answering the n-th request with `replies[n]` (the last one thereafter), and a client of it. */
async function scripted(replies: Reply[], options: Partial<SvcClientOptions> = {}) {
  const server = await startScripted((_, n) => replies[Math.min(n, replies.length - 1)] as Reply);
  servers.push(server);
  return { server, client: new SvcClient({ baseUrl: server.url, ...options }) };
}

describe('429 and 503 are retried for GET and DELETE', () => {
  it('waits the Retry-After seconds of a 429, then succeeds on the second attempt', async () => {
    const { server, client } = await scripted([problem(429, 'rate_limited', { 'retry-after': '1' }), OK]);
    expect(await client.status()).toEqual(STATUS);
    expect(server.arrivals).toHaveLength(2);
    const [wait] = gaps(server.arrivals);
    expect(wait).toBeGreaterThanOrEqual(1000);
    expect(wait).toBeLessThan(1500);
  });

  it('backs off exponentially, with jitter, on a 503 without Retry-After: two failures, three attempts', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable'), problem(503, 'unavailable'), OK], {
      retry: { baseDelayMs: 200 },
    });
    expect(await client.status()).toEqual(STATUS);
    expect(server.arrivals).toHaveLength(3);
    const [first, second] = gaps(server.arrivals) as [number, number];
    // Equal jitter: the n-th wait is between half and all of baseDelayMs × 2^(n-1).
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThan(200 + 150);
    expect(second).toBeGreaterThanOrEqual(200);
    expect(second).toBeLessThan(400 + 150);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const at = () => new Date(Date.now() + 2000).toUTCString();
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': at() }), OK]);
    await client.status();
    expect(gaps(server.arrivals)[0]).toBeGreaterThanOrEqual(900);
  });

  it('gives up after `retries` retries and throws the last error', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' })], {
      retry: { retries: 3 },
    });
    await expect(client.status()).rejects.toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 0 });
    expect(server.arrivals).toHaveLength(4);
  });

  it('does not sleep through a Retry-After longer than maxDelayMs: it throws at once', async () => {
    const { server, client } = await scripted([problem(429, 'rate_limited', { 'retry-after': '3600' }), OK]);
    const started = performance.now();
    const error = await client.status().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 3600 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(server.arrivals).toHaveLength(1);
  });

  it('retries a DELETE', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' }), { status: 204 }]);
    await expect(client.deleteWebhook('wh_000000000000000000000000')).resolves.toBeUndefined();
    expect(server.arrivals.map((a) => a.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('does not retry other errors (404, 500)', async () => {
    for (const [status, code] of [
      [404, 'not_found'],
      [500, 'internal_error'],
    ] as const) {
      const { server, client } = await scripted([problem(status, code), OK]);
      await expect(client.status()).rejects.toMatchObject({ status, code });
      expect(server.arrivals).toHaveLength(1);
    }
  });
});

describe('a POST is never retried unless the call opts in', () => {
  it('a 429 on a POST throws at once, after one attempt', async () => {
    const { server, client } = await scripted([problem(429, 'rate_limited', { 'retry-after': '1' }), RECEIPT]);
    const error = await client.requestScore({ provider_name: 'Nebula Yield' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 1 });
    expect(server.arrivals).toHaveLength(1);
  });

  it('a 503 on a POST throws at once, and so does a dropped connection', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' }), RECEIPT]);
    await expect(client.testWebhook('wh_000000000000000000000000')).rejects.toMatchObject({ status: 503 });
    expect(server.arrivals).toHaveLength(1);
    const dropped = await scripted(['drop', RECEIPT]);
    await expect(dropped.client.requestScore({ provider_name: 'Nebula' })).rejects.toBeInstanceOf(SvcNetworkError);
    expect(dropped.server.arrivals).toHaveLength(1);
  });

  it('retry: true opts a POST in', async () => {
    const { server, client } = await scripted([problem(429, 'rate_limited', { 'retry-after': '0' }), RECEIPT]);
    const receipt = await client.requestScore({ provider_name: 'Nebula Yield' }, { retry: true });
    expect(receipt.status).toBe('RECEIVED');
    expect(server.arrivals).toHaveLength(2);
    expect(server.arrivals.map((a) => a.body)).toEqual([
      '{"provider_name":"Nebula Yield"}',
      '{"provider_name":"Nebula Yield"}',
    ]);
  });
});

describe('retries are configurable and can be turned off', () => {
  it('retry: false on the client: one attempt', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' }), OK], {
      retry: false,
    });
    await expect(client.status()).rejects.toMatchObject({ status: 503 });
    expect(server.arrivals).toHaveLength(1);
  });

  it('retry: false on one call: one attempt', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' }), OK]);
    await expect(client.status({ retry: false })).rejects.toMatchObject({ status: 503 });
    expect(server.arrivals).toHaveLength(1);
  });

  it("a call's own settings replace the client's", async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '0' })], { retry: false });
    await expect(client.status({ retry: { retries: 1 } })).rejects.toMatchObject({ status: 503 });
    expect(server.arrivals).toHaveLength(2);
  });

  it('refuses settings that are not whole numbers of 0 or more', () => {
    expect(() => new SvcClient({ baseUrl: 'http://127.0.0.1:1', retry: { retries: -1 } })).toThrow(TypeError);
    expect(() => new SvcClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 0 })).toThrow(TypeError);
    expect(() => new SvcClient({ baseUrl: 'not a url' })).toThrow(TypeError);
  });
});

describe('no answer: SvcNetworkError', () => {
  it('a dropped connection is retried for a GET', async () => {
    const { server, client } = await scripted(['drop', OK], { retry: { baseDelayMs: 10 } });
    expect(await client.status()).toEqual(STATUS);
    expect(server.arrivals).toHaveLength(2);
  });

  it('a refused connection, after the retries, is an SvcNetworkError with reason network', async () => {
    const { server } = await scripted([OK]);
    const url = server.url;
    await server.close();
    servers.length = 0;
    const client = new SvcClient({ baseUrl: url, retry: { baseDelayMs: 10 } });
    const error = await client.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcNetworkError);
    expect(error).toMatchObject({ reason: 'network', method: 'GET', url: `${url}/api/v1/status` });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('no answer within timeoutMs is an SvcNetworkError with reason timeout', async () => {
    const { server, client } = await scripted(['hang'], { timeoutMs: 200, retry: false });
    const started = performance.now();
    const error = await client.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcNetworkError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect((error as Error).message).toContain('no answer within 200 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(server.arrivals).toHaveLength(1);
  });

  it('a timeout is per attempt, and a GET that timed out is tried again', async () => {
    const { server, client } = await scripted(['hang', OK], { timeoutMs: 200, retry: { baseDelayMs: 10 } });
    expect(await client.status()).toEqual(STATUS);
    expect(server.arrivals).toHaveLength(2);
  });

  it("a call's timeoutMs replaces the client's", async () => {
    const { client } = await scripted(['hang'], { retry: false });
    await expect(client.status({ timeoutMs: 100 })).rejects.toMatchObject({
      name: 'SvcNetworkError',
      reason: 'timeout',
    });
  });
});

describe("the caller's signal cancels", () => {
  it('a call in flight rejects with the abort reason, and is not retried', async () => {
    const { server, client } = await scripted(['hang', OK]);
    const controller = new AbortController();
    const pending = client.status({ signal: controller.signal });
    await server.waitFor(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.arrivals).toHaveLength(1);
  });

  it('a wait between retries ends at once', async () => {
    const { server, client } = await scripted([problem(503, 'unavailable', { 'retry-after': '5' }), OK]);
    const controller = new AbortController();
    const started = performance.now();
    const pending = client.status({ signal: controller.signal });
    await server.waitFor(1);
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.arrivals).toHaveLength(1);
  });
});

describe('what goes over the wire', () => {
  it('sends the key, JSON bodies with their type, the user agent, and no undefined query values', async () => {
    const { server, client } = await scripted([json(200, { data: [], next_cursor: null }), RECEIPT], {
      apiKey: 'svc_live_key',
      userAgent: 'svc-client-tests/1',
    });
    await client.changelog({ since: '2026-06-01', limit: 5, cursor: undefined });
    await client.requestScore({ provider_name: 'Nebula' });
    const [list, post] = server.arrivals;
    expect(list?.path).toBe('/api/public/changelog?since=2026-06-01&limit=5');
    expect(list?.headers).toMatchObject({ 'x-api-key': 'svc_live_key', 'user-agent': 'svc-client-tests/1' });
    expect(list?.headers['content-type']).toBeUndefined();
    expect(post?.headers['content-type']).toBe('application/json');
  });

  it('keeps a path prefix of the base URL', async () => {
    const { server } = await scripted([OK]);
    await new SvcClient({ baseUrl: `${server.url}/svc/` }).status();
    expect(server.arrivals[0]?.path).toBe('/svc/api/v1/status');
  });

  it('refuses to follow a redirect, so the key never travels elsewhere', async () => {
    const { server, client } = await scripted([{ status: 302, headers: { location: 'http://127.0.0.1:1/' } }], {
      apiKey: 'svc_live_key',
      retry: false,
    });
    await expect(client.status()).rejects.toMatchObject({ name: 'SvcNetworkError', reason: 'network' });
    expect(server.arrivals).toHaveLength(1);
  });
});
