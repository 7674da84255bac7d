import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { type LimitDecision, RedisRateLimiter } from '../../src/services/shared/rate-limit.js';
import { REDIS_URL, redisAvailable } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { deleteKeys, uniquePrefix } from './redis-keys.js';
import { eventually, get, rateLimitStoreState } from './servers.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs a consume and fails if it takes longer than `ms`: a limiter must never hang a request. */
async function within(ms: number, consume: Promise<LimitDecision>): Promise<LimitDecision> {
  const started = Date.now();
  const decision = await consume;
  expect(Date.now() - started).toBeLessThan(ms);
  return decision;
}

describe.skipIf(!redisAvailable)('when Redis is unreachable', () => {
  let proxy: TcpProxy;
  let prefix: string;
  const limiters: RedisRateLimiter[] = [];
  let server: TestServer | null = null;
  const serverKeys: string[] = [];

  beforeEach(async () => {
    proxy = new TcpProxy(REDIS_URL);
    await proxy.start();
    prefix = uniquePrefix();
  });
  afterEach(async () => {
    for (const l of limiters.splice(0)) await l.close();
    await server?.stop();
    server = null;
    await proxy.stop();
    await deleteKeys(`${prefix}*`);
    for (const keyId of serverKeys.splice(0)) await deleteKeys(`svc:rl:key:${keyId}`);
  });

  function limiter(url: string, states: string[] = []): RedisRateLimiter {
    const l = new RedisRateLimiter({
      url,
      instances: 2,
      clock: systemClock,
      keyPrefix: prefix,
      onStateChange: (state) => states.push(state),
    });
    limiters.push(l);
    return l;
  }

  it('the limiter falls back at once to limit / instances, reports degraded once, and resumes on Redis when it returns', async () => {
    const states: string[] = [];
    const l = limiter(proxy.url, states);
    await l.ready();
    for (const remaining of [9, 8, 7])
      expect(await l.consume('key:a', 10, 3600)).toMatchObject({ allowed: true, remaining });
    expect(l.state()).toBe('ok');

    await proxy.stop();
    await eventually(async () => l.state() === 'degraded', 2000);
    const decisions: LimitDecision[] = [];
    for (let i = 0; i < 8; i++) decisions.push(await within(1000, l.consume('key:b', 10, 3600)));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    // The decisions state the limit in force while degraded: 10 / 2 instances.
    expect(decisions.map((d) => [d.limit, d.remaining])).toEqual([
      [5, 4],
      [5, 3],
      [5, 2],
      [5, 1],
      [5, 0],
      [5, 0],
      [5, 0],
      [5, 0],
    ]);
    expect(states).toEqual(['degraded']);

    await proxy.start();
    const took = await eventually(async () => l.state() === 'ok', 5000);
    expect(took).toBeLessThan(5000);
    expect(states).toEqual(['degraded', 'ok']);
    // Back on Redis: the budget spent there before the outage still counts.
    expect(await l.consume('key:a', 10, 3600)).toMatchObject({ allowed: true, remaining: 6 });
  });

  it('a Redis that stops answering does not hang a request: the fallback answers within about the command timeout', async () => {
    const l = limiter(proxy.url);
    await l.ready();
    expect((await l.consume('key:a', 10, 3600)).allowed).toBe(true);
    proxy.hold();
    expect(await within(1500, l.consume('key:a', 10, 3600))).toMatchObject({ allowed: true, limit: 5 });
    expect(l.state()).toBe('degraded');
    proxy.release();
    await eventually(async () => (await l.consume('key:a', 10, 3600)).allowed && l.state() === 'ok', 5000);
  });

  it('a limiter whose Redis never answers serves from the fallback and closes cleanly', async () => {
    const l = limiter(`redis://127.0.0.1:${await closedPort()}`);
    await expect(l.ready(300)).rejects.toThrow(/not reachable/);
    expect(await within(1000, l.consume('key:a', 10, 3600))).toMatchObject({ allowed: true, remaining: 4 });
    expect(l.state()).toBe('degraded');
    await within(
      1000,
      l.close().then(() => l.consume('key:a', 10, 3600)),
    );
  });

  it('a server whose Redis goes away keeps serving: a FREE key gets 100 / SVC_INSTANCES = 50, then 429; status degraded, then ok again', async () => {
    server = await startTestServer('sqlite', { env: { REDIS_URL: proxy.url, SVC_INSTANCES: '2' } });
    const api = server.url;
    await eventually(async () => (await rateLimitStoreState(api)) === 'ok', 3000);
    const before = await server.issueKey('FREE');
    const during = await server.issueKey('FREE');
    serverKeys.push(before.keyId, during.keyId);
    expect((await get(api, '/api/v1/issuances', before.key)).headers.get('x-ratelimit-remaining')).toBe('99');

    await proxy.stop();
    await eventually(async () => (await rateLimitStoreState(api)) === 'degraded', 3000);
    const status = (await (await get(api, '/api/v1/status')).json()) as { status: string };
    expect(status.status).toBe('degraded');
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 51; i++) {
      const res = await get(api, '/api/v1/issuances', during.key);
      await res.arrayBuffer();
      statuses.push(res.status);
      // The headers announce the limit this instance enforces while Redis is away: 100 / 2.
      expect(res.headers.get('x-ratelimit-limit')).toBe('50');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(Math.max(0, 49 - i)));
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([...Array(50).fill(200), 429]);
    expect(Date.now() - started).toBeLessThan(10_000);

    await proxy.start();
    await eventually(async () => (await rateLimitStoreState(api)) === 'ok', 5000);
    // Redis limiting resumed: the key spent one request there before the outage.
    const res = await get(api, '/api/v1/issuances', before.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('98');
  });

  it('a server started with REDIS_URL at a closed port starts and serves, degraded', async () => {
    server = await startTestServer('sqlite', { env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
    const api = server.url;
    const status = await get(api, '/api/v1/status');
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({
      status: 'degraded',
      components: { store: 'ok', rate_limit_store: 'degraded' },
    });
    const { key } = await server.issueKey('FREE');
    const res = await get(api, '/api/v1/issuances', key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('a server started while Redis is reachable limits through Redis from its first request', async () => {
    server = await startTestServer('sqlite', { env: { REDIS_URL } });
    const api = server.url;
    expect(await rateLimitStoreState(api)).toBe('ok');
    const { key, keyId } = await server.issueKey('FREE');
    serverKeys.push(keyId);
    expect((await get(api, '/api/v1/issuances', key)).status).toBe(200);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.zcard(`svc:rl:key:${keyId}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });
});
