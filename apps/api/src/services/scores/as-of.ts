import { asOfInstant, asOfProblem } from '@svc/contracts';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';

/**
 * The instant an `as_of` value names, as published_at is stored (ISO 8601 UTC with milliseconds, so the two compare
 * as text): a real date or timestamp, not before 2026-04-01 and not after the present by the context's clock.
 * Anything else is an invalid_request naming `path` (the query parameter, or a tool's argument).
 */
export function pastInstant(ctx: ServiceContext, text: string, path = 'query.as_of'): string {
  const instant = servableInstant(text, ctx.clock.now());
  if (instant !== null) return instant;
  const message = asOfProblem(text, ctx.clock.now()) ?? 'is not a date or timestamp';
  const part = path.startsWith('query.') ? 'query' : 'arguments';
  throw new ServiceError('invalid_request', `invalid ${part}: ${path}: ${message}`, [{ path, message }]);
}

/** The instant an `as_of` value names, as stored, when it can be served at `now`; null when it cannot (see above). */
export function servableInstant(text: string, now: Date): string | null {
  const instant = asOfInstant(text);
  return instant !== null && asOfProblem(text, now) === null ? new Date(instant).toISOString() : null;
}
