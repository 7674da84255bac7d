import { describe, expect, it } from 'vitest';
import { SvcApiError, SvcNetworkError } from '../src/errors.js';
import { readRateLimit } from '../src/rate-limit.js';
import { backoff, DEFAULT_RETRY, delayBeforeRetry, parseRetryAfter, retryPolicy } from '../src/retry.js';

const POLICY = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 };

function apiError(status: number, retryAfterSeconds: number | null = null): SvcApiError {
  return new SvcApiError({
    status,
    code: status === 429 ? 'rate_limited' : 'unavailable',
    problem: null,
    requestId: null,
    retryAfterSeconds,
    method: 'GET',
    url: 'http://svc.test/api/v1/status',
  });
}

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates, and nothing else', () => {
    const now = Date.UTC(2026, 5, 30, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Tue, 30 Jun 2026 12:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Tue, 30 Jun 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-1', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('backoff: the n-th wait is between half and all of baseDelayMs × 2^(n-1), capped at maxDelayMs', () => {
  it.each([
    [1, 50, 100],
    [2, 100, 200],
    [3, 200, 400],
    [5, 500, 1000],
    [9, 500, 1000],
  ])('attempt %i waits %i to %i ms', (attempt, low, high) => {
    expect(backoff(attempt, POLICY, () => 0)).toBe(low);
    expect(backoff(attempt, POLICY, () => 1)).toBe(high);
  });
});

describe('delayBeforeRetry', () => {
  it('waits the Retry-After of a 429 or 503', () => {
    expect(delayBeforeRetry(apiError(429, 1), 1, POLICY)).toBe(1000);
    expect(delayBeforeRetry(apiError(503, 0), 1, POLICY)).toBe(0);
  });

  it('gives up on a Retry-After longer than maxDelayMs rather than sleep through it', () => {
    expect(delayBeforeRetry(apiError(429, 2), 1, POLICY)).toBeNull();
  });

  it('backs off on a 503 without Retry-After and on a network failure', () => {
    expect(delayBeforeRetry(apiError(503), 2, POLICY, () => 0)).toBe(100);
    expect(delayBeforeRetry(new SvcNetworkError('timeout', 'GET', 'u', { timeoutMs: 1 }), 1, POLICY, () => 1)).toBe(
      100,
    );
  });

  it('never retries other statuses, other errors, or beyond `retries`', () => {
    for (const status of [400, 401, 403, 404, 409, 500, 502])
      expect(delayBeforeRetry(apiError(status), 1, POLICY)).toBeNull();
    expect(delayBeforeRetry(new TypeError('bug'), 1, POLICY)).toBeNull();
    expect(delayBeforeRetry(apiError(503, 0), 4, POLICY)).toBeNull();
  });
});

describe('retryPolicy', () => {
  it('merges settings over the defaults; false turns retries off', () => {
    expect(retryPolicy(undefined)).toEqual(DEFAULT_RETRY);
    expect(retryPolicy({ retries: 5, maxDelayMs: undefined })).toEqual({ ...DEFAULT_RETRY, retries: 5 });
    expect(retryPolicy(false)).toBeNull();
    expect(() => retryPolicy({ baseDelayMs: 1.5 })).toThrow('retry.baseDelayMs must be a whole number, 0 or more');
  });
});

describe('readRateLimit', () => {
  it('reads the limit, what remains, the reset and the window', () => {
    const headers = new Headers({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '997',
      'x-ratelimit-reset': '1782820800',
      ratelimit: '"hour";r=997;t=3541',
      'ratelimit-policy': '"hour";q=1000;w=3600',
    });
    expect(readRateLimit(headers)).toEqual({ limit: 1000, remaining: 997, resetSeconds: 3541, windowSeconds: 3600 });
  });

  it('falls back on X-RateLimit-Reset (epoch seconds) without the RateLimit field', () => {
    const now = 1_782_820_000_000;
    const headers = new Headers({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1782820060',
    });
    expect(readRateLimit(headers, now)).toEqual({ limit: 5, remaining: 0, resetSeconds: 60, windowSeconds: null });
  });

  it('is null for an answer without a limit', () => {
    expect(readRateLimit(new Headers())).toBeNull();
  });
});
