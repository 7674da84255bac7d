import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { type LimitName, PUBLIC_LIMITS, TIER_HOURLY_LIMIT, TIER_RANK, type Tier } from '@svc/contracts';
import type { Caller } from '../services/context.js';
import type { Services } from '../services/services.js';
import type { LimitDecision } from '../services/shared/rate-limit.js';
import { rateLimitHeaders } from './headers.js';
import { ApiError } from './problem.js';

/**
 * Admission (decision 0052): the one place a request is let in or refused, for every request, whichever path answers
 * it. Express's routes (app.ts), the site's pages and the fast paths before Express (fast-path.ts,
 * score-fast-path.ts) all call `admit`; nothing else reads a key, compares tiers or spends a limit.
 */

/** What admission reads of a request: its headers and the client's address (Express's `req.ip`, or the same rule). */
export interface Arrival {
  headers: IncomingHttpHeaders;
  ip: string;
}

/** What admission reads of a request Express holds: the client's address read only when a public limit needs it. */
export function expressArrival(req: { headers: IncomingHttpHeaders; ip?: string | undefined }): Arrival {
  return {
    headers: req.headers,
    get ip() {
      return req.ip ?? 'unknown';
    },
  };
}

/** What a route or page asks of admission: its lowest tier (absent on public routes) and the limit it spends. */
export interface Gate {
  tier?: Tier | undefined;
  limit: LimitName;
  /** An entitlement beyond the tier, checked after the key and before the limit is spent; throws to refuse. */
  entitled?(caller: Caller, services: Services): void;
}

/** A request let in: who it acts for (null on public routes) and the limit it spent (null when it spends none). */
export interface Admission {
  caller: Caller | null;
  limit: LimitDecision | null;
}

/**
 * Lets a request in or refuses it, in this order: the key (401), the tier (403), the entitlement, the limit (429).
 * `limitOf` names the limit to spend once the caller is known (a route that answers a repeated request spends
 * another); by default the endpoint's. `seen` learns the key's id as soon as it is known, so that the log line of a
 * refusal names it too. A refusal throws an ApiError that carries every header its answer needs.
 */
export async function admit(
  arrival: Arrival,
  gate: Gate,
  services: Services,
  options: { limitOf?: (caller: Caller | null) => Promise<LimitName>; seen?: (keyId: string) => void } = {},
): Promise<Admission> {
  // One async function on the busiest path: each await of a nested one costs the fast path a turn of the queue.
  let caller: Caller | null = null;
  if (gate.tier) {
    const presented = arrival.headers['x-api-key'];
    if (typeof presented !== 'string' || presented === '') {
      throw new ApiError('missing_api_key', 'this endpoint needs an API key in the x-api-key header');
    }
    caller = await services.auth.authenticate(presented.trim());
    if (!caller) throw new ApiError('invalid_api_key', 'the API key is not valid');
    options.seen?.(caller.keyId);
    if (TIER_RANK[caller.tier] < TIER_RANK[gate.tier]) {
      throw new ApiError(
        'insufficient_tier',
        `this endpoint needs tier ${gate.tier} or above; the key is ${caller.tier}`,
        {
          required_tier: gate.tier,
        },
      );
    }
    gate.entitled?.(caller, services);
  }
  const name = options.limitOf ? await options.limitOf(caller) : gate.limit;
  if (name === 'none') return { caller, limit: null };
  const limit = await services.limiter.consume(...bucketOf(arrival, name, caller));
  if (!limit.allowed) {
    const retryAfter = Math.max(1, limit.resetSeconds);
    throw new ApiError(
      'rate_limited',
      `the limit of ${limit.limit} requests per ${limit.windowSeconds === 3600 ? 'hour' : 'minute'} is spent; retry after ${retryAfter} s`,
      { retry_after_seconds: retryAfter },
      { ...Object.fromEntries(rateLimitHeaders(limit)), 'Retry-After': String(retryAfter) },
    );
  }
  return { caller, limit };
}

/** A limit's bucket, size and window: the key's hourly budget, or a public limit per client address. */
function bucketOf(arrival: Arrival, name: Exclude<LimitName, 'none'>, caller: Caller | null): [string, number, number] {
  if (name === 'key') {
    const who = caller as Caller;
    return [`key:${who.keyId}`, TIER_HOURLY_LIMIT[who.tier], 3600];
  }
  const { limit, windowSeconds } = PUBLIC_LIMITS[name];
  return [`ip:${name}:${arrival.ip}`, limit, windowSeconds];
}

/** The headers an admitted request's answer carries: the limit it spent. */
export function admittedHeaders(admission: Admission): [string, string][] {
  return admission.limit ? rateLimitHeaders(admission.limit) : [];
}

// ---- a request handed from a path before Express to Express ----

/**
 * What a path before Express learnt of a request it does not answer itself: its admission (Express must not admit
 * it again) and, when the answer is an error (a refusal, no such indicator, the store away), that error, which
 * Express answers at once without routing the request (middleware.ts).
 */
export interface HandedOver {
  admission?: Admission;
  failure?: unknown;
  keyId?: string;
}

const HANDED_OVER = Symbol('handed over to Express');

export function handOver(req: IncomingMessage, handed: HandedOver): void {
  (req as { [HANDED_OVER]?: HandedOver })[HANDED_OVER] = handed;
}

export function handedOver(req: IncomingMessage): HandedOver | undefined {
  return (req as { [HANDED_OVER]?: HandedOver })[HANDED_OVER];
}

/** Sets an admitted request's limit headers on its answer. */
export function setAdmittedHeaders(res: ServerResponse, admission: Admission): void {
  for (const [name, value] of admittedHeaders(admission)) res.setHeader(name, value);
}
