import { apiErrorCode, ERROR_CODES } from '@svc/contracts';
import type { Request, Response } from 'express';
import { ServiceError } from '../services/errors.js';
import type { Services } from '../services/services.js';
import { isStoreUnavailable } from '../store/store.js';
import { ApiError, sendProblem } from './problem.js';

const RETRY_AFTER_UNAVAILABLE = '5';

/**
 * Answers an error as problem+json: an ApiError as it is, a ServiceError with its code's status and its problems,
 * the store unavailable as a 503 to retry, Express's own 4xx by their status, anything else a 500 naming the
 * request id (and logged with its stack, which the answer never carries).
 */
export function problemFor(services: Services) {
  return (error: unknown, req: Request, res: Response): void => {
    if (error instanceof ApiError) {
      sendProblem(req, res, error);
      return;
    }
    if (error instanceof ServiceError) {
      const errors = error.problems.map(({ path, message }) => ({ path, message }));
      sendProblem(req, res, new ApiError(apiErrorCode(error.code), error.message, errors.length > 0 ? { errors } : {}));
      return;
    }
    if (isStoreUnavailable(error)) {
      services.metrics?.storeError('request');
      services.logger.warn({ req_id: res.locals.requestId, err: (error as Error).message }, 'store unavailable');
      sendProblem(
        req,
        res,
        new ApiError(
          'unavailable',
          'the store is unavailable; try again shortly',
          { retry_after_seconds: 5 },
          { 'Retry-After': RETRY_AFTER_UNAVAILABLE },
        ),
      );
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // Errors Express raises before a route runs, such as a malformed percent-encoding in the path.
      const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
      sendProblem(req, res, new ApiError(code, ERROR_CODES[code].about));
      return;
    }
    services.logger.error(
      { req_id: res.locals.requestId, err: error instanceof Error ? error.stack : String(error) },
      'unexpected error',
    );
    sendProblem(
      req,
      res,
      new ApiError('internal_error', `an unexpected error occurred; quote request id ${res.locals.requestId}`),
    );
  };
}
