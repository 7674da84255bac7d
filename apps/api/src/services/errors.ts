import type { FieldProblem, ServiceErrorCode } from '@svc/contracts';

/** One problem of a refused request; `source` names the document it is in when there are several (a file name). */
export interface ServiceProblem extends FieldProblem {
  source?: string;
}

/**
 * Every refusal of every service verb: the contract's code, a sentence, every problem found, and the figures the
 * refusal carries (a limit, a count) as fields. Nothing was written. The HTTP layer answers it as problem+json with
 * the code's status; the CLI maps the code to its exit status; an agent tool reports it as a tool error.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly problems: readonly ServiceProblem[] = [],
    readonly fields: Readonly<Record<string, number>> = {},
  ) {
    super(message);
  }
}
