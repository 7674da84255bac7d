import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { endpoints, TIER_HOURLY_LIMIT, TIER_RANK, UuidSchema } from '@svc/contracts';
import type { Express } from 'express';
import { servedIndicator } from '../services/scores.js';
import { contextFor, type Services } from '../services/services.js';
import { isStoreUnavailable } from '../store/store.js';
import { codedAnswer } from './compression.js';
import { deprecationHeaderList, deprecationsOf } from './deprecation.js';
import { asOfAlone } from './fast-path.js';
import { rateLimitHeaders, standardHeaders } from './headers.js';
import { failedBeforeExpress, logWhenSent, requestIdOf } from './middleware.js';
import { labelRoute } from './request-metrics.js';

const e = endpoints.getScore;
const PREFIX = '/api/v1/scores/';
const REQUIRED_RANK = TIER_RANK[e.tier];

/**
 * `GET /api/v1/scores/{providerId}`, exactly that (no query string) or with a servable `as_of` alone, answered
 * before Express, as decision 0014 answers the public list; every other request goes to `next`. The key is checked
 * by the same authenticator, its tier against the route's, its hourly limit spent from the same bucket, and the
 * indicator in force (now, or then) served from the bytes kept for the publication version (decision 0036 and its
 * addendum) by the route's own verb. The answer is the Express route's, header for header. Anything unusual goes to
 * Express before a byte is written and before the limit is spent: no key or one that does not pass (Express answers
 * 401 or 403), no indicator (404), a refused limit (a refusal spends nothing, so Express decides the same and
 * answers 429), a store away (503).
 */
export function withScoreDetailFastPath(app: Express, services: Services, next: RequestListener): RequestListener {
  const deprecation = deprecationsOf(app).get(e.operationId);
  const fixed = [...standardHeaders().api.flat(), ...(deprecation ? deprecationHeaderList(deprecation).flat() : [])];

  /** The indicator's bytes, the key's id and the limit's headers, or null when Express must answer. */
  const admit = async (req: IncomingMessage, providerId: string, instant: string | null) => {
    const presented = req.headers['x-api-key'];
    if (typeof presented !== 'string' || presented === '') return null;
    const caller = await services.auth.authenticate(presented.trim());
    if (!caller || TIER_RANK[caller.tier] < REQUIRED_RANK) return null;
    const row = await servedIndicator(contextFor(services, { kind: 'key', caller }), {
      providerId,
      ...(instant === null ? {} : { asOf: instant }),
    });
    const decision = await services.limiter.consume(`key:${caller.keyId}`, TIER_HOURLY_LIMIT[caller.tier], 3600);
    return decision.allowed
      ? { bytes: row.bytes, keyId: caller.keyId, limit: rateLimitHeaders(decision).flat() }
      : null;
  };

  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    providerId: string,
    instant: string | null,
  ) => {
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit(req, providerId, instant);
    } catch (error) {
      // A store away is answered by Express at once (its 503); anything else Express works out again.
      if (isStoreUnavailable(error)) failedBeforeExpress(req, error);
      admitted = null;
    }
    if (!admitted) {
      app(req, res);
      return;
    }
    const { keyId, limit } = admitted;
    // Compressed as the layer compresses the Express route's answer (compression.ts).
    const { bytes, headers: coding } = codedAnswer(req, admitted.bytes);
    if (services.metrics) labelRoute(res, e.path);
    const id = requestIdOf(req);
    logWhenSent(services.logger, req, res, id, path, () => keyId);
    res.writeHead(200, [
      'x-request-id',
      id,
      ...fixed,
      ...limit,
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(bytes.length),
      ...coding,
    ]);
    res.end(bytes);
  };

  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX) || !plainlyJson(req.headers.accept)) {
      next(req, res);
      return;
    }
    const query = url.indexOf('?');
    const providerId = url.slice(PREFIX.length, query === -1 ? undefined : query);
    const instant = query === -1 ? null : asOfAlone(url.slice(query), services.clock.now());
    if (instant === undefined || !UuidSchema.safeParse(providerId).success) {
      next(req, res);
      return;
    }
    answer(req, res, url, providerId, instant).catch((error: unknown) => {
      services.logger.error({ err: error instanceof Error ? error.stack : String(error) }, 'score detail failed');
      if (res.headersSent) res.destroy();
      else app(req, res);
    });
  };
}

/** Accept headers the fast path answers as they are; any other goes through Express's content negotiation. */
function plainlyJson(accept: string | undefined): boolean {
  return accept === undefined || accept === '*/*' || accept === 'application/json';
}
