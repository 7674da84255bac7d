import { z } from 'zod';

/** Every error code the API answers with: its status, title and what it means. One list, one map. */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    about: 'A path, query or body value is not valid; `errors` lists every problem.',
  },
  missing_api_key: {
    status: 401,
    title: 'Missing API key',
    about: 'The endpoint needs an `x-api-key` header and none was sent.',
  },
  invalid_api_key: {
    status: 401,
    title: 'Invalid API key',
    about: 'The key is unknown, revoked or expired (none of them told apart).',
  },
  insufficient_tier: {
    status: 403,
    title: 'Insufficient tier',
    about: "The key's tier does not include this endpoint; `required_tier` names the lowest that does.",
  },
  mcp_not_enabled: {
    status: 403,
    title: 'Agent tools not enabled',
    about: 'The agent tool interface is a preview, enabled per workspace.',
  },
  not_found: { status: 404, title: 'Not found', about: 'No such route, provider or identifier.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    about: 'The route exists; the `Allow` header lists its methods.',
  },
  not_acceptable: {
    status: 406,
    title: 'Not acceptable',
    about: 'The `Accept` header excludes every media type the endpoint serves.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    about:
      'The request body did not arrive in full within 10 seconds (or the headers within 10 seconds); send it again.',
  },
  webhook_disabled: {
    status: 409,
    title: 'Webhook endpoint disabled',
    about: 'The receiver answered 410 Gone, so the endpoint was disabled; register the URL again to resume.',
  },
  too_many_webhooks: {
    status: 409,
    title: 'Too many webhook endpoints',
    about: 'A workspace has at most 20 webhook endpoints; remove one first.',
  },
  payload_too_large: { status: 413, title: 'Payload too large', about: 'Request bodies are limited to 64 KiB.' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    about: 'Request bodies must be `application/json`.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    about: 'The request line and headers are limited to 16 KiB.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    about: 'The hourly (per key) or per-minute (per client IP) limit is spent; `Retry-After` says when to try again.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    about: 'An unexpected failure; the `request_id` lets support find it.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    about: 'The store is unreachable or overloaded; `Retry-After` says when to try again.',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/**
 * The codes of the operators' verbs (the command line), beside the API's: no HTTP route answers them. The CLI's
 * exit-code rule gives each its status.
 */
export const OPERATION_ERROR_CODES = {
  invalid_value: 'A value outside its domain (a date, a name with control characters, an unknown status).',
  invalid_inputs: 'An approved-inputs document that is not valid; every problem is listed.',
  refused: 'The state of the records does not allow it (already withdrawn, already resolved, self-approval).',
} as const;

export type OperationErrorCode = keyof typeof OPERATION_ERROR_CODES;

/** Every code a service verb refuses with: the API's and the operators'. */
export type ServiceErrorCode = ErrorCode | OperationErrorCode;

export const FieldProblemSchema = z
  .object({
    path: z.string().meta({ description: 'Where the problem is, e.g. `query.limit` or `body.website`.' }),
    message: z.string(),
  })
  .meta({ id: 'FieldProblem' });

/** RFC 9457 problem details, with a stable code and the request id. */
export const ProblemSchema = z
  .object({
    type: z.string().meta({ description: 'A URI that identifies the problem type and documents it.' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().meta({ description: 'The request path.' }),
    code: z.enum(ERROR_CODE_LIST),
    request_id: z.string(),
    errors: z.array(FieldProblemSchema).optional(),
    required_tier: z.string().optional(),
    retry_after_seconds: z.number().int().optional(),
    checks: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'GET /readyz: the outcome of each readiness check, e.g. `{"store": "unavailable"}`.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (`application/problem+json`).' });

export type Problem = z.infer<typeof ProblemSchema>;
export type FieldProblem = z.infer<typeof FieldProblemSchema>;

/** The API's code for a verb's refusal: an operator's code never reaches HTTP today; if it did, it is a 400. */
export function apiErrorCode(code: ServiceErrorCode): ErrorCode {
  return Object.hasOwn(ERROR_CODES, code) ? (code as ErrorCode) : 'invalid_request';
}
