import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { maskKeys } from '../services/access.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A request id on every response (the caller's, when it is safe to echo), and one log line per request. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // Never the query string, headers or body: they may carry keys or personal data.
      logger.info(
        {
          req_id: id,
          method: req.method,
          path: maskKeys(req.path),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          key_id: res.locals.keyId,
        },
        'request',
      );
    });
    next();
  };
}
