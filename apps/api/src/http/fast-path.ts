import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { endpoints } from '@svc/contracts';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import { servableInstant } from '../services/scores/as-of.js';
import type { Services } from '../services/services.js';
import type { SnapshotBody } from '../services/shared/public-snapshot.js';
import {
  type Admission,
  type Arrival,
  admit,
  admittedHeaders,
  type HandedOver,
  handedOver,
  handOver,
} from './admission.js';
import { chooseCoding, codedEtag } from './compression.js';
import { deprecationHeaderList, deprecationsOf } from './deprecation.js';
import { standardHeaders } from './headers.js';
import { logWhenSent, requestIdOf } from './middleware.js';
import { matchesEtag, PUBLIC_SCORES_CACHE_CONTROL } from './public-scores.js';
import { labelRoute } from './request-metrics.js';

const PATH = endpoints.listPublicScores.path;

/**
 * The server's request listener: `GET /api/public/scores`, exactly that (no query but a servable `as_of` alone,
 * no other method), answered before Express, everything else by the app. It is the busiest route and the cheapest
 * to answer (bytes built once per publication), so Express's own cost per request (its router and request and
 * response objects, about four times the answer's) was most of its time; decision 0014.
 *
 * The request is admitted by the one admission (admission.ts: the limit spent from the client address's bucket),
 * then answered as the Express route answers, header for header: the security and CORS headers recorded from the
 * same middleware, the request id, the limit, the coding, the ETag and 304, the log line. When the answer is not a
 * 200 or 304 (the limit spent, the store away) the request is handed to Express with its admission and that error
 * (decision 0052), which Express answers at once. An `as_of` alone is answered the same way from the list as of
 * that instant (PublicSnapshot.asOf, the Express route's source too); one that cannot be served (not a time, too
 * early, in the future) goes to Express untouched, which refuses it.
 */
export function withPublicScoresFastPath(app: Express, services: Services): RequestListener {
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const deprecation = deprecationsOf(app).get(endpoints.listPublicScores.operationId);
  const announced = deprecation ? deprecationHeaderList(deprecation) : [];
  const fixed = [...standardHeaders().api.flat(), ...announced.flat()];

  const answer = async (req: IncomingMessage, res: ServerResponse, instant: string | null): Promise<void> => {
    // Labelled now: a request handed to Express with its error is counted under the route's template too.
    if (services.metrics) labelRoute(res, PATH);
    let admission: Admission | undefined;
    let body: SnapshotBody;
    try {
      admission = await admit(arrivalOf(req, trust), endpoints.listPublicScores, services);
      ({ body } = instant === null ? await services.snapshot.get() : await services.snapshot.asOf(instant));
    } catch (failure) {
      handToExpress(app, req, res, announced, { ...(admission ? { admission } : {}), failure });
      return;
    }
    const id = requestIdOf(req);
    logWhenSent(services.logger, req, res, id, PATH, () => undefined);
    const headers = [...fixed, 'x-request-id', id, ...admittedHeaders(admission).flat()];
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
      // Nothing above throws once the answer is admitted; should it, Express answers the error (a 500).
      if (res.headersSent) res.destroy();
      else handToExpress(app, req, res, [], { ...handedOver(req), failure: error });
    });
  };
}

/**
 * Hands Express a request a fast path admitted or refused and could not answer, with what it learnt (admission.ts)
 * and the route's deprecation headers (`announced`), which its refusals carry too: the route's own middleware is not
 * reached, as Express answers the error at once.
 */
export function handToExpress(
  app: Express,
  req: IncomingMessage,
  res: ServerResponse,
  announced: readonly (readonly [string, string])[],
  handed: HandedOver,
): void {
  for (const [name, value] of announced) res.setHeader(name, value);
  handOver(req, handed);
  app(req, res);
}

/** What admission reads of a request before Express: its headers and the client's address, by Express's own rule. */
export function arrivalOf(req: IncomingMessage, trust: (address: string, hop: number) => boolean): Arrival {
  return {
    headers: req.headers,
    get ip() {
      return proxyaddr(req, trust);
    },
  };
}

/** Accept headers the fast paths answer as they are; any other goes through Express's content negotiation. */
export function plainlyJson(accept: string | undefined): boolean {
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
