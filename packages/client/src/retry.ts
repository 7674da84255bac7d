import { SvcApiError, SvcNetworkError } from './errors.js';

/** When and how long to retry a call that met a 429, a 503 or no answer. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2 (three attempts in all). */
  retries?: number;
  /** The first backoff step; each retry doubles it, and half of each wait is random. Default 500 ms. */
  baseDelayMs?: number;
  /**
   * The longest wait. A backoff step is capped at it; a `Retry-After` longer than it is not waited out at all:
   * the call throws at once, with the error's `retryAfterSeconds` saying how long the service asked for. Default 30 s.
   */
  maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };

/** The statuses that say "try again later": the limit is spent, or the store is briefly unavailable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Client options (`false`: never retry) merged over the defaults, checked once. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy | null {
  if (options === false) return null;
  const policy = { ...DEFAULT_RETRY, ...definedOnly(options ?? {}) };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`retry.${name} must be a whole number, 0 or more`);
  }
  return policy;
}

function definedOnly(options: RetryOptions): RetryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/**
 * How long to wait before attempt `attempt + 1` after `error`, or null to give up and throw it: the service's
 * `Retry-After` when it gave one (unless beyond `maxDelayMs`), else exponential backoff with jitter.
 */
export function delayBeforeRetry(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  if (attempt > policy.retries) return null;
  if (error instanceof SvcApiError) {
    if (!RETRYABLE_STATUSES.has(error.status)) return null;
    if (error.retryAfterSeconds !== null) {
      const asked = error.retryAfterSeconds * 1000;
      return asked > policy.maxDelayMs ? null : asked;
    }
  } else if (!(error instanceof SvcNetworkError)) {
    return null;
  }
  return backoff(attempt, policy, random);
}

/** "Equal jitter": half of the step fixed, half random, so retries spread out yet never come back at once. */
export function backoff(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its day and month ("Tue, 30 Jun 2026 12:00:05 GMT"); Date.parse would take "-1" as a year.
  if (!/[A-Za-z]{3}/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
