import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { endpoints, UuidSchema } from '@svc/contracts';
import type { Express } from 'express';
import type { Caller } from '../services/context.js';
import { servedIndicator } from '../services/scores/scores.js';
import { contextFor, type Services } from '../services/services.js';
import { admit, admittedHeaders, type HandedOver, handedOver } from './admission.js';
import { codedAnswer } from './compression.js';
import { deprecationHeaderList, deprecationsOf } from './deprecation.js';
import { arrivalOf, asOfAlone, handToExpress, plainlyJson } from './fast-path.js';
import { standardHeaders } from './headers.js';
import { logWhenSent, requestIdOf } from './middleware.js';
import { labelRoute } from './request-metrics.js';

const e = endpoints.getScore;
const PREFIX = '/api/v1/scores/';

/**
 * `GET /api/v1/scores/{providerId}`, exactly that (no query string) or with a servable `as_of` alone, answered
 * before Express, as decision 0014 answers the public list; every other request (another query such as `fields`,
 * another Accept, another method) goes to `next` untouched. The request is admitted by the one admission
 * (admission.ts: the key, its tier, the hourly limit spent from the key's bucket), then the indicator in force (now,
 * or then) served from the bytes kept for the publication version (decision 0036 and its addendum) by the route's
 * own verb. The answer is the Express route's, header for header. When the answer is not a 200 (a refusal, no such
 * indicator, the store away) the request is handed to Express with its admission and that error (decision 0052):
 * Express answers the error at once, neither admitting the request again nor reading the indicator again, so a 404
 * or a 403 costs one key lookup.
 */
export function withScoreDetailFastPath(app: Express, services: Services, next: RequestListener): RequestListener {
  const deprecation = deprecationsOf(app).get(e.operationId);
  const announced = deprecation ? deprecationHeaderList(deprecation) : [];
  const fixed = [...standardHeaders().api.flat(), ...announced.flat()];
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;

  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    providerId: string,
    instant: string | null,
  ) => {
    // Labelled now: a request handed to Express with its error is counted under the route's template too.
    if (services.metrics) labelRoute(res, e.path);
    const handed: HandedOver = {};
    let bytes: Buffer;
    try {
      handed.admission = await admit(arrivalOf(req, trust), e, services, {
        seen: (keyId) => {
          handed.keyId = keyId;
        },
      });
      const caller = handed.admission.caller as Caller;
      const row = await servedIndicator(contextFor(services, { kind: 'key', caller }), {
        providerId,
        ...(instant === null ? {} : { asOf: instant }),
      });
      bytes = row.bytes;
    } catch (failure) {
      handToExpress(app, req, res, announced, { ...handed, failure });
      return;
    }
    const admission = handed.admission;
    // Compressed as the layer compresses the Express route's answer (compression.ts).
    const coded = codedAnswer(req, bytes);
    const id = requestIdOf(req);
    logWhenSent(services.logger, req, res, id, path, () => handed.keyId);
    res.writeHead(200, [
      'x-request-id',
      id,
      ...fixed,
      ...admittedHeaders(admission).flat(),
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(coded.bytes.length),
      ...coded.headers,
    ]);
    res.end(coded.bytes);
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
      // Nothing above throws once the answer is admitted; should it, Express answers the error (a 500).
      if (res.headersSent) res.destroy();
      else handToExpress(app, req, res, [], { ...handedOver(req), failure: error });
    });
  };
}
