const DAY_MS = 86_400_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/** Days since 1970-01-01 of a valid calendar date YYYY-MM-DD, or null. */
export function epochDay(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  return dayOf(Number(m[1]), Number(m[2]), Number(m[3]));
}

function dayOf(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const t = Date.UTC(year, month - 1, day);
  const d = new Date(t);
  // Date.UTC maps years 0..99 to 1900..1999; set the full year explicitly.
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return Math.round(d.getTime() / DAY_MS);
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
