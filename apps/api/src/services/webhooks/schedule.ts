/** Durations as operators write them (`500ms`, `5s`, `5m`, `2h`, `1d`) and the retry schedule built from them. */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/;

/** Milliseconds of a duration such as `5s`; null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The production schedule of DESIGN.md: retries after these delays, about three days in all. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';

const WEEK_MS = 7 * 86_400_000;

/** A comma-separated list of 1 to 20 durations, each more than 0 and at most 7 days; throws with the reason. */
export function parseSchedule(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length < 1 || parts.length > 20) throw new Error('must list 1 to 20 durations');
  return parts.map((part) => {
    const ms = parseDuration(part);
    if (ms === null) throw new Error(`"${part}" is not a duration such as 500ms, 5s, 5m, 2h or 1d`);
    if (ms <= 0 || ms > WEEK_MS) throw new Error(`"${part}" must be more than 0 and at most 7d`);
    return ms;
  });
}

/**
 * The delay before the retry that follows attempt `attempt` (1-based), or null when the schedule is
 * spent. Each delay is spread by ±20% (jitter), so receivers that come back are not hit by every
 * sender at once; a receiver's `Retry-After` is honoured as a minimum, up to the schedule's longest
 * step.
 */
export function retryDelay(
  schedule: readonly number[],
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  if (retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, Math.max(...schedule)));
}

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - nowMs);
}
