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
