import type { ErrorCode, Problem } from '@svc/contracts';

/** Every error the client throws for a call that failed, so one `instanceof SvcError` catches them all. */
export class SvcError extends Error {
  override readonly name: string = 'SvcError';
}

/**
 * The code of an answer that was not the service's own problem details (a proxy's HTML 502, a truncated body)
 * or a success whose body could not be read as its endpoint promises.
 */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

export type SvcErrorCode = ErrorCode | typeof UNEXPECTED_RESPONSE;

export interface SvcApiErrorFields {
  status: number;
  code: SvcErrorCode;
  problem: Problem | null;
  requestId: string | null;
  retryAfterSeconds: number | null;
  method: string;
  url: string;
}

/** The service answered, and not with success: an HTTP status and, nearly always, an RFC 9457 problem body. */
export class SvcApiError extends SvcError {
  override readonly name = 'SvcApiError';
  /** The HTTP status: 400, 401, 403, 404, 409, 413, 415, 429, 500, 503, … */
  readonly status: number;
  /** The problem's stable code (`not_found`, `rate_limited`, …), or `unexpected_response` without a problem body. */
  readonly code: SvcErrorCode;
  /** The parsed `application/problem+json` body; null when the answer carried none. */
  readonly problem: Problem | null;
  /** The request id (problem `request_id`, else the `x-request-id` header): quote it to support. */
  readonly requestId: string | null;
  /** Seconds the service asked to wait (`Retry-After`, else the problem's `retry_after_seconds`); null when unsaid. */
  readonly retryAfterSeconds: number | null;
  readonly method: string;
  readonly url: string;

  constructor(fields: SvcApiErrorFields) {
    super(`${fields.method} ${fields.url} answered ${fields.status} ${fields.code}: ${detailOf(fields)}`);
    this.status = fields.status;
    this.code = fields.code;
    this.problem = fields.problem;
    this.requestId = fields.requestId;
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.method = fields.method;
    this.url = fields.url;
  }
}

function detailOf(fields: SvcApiErrorFields): string {
  return (
    fields.problem?.detail ?? (fields.status >= 200 && fields.status < 300 ? 'unreadable body' : 'no problem body')
  );
}

export type NetworkFailure = 'timeout' | 'network';

/**
 * No answer came: the connection failed (`network`) or the answer took longer than `timeoutMs` (`timeout`).
 * A call cancelled through the caller's own `signal` is not one of these: it rejects with the signal's reason.
 */
export class SvcNetworkError extends SvcError {
  override readonly name = 'SvcNetworkError';
  readonly reason: NetworkFailure;
  readonly method: string;
  readonly url: string;

  constructor(reason: NetworkFailure, method: string, url: string, options: { cause?: unknown; timeoutMs?: number }) {
    const what =
      reason === 'timeout'
        ? `no answer within ${options.timeoutMs} ms`
        : `the request failed: ${causeOf(options.cause)}`;
    super(`${method} ${url}: ${what}`, { cause: options.cause });
    this.reason = reason;
    this.method = method;
    this.url = url;
  }
}

function causeOf(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  return cause instanceof Error ? cause.message : String(cause);
}
