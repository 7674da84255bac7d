import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { RedisRateLimiter } from '../../src/services/shared/rate-limit.js';
import { REDIS_URL, redisAvailable } from '../support/environment.js';
import { deleteKeys, uniquePrefix } from './redis-keys.js';

describe.skipIf(!redisAvailable)('RedisRateLimiter on a real Redis', () => {
  let prefix: string;
  const opened: RedisRateLimiter[] = [];
  beforeEach(() => {
    prefix = uniquePrefix();
  });
  afterEach(async () => {
    for (const l of opened.splice(0)) await l.close();
    await deleteKeys(`${prefix}*`);
  });

  /** One limiter, as one API process holds it. */
  async function limiter(instances = 1): Promise<RedisRateLimiter> {
    const l = new RedisRateLimiter({ url: REDIS_URL, instances, clock: systemClock, keyPrefix: prefix });
    opened.push(l);
    await l.ready();
    return l;
  }

  it('admits exactly `limit` requests and refuses the next, counting down remaining', async () => {
    const l = await limiter();
    const decisions = [];
    for (let i = 0; i < 11; i++) decisions.push(await l.consume('key:a', 10, 60));
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false]);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    for (const d of decisions) {
      expect(d.limit).toBe(10);
      expect(d.windowSeconds).toBe(60);
      expect(d.resetSeconds).toBeGreaterThanOrEqual(59);
      expect(d.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect(l.state()).toBe('ok');
  });

  it('a refused request does not count, and the window slides', async () => {
    const l = await limiter();
    expect((await l.consume('key:a', 2, 1)).allowed).toBe(true);
    expect((await l.consume('key:a', 2, 1)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect((await l.consume('key:a', 2, 1)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await l.consume('key:a', 2, 1)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('buckets are independent', async () => {
    const l = await limiter();
    for (let i = 0; i < 3; i++) await l.consume('key:a', 3, 60);
    expect((await l.consume('key:a', 3, 60)).allowed).toBe(false);
    expect(await l.consume('key:b', 3, 60)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('two limiters (two processes) share one budget: alternating consumes admit exactly `limit` in total', async () => {
    const [one, two] = [await limiter(2), await limiter(2)];
    const decisions = [];
    for (let i = 0; i < 40; i++) decisions.push(await (i % 2 === 0 ? one : two).consume('key:shared', 25, 60));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    expect(decisions.slice(0, 25).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 25).map((d) => d.remaining)).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));
  });

  it('300 parallel consumes with limit 100 admit exactly 100', async () => {
    const l = await limiter();
    const decisions = await Promise.all(Array.from({ length: 300 }, () => l.consume('key:burst', 100, 60)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(new Set(decisions.filter((d) => d.allowed).map((d) => d.remaining)).size).toBe(100);
    expect(l.state()).toBe('ok');
  });

  it('300 parallel consumes over two limiters with limit 100 admit exactly 100', async () => {
    const [one, two] = [await limiter(), await limiter()];
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? one : two).consume('key:burst', 100, 60)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
  });
});
