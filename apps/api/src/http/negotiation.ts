import type { Endpoint } from '@svc/contracts';
import type { Request } from 'express';
import { ApiError } from './problem.js';

/** The media types an endpoint serves on success: its content type and any a query parameter may pick instead. */
export function mediaTypesOf(e: Endpoint): string[] {
  return e.success.contentType ? [e.success.contentType, ...(e.success.otherContentTypes ?? [])] : [];
}

/**
 * RFC 9110 12.5.1: an Accept header that excludes every media type the endpoint serves is answered 406 rather than
 * with a body the client said it cannot take. No Accept header accepts anything.
 */
export function refuseUnacceptable(req: Request, served: readonly string[]): void {
  const accept = req.headers.accept;
  if (served.length === 0 || accept === undefined || req.accepts([...served])) return;
  throw new ApiError(
    'not_acceptable',
    `this endpoint serves ${served.join(' or ')}; the Accept header "${accept.slice(0, 200)}" excludes ${served.length > 1 ? 'them' : 'it'}`,
  );
}
