import type { ErrorCode, FieldProblem } from '@svc/contracts';

/**
 * A request a service refuses, with the contract's error code and every problem found: the HTTP
 * layer answers it as problem+json with the code's status; other callers read the same fields.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
  }
}
