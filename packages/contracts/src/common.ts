import { z } from 'zod';

export const TIERS = ['FREE', 'PROFESSIONAL', 'ENTERPRISE', 'CUSTOM'] as const;
export const TierSchema = z.enum(TIERS).meta({ id: 'Tier' });
export type Tier = z.infer<typeof TierSchema>;

export const PlannerTypeSchema = z.enum(['btc', 'fiat', 'stablecoin']).meta({ id: 'PlannerType' });
export type PlannerType = z.infer<typeof PlannerTypeSchema>;
export const RiskBandSchema = z
  .enum(['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE'])
  .meta({ id: 'RiskBand', description: 'From lowest risk (LOW) to highest (SEVERE).' });
export type RiskBand = z.infer<typeof RiskBandSchema>;

/** A provider's outlook: where its rating is likely to go over the medium term (an analyst action sets it). */
export const OUTLOOKS = ['POSITIVE', 'STABLE', 'NEGATIVE', 'DEVELOPING'] as const;
export const OutlookSchema = z
  .enum(OUTLOOKS)
  .meta({ id: 'Outlook', description: 'STABLE unless an approved analyst action set another.' });
export type Outlook = z.infer<typeof OutlookSchema>;

/** Which way a rating on watch may move at its review. */
export const WATCH_DIRECTIONS = ['POSITIVE', 'NEGATIVE', 'DEVELOPING'] as const;
export const WatchDirectionSchema = z.enum(WATCH_DIRECTIONS).meta({ id: 'WatchDirection' });
export type WatchDirection = z.infer<typeof WatchDirectionSchema>;

/** A calendar date, YYYY-MM-DD. */
export const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ description: 'A date, YYYY-MM-DD', example: '2026-09-30' });

/** A watch in force: its direction, since when (the approval of its WATCH_PLACED action) and its review date. */
export const WatchSchema = z
  .object({
    direction: WatchDirectionSchema,
    since: z.string().meta({ description: 'When the watch took effect (ISO 8601 UTC).' }),
    review_by: DateSchema.meta({ description: 'The date by which the analysts review it; overdue after that day.' }),
  })
  .nullable()
  .meta({
    id: 'Watch',
    description:
      'The watch in force (a rating under review for a possible change), or null. A publication does not end it; only an approved WATCH_REMOVED does (or a withdrawal).',
  });
export type Watch = z.infer<typeof WatchSchema>;

export const UuidSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID');

export const RiskIndicatorIdSchema = z
  .string()
  .regex(/^ri_[0-9a-f]{24}$/, 'must be a risk indicator id: ri_ followed by 24 lower-case hex digits')
  .meta({
    description: 'Verification identifier of a published Risk Indicator (content-addressed).',
    example: 'ri_999362cb4dd093d94a9ac28e',
  });

export const RatingActionIdSchema = z
  .string()
  .regex(/^ra_[0-9a-f]{24}$/, 'must be a rating action id: ra_ followed by 24 lower-case hex digits')
  .meta({ description: 'Identifier of a rating action.', example: 'ra_3f1c2a9e0b7d4c3a8e6f1b2d' });

export const TimestampSchema = z
  .string()
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-06-30T00:00:00Z' });

/** Pagination: `limit` (1..500, default 100) and the opaque `cursor` from a previous page's `next_cursor`. */
export const PageLimitSchema = z.coerce
  .number({ error: 'must be a whole number from 1 to 500' })
  .int('must be a whole number from 1 to 500')
  .min(1, 'must be at least 1')
  .max(500, 'must be at most 500');

export const PageQuery = {
  limit: PageLimitSchema.default(100).meta({ description: 'Page size, 1 to 500.' }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,512}$/, 'must be a next_cursor value from a previous page')
    .optional()
    .meta({ description: 'Opaque cursor: the `next_cursor` of the previous page.' }),
};

export const NextCursorSchema = z.string().nullable().meta({
  description: 'Cursor of the next page; null on the last page. Also sent as a `Link: <...>; rel="next"` header.',
});

// ---- as of a past instant ----

/** The earliest instant `as_of` may name: the record starts on 2026-04-01 (UTC). */
export const AS_OF_EARLIEST = '2026-04-01T00:00:00.000Z';

const AS_OF_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2})))?$/;

export const AS_OF_NOT_A_TIME =
  'is not a date or timestamp: write a date YYYY-MM-DD (the end of that day, UTC) or an RFC 3339 timestamp such as 2026-06-01T12:00:00Z';
export const AS_OF_TOO_EARLY = 'is before 2026-04-01, when the record starts';

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) =>
  [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;

/**
 * The instant an `as_of` value names, in milliseconds since 1970-01-01 UTC, or null when it is not a real date or
 * RFC 3339 timestamp. A date YYYY-MM-DD is the end of that day UTC (its last millisecond); a timestamp with an
 * offset is that instant; digits past the millisecond are dropped (an instant inside a millisecond belongs to it,
 * as stored times are kept to the millisecond). A leap second (`:60`) is refused: no stored time is in one.
 */
export function asOfInstant(text: string): number | null {
  const m = AS_OF_TEXT.exec(text);
  if (!m) return null;
  const [year, month, day] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  const at = (h: number, min: number, s: number, ms: number) => {
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    d.setUTCHours(h, min, s, ms);
    return d.getTime();
  };
  if (m[4] === undefined) return at(23, 59, 59, 999);
  const [hour, minute, second] = [m[4], m[5], m[6]].map(Number) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offset = 0;
  if (m[8] === undefined) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return at(hour, minute, second, ms) - offset;
}

/**
 * Why an `as_of` value cannot be served (a message for the parameter), or null: not a date or timestamp, before
 * 2026-04-01, or, when `now` is given, after it (a date is the end of its day, so today's date is still to come).
 */
export function asOfProblem(text: string, now?: Date): string | null {
  const instant = asOfInstant(text);
  if (instant === null) return AS_OF_NOT_A_TIME;
  if (instant < Date.parse(AS_OF_EARLIEST)) return AS_OF_TOO_EARLY;
  if (now !== undefined && instant > now.getTime()) {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
    return day
      ? `is in the future: a date means the end of that day (UTC), ${new Date(instant).toISOString()}, which is still to come; give a timestamp, or leave as_of out for the indicators in force now`
      : `is in the future: ${new Date(instant).toISOString()} is after the present (${now.toISOString()})`;
  }
  return null;
}

/** `as_of` as the routes and tools take it: checked here for form and the earliest date; the future is the service's. */
export const AsOfSchema = z
  .string()
  .max(64, AS_OF_NOT_A_TIME)
  .superRefine((value, ctx) => {
    if (value.length > 64) return; // max's issue already says it
    const problem = asOfProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'The indicators in force at that instant, as they were published then: an RFC 3339 timestamp (any offset; ' +
      'kept to the millisecond), or a date YYYY-MM-DD meaning the end of that day UTC. Not before 2026-04-01, not ' +
      'in the future. A publication counts from its `published_at`, a withdrawal from its time on.',
    example: '2026-06-30T12:00:00Z',
  });
