// Parsed by character codes, not regular expressions: dates are read several times per input item.
const DASH = 0x2d;

/** Days since 1970-01-01 of a valid calendar date YYYY-MM-DD, or null. */
export function epochDay(text: string): number | null {
  if (text.length !== 10) return null;
  return dayAt(text);
}

/** The date YYYY-MM-DD at the start of a text, as days since 1970-01-01, or null. */
function dayAt(text: string): number | null {
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (year < 0 || month < 0 || day < 0) return null;
  return dayOf(year, month, day);
}

/** The number written by `count` ASCII digits at `start`, or -1 if any of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (!(digit >= 0 && digit <= 9)) return -1;
    n = n * 10 + digit;
  }
  return n;
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

/** The calendar date YYYY-MM-DD of a count of days since 1970-01-01 (days-to-civil arithmetic, no Date objects). */
export function dateOfEpochDay(epoch: number): string {
  const z = epoch + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function isCalendarDate(text: string): boolean {
  return epochDay(text) !== null;
}

/** An ISO 8601 UTC timestamp with a real date and time, such as 2026-06-02T10:00:00Z: YYYY-MM-DDTHH:MM:SS(.1 to 9 digits)?Z. */
export function isUtcTimestamp(text: string): boolean {
  if (text.length < 20 || text.charCodeAt(text.length - 1) !== 0x5a) return false;
  if (text.charCodeAt(10) !== 0x54 || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return false;
  if (!hasFraction(text)) return false;
  const [hh, mm, ss] = [digitsAt(text, 11, 2), digitsAt(text, 14, 2), digitsAt(text, 17, 2)];
  return dayAt(text) !== null && hh >= 0 && hh < 24 && mm >= 0 && mm < 60 && ss >= 0 && ss < 60;
}

/** Between the seconds and the final Z: nothing, or a point and 1 to 9 digits. */
function hasFraction(text: string): boolean {
  const digits = text.length - 21;
  if (digits === -1) return true;
  return digits >= 1 && digits <= 9 && text.charCodeAt(19) === 0x2e && digitsAt(text, 20, digits) >= 0;
}

/** Whole days from `from` to `to` (both valid calendar dates). */
export function daysBetween(from: string, to: string): number {
  return (epochDay(to) as number) - (epochDay(from) as number);
}

/**
 * Milliseconds since 1970-01-01T00:00:00Z of a calendar date (its first instant) or of a UTC timestamp
 * (fraction beyond milliseconds dropped), or null when the text is neither.
 */
export function epochMillis(text: string): number | null {
  if (isCalendarDate(text)) return (epochDay(text) as number) * 86_400_000;
  if (!isUtcTimestamp(text)) return null;
  const day = dayAt(text) as number;
  const [hh, mm, ss] = [digitsAt(text, 11, 2), digitsAt(text, 14, 2), digitsAt(text, 17, 2)];
  const fraction = text.length > 21 ? Number(`0.${text.slice(20, -1)}`) : 0;
  return day * 86_400_000 + ((hh * 60 + mm) * 60 + ss) * 1000 + Math.floor(fraction * 1000);
}
