import { z } from 'zod';
import { AsOfSchema, asOfInstant, RiskBandSchema } from './common.js';

/**
 * The track record (design section 6): how the published ratings moved between two instants, and how many were in
 * each band at one, computed from the history as it stood then (the same rule as `as_of`).
 */

/** The columns of a transition matrix: the five bands, then the providers whose rating was withdrawn meanwhile. */
export const TRANSITION_COLUMNS = [...RiskBandSchema.options, 'WITHDRAWN'] as const;
export type TransitionColumn = (typeof TRANSITION_COLUMNS)[number];

const instant = (what: string) =>
  AsOfSchema.meta({
    description: `${what}: an RFC 3339 timestamp (any offset; kept to the millisecond), or a date YYYY-MM-DD meaning the end of that day UTC, except today's date, which means the present. Not before 2026-04-01, not in the future.`,
  });

const FormatSchema = z
  .enum(['json', 'csv'])
  .default('json')
  .meta({ description: 'JSON (default), or CSV (`text/csv`, one row per band).' });

export const TransitionsQuerySchema = z
  .strictObject({
    from: instant('The start: the providers whose rating was in force then, by their band then'),
    to: instant('The end (default: the present): each of those providers by its band then, or WITHDRAWN').optional(),
    format: FormatSchema,
  })
  .superRefine((query, ctx) => {
    if (query.to === undefined) return;
    const [from, to] = [asOfInstant(query.from), asOfInstant(query.to)];
    if (from !== null && to !== null && from > to) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: `is after to: ${new Date(from).toISOString()} is later than ${new Date(to).toISOString()}`,
      });
    }
  });

export const BandsQuerySchema = z.strictObject({
  as_of: instant('The instant counted (default: the present)').optional(),
  format: FormatSchema,
});

const ShareSchema = z.number().meta({
  description:
    'count / total, rounded half up to 4 decimal places (0 when the total is 0); shares may not sum to 1 exactly.',
});

const TransitionCountsSchema = z
  .object(
    Object.fromEntries(TRANSITION_COLUMNS.map((c) => [c, z.number().int()])) as Record<TransitionColumn, z.ZodNumber>,
  )
  .meta({ id: 'TransitionCounts', description: 'Providers by column: their band at `to`, or WITHDRAWN.' });

const TransitionSharesSchema = z
  .object(
    Object.fromEntries(TRANSITION_COLUMNS.map((c) => [c, ShareSchema])) as Record<TransitionColumn, typeof ShareSchema>,
  )
  .meta({ id: 'TransitionShares', description: "Each count as a share of the row's total." });

export const TransitionsResponseSchema = z
  .object({
    from: z.string().meta({ description: 'The start instant, as compared (ISO 8601 UTC, milliseconds).' }),
    to: z.string().meta({ description: 'The end instant, as compared.' }),
    columns: z.array(z.enum(TRANSITION_COLUMNS)),
    rows: z.array(
      z.object({
        band: RiskBandSchema.meta({ description: 'The band at `from`.' }),
        total: z.number().int().meta({ description: 'Providers in this band at `from`.' }),
        counts: TransitionCountsSchema,
        shares: TransitionSharesSchema,
      }),
    ),
    summary: z.object({
      rated_at_from: z.number().int().meta({ description: 'Providers with a rating in force at `from`: the matrix.' }),
      upgraded: z.number().int().meta({ description: 'In a lower-risk band at `to` than at `from`.' }),
      downgraded: z.number().int().meta({ description: 'In a higher-risk band at `to`.' }),
      unchanged: z.number().int().meta({ description: 'In the same band at both (the diagonal).' }),
      withdrawn: z.number().int().meta({ description: 'With no rating in force at `to`.' }),
      rated_since: z.number().int().meta({
        description: 'Providers rated at `to` that had no rating in force at `from` (not in the matrix).',
      }),
    }),
  })
  .meta({ id: 'Transitions', description: 'The band transition matrix between two instants.' });

export const BandsResponseSchema = z
  .object({
    as_of: z.string().meta({ description: 'The instant counted, as compared (ISO 8601 UTC, milliseconds).' }),
    total: z.number().int().meta({ description: 'Providers with a rating in force then.' }),
    bands: z.array(z.object({ band: RiskBandSchema, count: z.number().int(), share: ShareSchema })),
  })
  .meta({ id: 'BandCounts', description: 'Providers per band at one instant.' });

export type TransitionsQuery = z.infer<typeof TransitionsQuerySchema>;
export type TransitionsResponse = z.infer<typeof TransitionsResponseSchema>;
export type BandsQuery = z.infer<typeof BandsQuerySchema>;
export type BandsResponse = z.infer<typeof BandsResponseSchema>;
