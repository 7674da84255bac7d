import { InvalidArgumentError } from 'commander';

/** A --date option, checked before any work starts: a real calendar date written YYYY-MM-DD. */
export function calendarDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = match !== null && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!real) throw new InvalidArgumentError('must be a calendar date YYYY-MM-DD, e.g. 2026-06-30');
  return value;
}
