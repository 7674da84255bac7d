import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../../clock.js';

/** The outcome of spending one request from a budget. */
export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (a slot frees). */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimiter {
  consume(bucket: string, limit: number, windowSeconds: number): Promise<LimitDecision>;
  /** `in_process`, or for Redis `ok` / `degraded` (falling back to in-process). */
  state(): 'in_process' | 'ok' | 'degraded';
  close(): Promise<void>;
}

/**
 * An exact sliding log per bucket: the times of the admitted requests of the
 * last window, in a ring buffer. A request is admitted iff fewer than `limit`
 * were admitted in the window before it, so no request under the limit is
 * refused and none over it is admitted.
 */
class SlidingLog {
  /** The window this bucket was last spent with, so a sweep judges it by its own window. */
  windowMs = 0;
  times = new Float64Array(8);
  head = 0;
  size = 0;

  spend(now: number, limit: number, windowMs: number): { allowed: boolean; size: number; oldest: number } {
    this.windowMs = windowMs;
    while (this.size > 0 && (this.times[this.head] as number) <= now - windowMs) {
      this.head = (this.head + 1) % this.times.length;
      this.size--;
    }
    let allowed = false;
    if (this.size < limit) {
      if (this.size === this.times.length) this.grow(limit);
      this.times[(this.head + this.size) % this.times.length] = now;
      this.size++;
      allowed = true;
    }
    return { allowed, size: this.size, oldest: this.size > 0 ? (this.times[this.head] as number) : now };
  }

  newest(): number {
    return this.size > 0 ? (this.times[(this.head + this.size - 1) % this.times.length] as number) : 0;
  }

  private grow(limit: number): void {
    const next = new Float64Array(Math.min(Math.max(this.times.length * 2, 8), Math.max(limit, this.times.length + 1)));
    for (let i = 0; i < this.size; i++) next[i] = this.times[(this.head + i) % this.times.length] as number;
    this.times = next;
    this.head = 0;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private spends = 0;

  constructor(private readonly clock: Clock) {}

  async consume(bucket: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    return this.consumeNow(bucket, limit, windowSeconds);
  }

  consumeNow(bucket: string, limit: number, windowSeconds: number): LimitDecision {
    const now = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    let log = this.logs.get(bucket);
    if (!log) {
      log = new SlidingLog();
      this.logs.set(bucket, log);
    }
    const { allowed, size, oldest } = log.spend(now, limit, windowMs);
    if (++this.spends % 10_000 === 0) this.sweep(now);
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - size),
      resetSeconds: Math.max(0, Math.ceil((oldest + windowMs - now) / 1000)),
      windowSeconds,
    };
  }

  state(): 'in_process' {
    return 'in_process';
  }

  async close(): Promise<void> {
    this.logs.clear();
  }

  /** Forgets buckets with nothing left in their own window, so memory follows the active callers. */
  private sweep(now: number): void {
    for (const [bucket, log] of this.logs) if (log.newest() <= now - log.windowMs) this.logs.delete(bucket);
  }
}

/** One atomic step on Redis: trim the window, count, admit, report; the time is Redis's own, shared by every instance. */
const SLIDING_LOG_LUA = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
redis.call('PEXPIRE', key, window)
return {allowed, count, reset}
`;

type SlidingLogRedis = Redis & {
  svcSlidingLog(key: string, limit: number, windowMs: number, member: string): Promise<[number, number, number]>;
};

export interface RedisLimiterOptions {
  url: string;
  /** API instances sharing the budget: while Redis is unreachable each admits limit / instances. */
  instances: number;
  clock: Clock;
  keyPrefix?: string;
  onStateChange?: (state: 'ok' | 'degraded', error?: Error) => void;
}

/**
 * Limits shared by every instance through Redis. When Redis cannot answer,
 * it falls back to an in-process log at limit / instances (never a crash or a
 * hang), reports `degraded`, and goes back to Redis once it answers again.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingLogRedis;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;

  constructor(private readonly options: RedisLimiterOptions) {
    this.fallback = new MemoryRateLimiter(options.clock);
    this.redis = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 100, 1000),
      lazyConnect: false,
    }) as SlidingLogRedis;
    this.redis.defineCommand('svcSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG_LUA });
    // Connection errors are reported through the fallback, not thrown at the process.
    this.redis.on('error', () => {});
    this.redis.on('ready', () => this.setDegraded(false));
  }

  async consume(bucket: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    const windowMs = windowSeconds * 1000;
    if (this.redis.status === 'ready') {
      try {
        const key = `${this.options.keyPrefix ?? 'svc:rl:'}${bucket}`;
        const [allowed, count, resetMs] = await this.redis.svcSlidingLog(key, limit, windowMs, randomUUID());
        this.setDegraded(false);
        return {
          allowed: allowed === 1,
          limit,
          remaining: Math.max(0, limit - count),
          resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
          windowSeconds,
        };
      } catch (error) {
        this.setDegraded(true, error as Error);
      }
    } else {
      this.setDegraded(true);
    }
    // The headers state the limit in force: this instance's share while Redis is away, not the shared budget.
    const share = Math.max(1, Math.floor(limit / this.options.instances));
    return this.fallback.consumeNow(bucket, share, windowSeconds);
  }

  state(): 'ok' | 'degraded' {
    return this.degraded || this.redis.status !== 'ready' ? 'degraded' : 'ok';
  }

  /** Resolves once Redis answers (or rejects after the timeout). */
  async ready(timeoutMs = 3000): Promise<void> {
    const started = Date.now();
    while (this.redis.status !== 'ready') {
      if (Date.now() - started > timeoutMs) throw new Error(`Redis at ${redact(this.options.url)} is not reachable`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }

  private setDegraded(degraded: boolean, error?: Error): void {
    if (degraded === this.degraded) return;
    this.degraded = degraded;
    this.options.onStateChange?.(degraded ? 'degraded' : 'ok', error);
  }
}

/** A URL without its password, for messages and logs. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}
