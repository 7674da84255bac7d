import { type Endpoint, type LimitName, PUBLIC_LIMITS, TIER_HOURLY_LIMIT, TIER_RANK } from '@svc/contracts';
import type { Request, Response } from 'express';
import type { Caller } from '../services/context.js';
import type { LimitDecision } from '../services/rate-limit.js';
import type { Services } from '../services/services.js';
import { rateLimitHeaders } from './headers.js';
import { ApiError } from './problem.js';

/** Spends one request of a limit and sets its headers; refuses with 429 when it is spent. */
export async function admitWithin(
  req: Request,
  res: Response,
  services: Services,
  limit: LimitName,
  caller: Caller | null,
): Promise<void> {
  const decision = await spend(req, services, limit, caller);
  if (!decision) return;
  setLimitHeaders(res, decision);
  if (!decision.allowed) {
    const retryAfter = Math.max(1, decision.resetSeconds);
    throw new ApiError(
      'rate_limited',
      `the limit of ${decision.limit} requests per ${decision.windowSeconds === 3600 ? 'hour' : 'minute'} is spent; retry after ${retryAfter} s`,
      { retry_after_seconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}

/** The caller of a keyed route: its x-api-key checked, and its tier the route's or above; refuses otherwise. */
export async function authenticate(req: Request, res: Response, services: Services, e: Endpoint): Promise<Caller> {
  const presented = req.headers['x-api-key'];
  if (typeof presented !== 'string' || presented === '') {
    throw new ApiError('missing_api_key', 'this endpoint needs an API key in the x-api-key header');
  }
  const caller = await services.auth.authenticate(presented.trim());
  if (!caller) throw new ApiError('invalid_api_key', 'the API key is not valid');
  res.locals.keyId = caller.keyId;
  const required = e.tier ?? 'FREE';
  if (TIER_RANK[caller.tier] < TIER_RANK[required]) {
    throw new ApiError(
      'insufficient_tier',
      `this endpoint needs tier ${required} or above; the key is ${caller.tier}`,
      {
        required_tier: required,
      },
    );
  }
  return caller;
}

async function spend(
  req: Request,
  services: Services,
  name: LimitName,
  caller: Caller | null,
): Promise<LimitDecision | null> {
  if (name === 'none') return null;
  if (name === 'key') {
    const who = caller as Caller;
    return services.limiter.consume(`key:${who.keyId}`, TIER_HOURLY_LIMIT[who.tier], 3600);
  }
  const { limit, windowSeconds } = PUBLIC_LIMITS[name];
  return services.limiter.consume(`ip:${name}:${req.ip ?? 'unknown'}`, limit, windowSeconds);
}

function setLimitHeaders(res: Response, d: LimitDecision): void {
  for (const [name, value] of rateLimitHeaders(d)) res.setHeader(name, value);
}
