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
