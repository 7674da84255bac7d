import { asOfInstant, asOfProblem } from '@svc/contracts';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';

/**
 * The instant an `as_of` value names, as published_at is stored (ISO 8601 UTC with milliseconds, so the two compare
 * as text): a real date or timestamp, not before 2026-04-01 and not after the present by the context's clock.
 * Anything else is an invalid_request naming `path` (the query parameter, or a tool's argument).
 */
export function pastInstant(ctx: ServiceContext, text: string, path = 'query.as_of'): string {
  const problem = asOfProblem(text, ctx.clock.now());
  const instant = asOfInstant(text);
  if (problem !== null || instant === null) {
    const message = problem ?? 'is not a date or timestamp';
    const part = path.startsWith('query.') ? 'query' : 'arguments';
    throw new ServiceError('invalid_request', `invalid ${part}: ${path}: ${message}`, [{ path, message }]);
  }
  return new Date(instant).toISOString();
}
