/** The rate limit an answer reported: the key's hourly budget, or a public route's per-client-IP one. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until a request is allowed again once `remaining` is 0 (the window is sliding). */
  resetSeconds: number;
  /** The window: 3600 for a key's budget, 60 or 3600 for a public route; null when the answer did not say. */
  windowSeconds: number | null;
}

/** Reads `X-RateLimit-*`, `RateLimit` and `RateLimit-Policy`; null when the answer carries no limit (GET /status). */
export function readRateLimit(headers: Headers, now: number = Date.now()): RateLimitInfo | null {
  const limit = whole(headers.get('x-ratelimit-limit'));
  const remaining = whole(headers.get('x-ratelimit-remaining'));
  if (limit === null || remaining === null) return null;
  const resetSeconds =
    parameter(headers.get('ratelimit'), 't') ?? secondsUntil(whole(headers.get('x-ratelimit-reset')), now) ?? 0;
  return { limit, remaining, resetSeconds, windowSeconds: parameter(headers.get('ratelimit-policy'), 'w') };
}

function whole(text: string | null): number | null {
  return text !== null && /^\d+$/.test(text.trim()) ? Number(text) : null;
}

/** A numeric parameter of a structured field such as `"hour";r=12;t=3540`. */
function parameter(field: string | null, name: string): number | null {
  const match = field?.match(new RegExp(`;\\s*${name}=(\\d+)`));
  return match?.[1] === undefined ? null : Number(match[1]);
}

function secondsUntil(epochSeconds: number | null, now: number): number | null {
  return epochSeconds === null ? null : Math.max(0, epochSeconds - Math.ceil(now / 1000));
}
