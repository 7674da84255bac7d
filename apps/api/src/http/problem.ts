import { ERROR_CODES, type ErrorCode, type FieldProblem, type Problem } from '@svc/contracts';
import type { Request, Response } from 'express';
import { maskKeys } from '../services/access/access.js';

/** An answer other than success, with a stable code; extra fields travel in the problem body. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: {
      errors?: FieldProblem[];
      required_tier?: string;
      retry_after_seconds?: number;
      checks?: Record<string, string>;
    } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function problemOf(
  req: Request,
  res: Response,
  code: ErrorCode,
  detail: string,
  extra: ApiError['extra'] = {},
): Problem {
  const { status, title } = ERROR_CODES[code];
  return {
    type: `${siteUrlOf(req)}/docs/errors#${code}`,
    title,
    status,
    // Both may echo the request path, where a key is sometimes pasted by mistake.
    detail: maskKeys(detail),
    instance: maskKeys(req.path),
    code,
    request_id: String(res.locals.requestId ?? ''),
    ...extra,
  };
}

/** Sends RFC 9457 problem details with the code's status. */
export function sendProblem(req: Request, res: Response, error: ApiError): void {
  const problem = problemOf(req, res, error.code, error.detail, error.extra);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(problem.status);
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(problem));
}

/** The public address of the site: SITE_URL when set, else the request's own origin. */
export function siteUrlOf(req: Request): string {
  const configured = req.app.get('siteUrl') as string | null;
  if (configured) return configured;
  // req.protocol reads the socket, which is gone when a client hung up mid-request.
  const protocol = req.socket ? req.protocol : 'http';
  return `${protocol}://${req.get('host') ?? 'localhost'}`;
}
