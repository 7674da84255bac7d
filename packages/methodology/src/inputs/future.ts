import { epochMillis } from '../dates.js';
import type { Problem } from './document.js';

/** How far ahead of the reader's clock a date may be and still count as the present: clocks disagree a little. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Whether a calendar date (its first instant) or a UTC timestamp is later than `now` plus the allowed skew. */
export function isAfterPresent(text: string, now: Date, skewMs: number = CLOCK_SKEW_MS): boolean {
  const at = epochMillis(text);
  return at !== null && at > now.getTime() + skewMs;
}

/**
 * Every date of an approved-inputs document that lies after the present: the evaluation date, and each
 * input's `as_of` and `approved_at`, each named by its path. The engine scores such a document (analysts
 * explore what-ifs); the record refuses it, since evidence cannot come from the future. Fields that are not
 * dates are left to the document's own validation.
 */
export function futureDatedProblems(document: unknown, now: Date, skewMs: number = CLOCK_SKEW_MS): Problem[] {
  const problems: Problem[] = [];
  if (!isRecord(document)) return problems;
  const present = now.toISOString();
  const check = (path: string, value: unknown) => {
    if (typeof value === 'string' && isAfterPresent(value, now, skewMs)) {
      problems.push({ path, message: `${value} is after the present (${present})` });
    }
  };
  check('evaluation_date', document.evaluation_date);
  if (isRecord(document.inputs)) {
    for (const [key, item] of Object.entries(document.inputs)) {
      if (!isRecord(item)) continue;
      check(`inputs.${key}.as_of`, item.as_of);
      check(`inputs.${key}.approved_at`, item.approved_at);
    }
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
