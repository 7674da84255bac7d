import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { endpoints, PUBLIC_LIMITS } from '@svc/contracts';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import { servableInstant } from '../services/as-of.js';
import type { Services } from '../services/services.js';
import { chooseCoding, codedEtag } from './compression.js';
import { deprecationHeaderList, deprecationsOf } from './deprecation.js';
import { rateLimitHeaders, standardHeaders } from './headers.js';
import { logWhenSent, requestIdOf } from './middleware.js';
import { matchesEtag, PUBLIC_SCORES_CACHE_CONTROL } from './public-scores.js';
import { labelRoute } from './request-metrics.js';

const PATH = endpoints.listPublicScores.path;
const LIMIT = 'public_scores' satisfies typeof endpoints.listPublicScores.limit;

/**
 * The server's request listener: `GET /api/public/scores`, exactly that (no query but a servable `as_of` alone,
 * no other method), answered before Express, everything else by the app. It is the busiest route and the cheapest to answer (bytes built once
 * per publication), so Express's own cost per request (its router and request and response objects, about four
 * times the answer's) was most of its time; decision 0014.
 *
 * The answer is the one the Express route gives, header for header: the security and CORS headers recorded from
 * the same middleware, the request id, the limit spent from the same bucket, the coding, the ETag and 304, the log line.
 * Anything else is handed to Express before a byte is written: a refused limit (a refusal spends nothing, so
 * Express decides the same and writes the problem), a snapshot that cannot be read (the store is away: 503), a
 * client address that cannot be read. An `as_of` alone is answered the same way from the list as of that instant
 * (PublicSnapshot.asOf, the Express route's source too); one that cannot be served (not a time, too early, in the
 * future) goes to Express, which refuses it.
 */
export function withPublicScoresFastPath(app: Express, services: Services): RequestListener {
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const { limit, windowSeconds } = PUBLIC_LIMITS[LIMIT];
  const deprecation = deprecationsOf(app).get(endpoints.listPublicScores.operationId);
  const fixed = [...standardHeaders().api.flat(), ...(deprecation ? deprecationHeaderList(deprecation).flat() : [])];

  /** The snapshot (now, or as of `instant`) and an allowed limit decision, or null when Express must answer. */
  const admit = async (req: IncomingMessage, instant: string | null) => {
    const { body } = instant === null ? await services.snapshot.get() : await services.snapshot.asOf(instant);
    const decision = await services.limiter.consume(`ip:${LIMIT}:${proxyaddr(req, trust)}`, limit, windowSeconds);
    return decision.allowed ? { body, decision } : null;
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, instant: string | null): Promise<void> => {
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit(req, instant);
    } catch {
      admitted = null;
    }
    if (!admitted) {
      app(req, res);
      return;
    }
    const { body, decision } = admitted;
    if (services.metrics) labelRoute(res, PATH);
    const id = requestIdOf(req);
    logWhenSent(services.logger, req, res, id, PATH, () => undefined);
    const headers = [...fixed, 'x-request-id', id, ...rateLimitHeaders(decision).flat()];
    // The forms compressed once per publication, when ready (until then the bytes as they are), as compression.ts.
    const coding = chooseCoding(req.headers['accept-encoding'], (c) => body.coded[c] !== undefined);
    const etag = codedEtag(body.etag, coding);
    headers.push('ETag', etag, 'Cache-Control', PUBLIC_SCORES_CACHE_CONTROL, 'Vary', 'Accept-Encoding');
    if (matchesEtag(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers).end();
      return;
    }
    const bytes = (coding && body.coded[coding]) || body.bytes;
    headers.push('Content-Type', 'application/json', 'Content-Length', String(bytes.length));
    if (coding) headers.push('Content-Encoding', coding);
    res.writeHead(200, headers).end(bytes);
  };

  return (req, res) => {
    const instant = req.method === 'GET' && plainlyJson(req.headers.accept) ? listedAt(req.url, services) : undefined;
    if (instant === undefined) {
      app(req, res);
      return;
    }
    answer(req, res, instant).catch((error: unknown) => {
      services.logger.error({ err: error instanceof Error ? error.stack : String(error) }, 'public scores failed');
      if (res.headersSent) res.destroy();
      else app(req, res);
    });
  };
}

/** Accept headers the fast path answers as they are; any other goes through Express's content negotiation. */
function plainlyJson(accept: string | undefined): boolean {
  return accept === undefined || accept === '*/*' || accept === 'application/json';
}

const AS_OF_ALONE = /^\?as_of=([^&]*)$/;

/**
 * The instant a query string (from its `?`) names when it is `as_of` alone and servable now, as stored; undefined
 * for any other query, and for an `as_of` that cannot be served (not a time, too early, in the future), which
 * Express refuses. The score detail's fast path reads its query the same way.
 */
export function asOfAlone(query: string, now: Date): string | undefined {
  const value = AS_OF_ALONE.exec(query)?.[1];
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
  return servableInstant(text, now) ?? undefined;
}

/**
 * Which public list a URL asks for, when the fast path answers it: null for the plain list, the instant for a
 * servable `as_of` given alone; undefined for anything else (another query, or an as_of Express must refuse).
 */
function listedAt(url: string | undefined, services: Services): string | null | undefined {
  if (url === PATH) return null;
  if (url === undefined || !url.startsWith(PATH)) return undefined;
  return asOfAlone(url.slice(PATH.length), services.clock.now());
}
