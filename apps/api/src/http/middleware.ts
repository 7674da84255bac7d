import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { maskKeys } from '../services/access/access.js';
import { handedOver, setAdmittedHeaders } from './admission.js';
import { compressAnswer } from './compression.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's request id when it is safe to echo, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * One log line when the answer is sent. Never the query string, headers or body: they may carry keys or personal
 * data. `keyId` is read when the line is written (the key is known only after authentication).
 */
export function logWhenSent(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  path: string,
  keyId: () => string | undefined,
): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    logger.info(
      {
        req_id: id,
        method: req.method,
        path: maskKeys(path),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        key_id: keyId(),
      },
      'request',
    );
  });
}

/**
 * A request id on every response (the caller's, when it is safe to echo), one log line per request, and the
 * answer's compression (compression.ts); then `then` (the standard headers), called from here rather than
 * mounted after it.
 */
export function requestContext(logger: Logger, then: RequestHandler) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = requestIdOf(req);
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    logWhenSent(logger, req, res, id, req.path, () => res.locals.keyId);
    compressAnswer(req, res);
    const handed = handedOver(req);
    if (handed?.keyId !== undefined) res.locals.keyId = handed.keyId;
    if (handed?.failure === undefined) {
      then(req, res, next);
      return;
    }
    // A path before Express admitted or refused the request, or failed under it: its error is answered at once,
    // with the limit the request spent, rather than routing it to be admitted and read again.
    if (handed.admission) setAdmittedHeaders(res, handed.admission);
    then(req, res, () => next(handed.failure));
  };
}
