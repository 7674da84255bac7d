const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/** Days since 1970-01-01 of a valid calendar date YYYY-MM-DD, or null. */
export function epochDay(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  return dayOf(Number(m[1]), Number(m[2]), Number(m[3]));
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Days since 1970-01-01 of a proleptic Gregorian date, or null if there is no such date (civil-from-days arithmetic, no Date objects). */
function dayOf(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const length = month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number);
  if (day > length) return null;
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function isCalendarDate(text: string): boolean {
  return epochDay(text) !== null;
}

/** An ISO 8601 UTC timestamp with a real date and time, such as 2026-06-02T10:00:00Z. */
export function isUtcTimestamp(text: string): boolean {
  const m = UTC_TIMESTAMP.exec(text);
  if (!m) return false;
  const [hh, mm, ss] = [Number(m[4]), Number(m[5]), Number(m[6])];
  return dayOf(Number(m[1]), Number(m[2]), Number(m[3])) !== null && hh < 24 && mm < 60 && ss < 60;
}

/** Whole days from `from` to `to` (both valid calendar dates). */
export function daysBetween(from: string, to: string): number {
  return (epochDay(to) as number) - (epochDay(from) as number);
}
