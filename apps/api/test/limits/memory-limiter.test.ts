import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LimitDecision, MemoryRateLimiter } from '../../src/services/shared/rate-limit.js';

/** The fast-check seed: FC_SEED replays a printed failure; the default keeps every run the same. */
const SEED = process.env.FC_SEED === undefined ? 20_260_701 : Number(process.env.FC_SEED);
console.log(`memory limiter properties: fast-check seed ${SEED} (FC_SEED=${SEED} replays)`);

/** A clock the test moves by hand: the limiter reads the time from it and nothing else. */
function handClock(start = Date.parse('2026-07-01T09:00:00.000Z')) {
  let t = start;
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
    get ms() {
      return t;
    },
  };
}

/** The reference: an exact sliding log that admits iff fewer than `limit` were admitted in (t - window, t]. */
function referenceLog() {
  const admitted = new Map<string, number[]>();
  return (bucket: string, t: number, limit: number, windowMs: number) => {
    const inWindow = (admitted.get(bucket) ?? []).filter((at) => at > t - windowMs);
    const allowed = inWindow.length < limit;
    if (allowed) inWindow.push(t);
    admitted.set(bucket, inWindow);
    const oldest = Math.min(...inWindow);
    return {
      allowed,
      remaining: limit - inWindow.length,
      resetSeconds: Math.ceil((oldest + windowMs - t) / 1000),
    };
  };
}

const pick = (d: LimitDecision) => ({ allowed: d.allowed, remaining: d.remaining, resetSeconds: d.resetSeconds });

/** Bounded request timelines: a limit, a window, and up to 300 requests over 3 buckets with gaps that hit the window's edges. */
const timelines = fc
  .record({ limit: fc.integer({ min: 1, max: 40 }), windowSeconds: fc.integer({ min: 1, max: 5 }) })
  .chain(({ limit, windowSeconds }) => {
    const windowMs = windowSeconds * 1000;
    const gap = fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 4, arbitrary: fc.integer({ min: 1, max: Math.ceil(windowMs / Math.max(1, limit)) }) },
      { weight: 1, arbitrary: fc.constantFrom(windowMs - 1, windowMs, windowMs + 1) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * windowMs }) },
    );
    const request = fc.record({ gap, bucket: fc.constantFrom('a', 'b', 'c') });
    return fc.record({
      limit: fc.constant(limit),
      windowSeconds: fc.constant(windowSeconds),
      requests: fc.array(request, { minLength: 1, maxLength: 300 }),
    });
  });

describe('MemoryRateLimiter', () => {
  it('admits exactly `limit` requests in a window and refuses the next', () => {
    const clock = handClock();
    const limiter = new MemoryRateLimiter(clock);
    const decisions = Array.from({ length: 101 }, () => limiter.consumeNow('key:1', 100, 3600));
    expect(decisions.slice(0, 100).every((d) => d.allowed)).toBe(true);
    expect(decisions.map((d) => d.remaining).slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(decisions[100]).toEqual({
      allowed: false,
      limit: 100,
      remaining: 0,
      resetSeconds: 3600,
      windowSeconds: 3600,
    });
  });

  it('no request under the limit is refused and none over it admitted: decisions equal an exact sliding log', () => {
    fc.assert(
      fc.property(timelines, ({ limit, windowSeconds, requests }) => {
        const clock = handClock();
        const limiter = new MemoryRateLimiter(clock);
        const reference = referenceLog();
        for (const { gap, bucket } of requests) {
          clock.advance(gap);
          const expected = reference(bucket, clock.ms, limit, windowSeconds * 1000);
          expect(pick(limiter.consumeNow(bucket, limit, windowSeconds))).toEqual(expected);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('a refused caller who waits resetSeconds is admitted', () => {
    fc.assert(
      fc.property(timelines, ({ limit, windowSeconds, requests }) => {
        const clock = handClock();
        const limiter = new MemoryRateLimiter(clock);
        for (const { gap, bucket } of requests) {
          clock.advance(gap);
          const d = limiter.consumeNow(bucket, limit, windowSeconds);
          if (!d.allowed) {
            expect(d.resetSeconds).toBeGreaterThan(0);
            expect(d.resetSeconds).toBeLessThanOrEqual(windowSeconds);
            clock.advance(d.resetSeconds * 1000);
            expect(limiter.consumeNow(bucket, limit, windowSeconds).allowed).toBe(true);
          }
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('resetSeconds counts down to when the oldest counted request leaves the window', () => {
    const clock = handClock();
    const limiter = new MemoryRateLimiter(clock);
    expect(limiter.consumeNow('b', 3, 60).resetSeconds).toBe(60);
    clock.advance(10_000);
    expect(limiter.consumeNow('b', 3, 60)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
    clock.advance(20_500);
    expect(limiter.consumeNow('b', 3, 60)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 30 });
    expect(limiter.consumeNow('b', 3, 60)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 30 });
    // Exactly one window after the first request it has left: (t - window, t].
    clock.advance(29_500);
    expect(limiter.consumeNow('b', 3, 60)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
  });

  it('a refused request does not count', () => {
    const clock = handClock();
    const limiter = new MemoryRateLimiter(clock);
    limiter.consumeNow('b', 2, 60);
    limiter.consumeNow('b', 2, 60);
    clock.advance(30_000);
    for (let i = 0; i < 50; i++) expect(limiter.consumeNow('b', 2, 60).allowed).toBe(false);
    clock.advance(30_000);
    // Both admitted requests have left; the 50 refusals left nothing behind.
    expect(limiter.consumeNow('b', 2, 60)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.consumeNow('b', 2, 60)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('buckets are independent', () => {
    const limiter = new MemoryRateLimiter(handClock());
    for (let i = 0; i < 5; i++) limiter.consumeNow('key:a', 5, 3600);
    expect(limiter.consumeNow('key:a', 5, 3600).allowed).toBe(false);
    expect(limiter.consumeNow('key:b', 5, 3600)).toMatchObject({ allowed: true, remaining: 4 });
    expect(limiter.consumeNow('ip:public_scores:127.0.0.1', 5, 60)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('consume (async) decides as consumeNow does and the state is in_process', async () => {
    const limiter = new MemoryRateLimiter(handClock());
    expect(await limiter.consume('b', 1, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('b', 1, 60)).toMatchObject({ allowed: false });
    expect(limiter.state()).toBe('in_process');
  });

  /** Spends until the limiter's 10,000-spend sweep has just run, on buckets of their own. */
  function sweep(limiter: MemoryRateLimiter, alreadySpent: number, windowSeconds: number): void {
    for (let i = alreadySpent; i < 10_000; i++) limiter.consumeNow(`ip:filler:${i}`, 1_000_000, windowSeconds);
  }

  it('the memory sweep does not drop a live bucket of the same window', () => {
    const clock = handClock();
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 3; i++) limiter.consumeNow('ip:live', 3, 60);
    clock.advance(59_000);
    sweep(limiter, 3, 60);
    expect(limiter.consumeNow('ip:live', 3, 60).allowed).toBe(false);
  });

  it('the memory sweep does not drop a live hourly bucket when a per-minute request triggers it', () => {
    const clock = handClock();
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 3; i++) limiter.consumeNow('key:live', 3, 3600);
    clock.advance(30 * 60_000);
    // Public routes spend per-minute budgets on the same limiter as the hourly key budgets.
    sweep(limiter, 3, 60);
    expect(limiter.consumeNow('key:live', 3, 3600)).toMatchObject({ allowed: false, remaining: 0 });
  });
});
