import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, redisAvailable } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { deleteKeys } from './redis-keys.js';
import { eventually, get, rateLimitStoreState } from './servers.js';

describe.skipIf(!redisAvailable).each(engines)('two API servers on one Redis and one %s store', (engine) => {
  let server: TestServer | null = null;
  const usedKeys: string[] = [];
  afterEach(async () => {
    await server?.stop();
    server = null;
    // The servers' own Redis keys for the keys this test created; nothing else is touched.
    for (const keyId of usedKeys.splice(0)) await deleteKeys(`svc:rl:key:${keyId}`);
  });

  /** Both servers, once each reports its Redis connection up (see redis-outage.test.ts for the start-up gap). */
  async function twoServers() {
    // One after the other, as a rolling start would: the first migrates, the second finds the schema in place.
    const a = await startTestServer(engine, { env: { REDIS_URL } });
    server = a;
    const b = await a.startInstance();
    await eventually(async () => (await rateLimitStoreState(a.url)) === 'ok', 3000);
    await eventually(async () => (await rateLimitStoreState(b.url)) === 'ok', 3000);
    return { a, b };
  }

  it('a FREE key gets exactly 100 requests across both servers, then 429, with one remaining count', async () => {
    const { a, b } = await twoServers();
    const { key, keyId } = await a.issueKey('FREE');
    usedKeys.push(keyId);

    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 101; i++) {
      const res = await get((i % 2 === 0 ? a : b).url, '/api/v1/issuances', key);
      await res.arrayBuffer();
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3500);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
    expect(statuses).toEqual([...Array(100).fill(200), 429]);
    expect(remaining).toEqual([...Array.from({ length: 100 }, (_, i) => String(99 - i)), '0']);
    // Either server refuses the 102nd as well.
    expect((await get(a.url, '/api/v1/issuances', key)).status).toBe(429);
    expect((await get(b.url, '/api/v1/issuances', key)).status).toBe(429);
  });

  it('keys have budgets of their own across the servers', async () => {
    const { a, b } = await twoServers();
    const one = await a.issueKey('FREE');
    const two = await a.issueKey('FREE');
    usedKeys.push(one.keyId, two.keyId);
    for (let i = 0; i < 5; i++) await (await get(a.url, '/api/v1/issuances', one.key)).arrayBuffer();
    const res = await get(b.url, '/api/v1/issuances', two.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
    const again = await get(b.url, '/api/v1/issuances', one.key);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('94');
  });
});
