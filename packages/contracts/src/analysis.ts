import { EVIDENCE_REASONS } from '@svc/methodology';
import { z } from 'zod';
import {
  OutlookSchema,
  PlannerTypeSchema,
  RiskBandSchema,
  RiskIndicatorIdSchema,
  TimestampSchema,
  UuidSchema,
  WatchSchema,
} from './common.js';
import { RiskIndicatorSchema } from './scores.js';

// ---- search ----

export const ProviderSearchQuerySchema = z.strictObject({
  q: z
    .string()
    .trim()
    .min(1, 'must be 1 to 100 characters')
    .max(100, 'must be 1 to 100 characters')
    // Accents alone fold to nothing, which every name would contain.
    .refine((v) => v.normalize('NFKD').replace(/\p{M}/gu, '').trim() !== '', 'must hold more than accents')
    .meta({ description: 'Part of a provider name; case and accents are ignored.', example: 'sats' }),
  planner_type: PlannerTypeSchema.optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 50' })
    .int('must be a whole number from 1 to 50')
    .min(1, 'must be at least 1')
    .max(50, 'must be at most 50')
    .default(20),
});

export const MATCH_KINDS = ['exact', 'prefix', 'word_prefix', 'substring'] as const;

export const ProviderMatchSchema = z
  .object({
    id: UuidSchema,
    name: z.string(),
    planner_type: PlannerTypeSchema,
    provider_subtype: z.string(),
    final_score: z.number(),
    risk_band: RiskBandSchema,
    scored_at: TimestampSchema,
    outlook: OutlookSchema,
    watch: WatchSchema,
    match: z.enum(MATCH_KINDS).meta({
      description: 'How the name matched, best first: the whole name, its start, the start of a word, anywhere.',
    }),
  })
  .meta({ id: 'ProviderMatch' });

export const ProviderSearchResponseSchema = z
  .object({ query: z.string(), data: z.array(ProviderMatchSchema) })
  .meta({ id: 'ProviderSearchResponse' });

// ---- compare ----

const idList = z
  .string()
  .transform((text) => text.split(',').map((part) => part.trim().toLowerCase()))
  .pipe(
    z
      .array(UuidSchema)
      .min(2, 'must name 2 to 10 provider ids, comma-separated')
      .max(10, 'must name 2 to 10 provider ids, comma-separated')
      .refine((ids) => new Set(ids).size === ids.length, 'must not name a provider twice'),
  );

export const CompareQuerySchema = z.strictObject({
  ids: idList.meta({ description: '2 to 10 provider ids, comma-separated.', example: 'id1,id2' }),
});

export const ComparisonSchema = z
  .object({
    providers: z.array(
      z.object({ provider_id: UuidSchema, name: z.string(), final_score: z.number(), risk_band: RiskBandSchema }),
    ),
    final_score: z.object({
      highest: UuidSchema,
      lowest: UuidSchema,
      spread: z.number().meta({ description: 'Highest less lowest final score.' }),
    }),
    modules: z.array(
      z.object({
        module_id: z.string(),
        label: z.string(),
        scores: z.array(z.number()).meta({ description: 'One per provider, in the order of `providers`.' }),
        spread: z.number(),
      }),
    ),
    criteria: z.array(
      z.object({
        criterion_id: z.string(),
        criterion_label: z.string(),
        module_id: z.string(),
        weight: z.number().int(),
        points: z.array(z.number()).meta({ description: 'One per provider, in the order of `providers`.' }),
        contributions: z.array(z.number()),
        spread: z.number().meta({ description: 'Highest less lowest points.' }),
        best: z.array(UuidSchema).meta({ description: 'The providers with the most points on this criterion.' }),
      }),
    ),
    indicators: z.array(RiskIndicatorSchema),
  })
  .meta({ id: 'Comparison' });

// ---- portfolio ----

export const HoldingSchema = z.strictObject({
  provider_id: UuidSchema,
  amount: z
    .number({ error: 'must be a number' })
    .positive('must be more than 0')
    .max(1e15, 'must be at most 1e15')
    .meta({ description: 'Exposure in any one currency, the same for every holding.' }),
});

export const PortfolioBodySchema = z
  .strictObject({
    holdings: z
      .array(HoldingSchema)
      .min(1, 'must list at least one holding')
      .max(500, 'must list at most 500 holdings')
      .refine(
        (holdings) => new Set(holdings.map((h) => h.provider_id.toLowerCase())).size === holdings.length,
        'must not list a provider twice (add the amounts up first)',
      ),
  })
  .meta({ id: 'PortfolioRequest' });

export const CONCENTRATION_LEVELS = ['low', 'moderate', 'high'] as const;

export const PortfolioScoreSchema = z
  .object({
    framework_version: z.string(),
    portfolio_score: z.number().meta({ description: 'Amount-weighted final score, 2 decimals.' }),
    risk_band: RiskBandSchema.meta({ description: "The framework's band of the portfolio score." }),
    total_amount: z.number(),
    holdings: z.array(
      z.object({
        provider_id: UuidSchema,
        name: z.string(),
        amount: z.number(),
        weight: z.number().meta({ description: 'Share of the total amount, 4 decimals.' }),
        final_score: z.number(),
        risk_band: RiskBandSchema,
        contribution: z.number().meta({ description: 'weight × final score, 4 decimals.' }),
      }),
    ),
    weakest: z
      .array(
        z.object({
          provider_id: UuidSchema,
          name: z.string(),
          final_score: z.number(),
          risk_band: RiskBandSchema,
          weight: z.number(),
        }),
      )
      .meta({ description: 'The three lowest-scored holdings (ties: the larger amount first).' }),
    concentration: z.object({
      herfindahl_index: z.number().meta({ description: 'Sum of squared weights, 0 to 1.' }),
      effective_holdings: z.number().meta({ description: '1 / Herfindahl index.' }),
      largest_weight: z.number(),
      level: z.enum(CONCENTRATION_LEVELS).meta({ description: 'low below 0.15, high above 0.25.' }),
    }),
    exposure_by_band: z.array(
      z.object({ risk_band: RiskBandSchema, amount: z.number(), weight: z.number(), holdings: z.number().int() }),
    ),
    limitations_disclosure: z.string(),
  })
  .meta({ id: 'PortfolioScore' });

// ---- what-if ----

const OverrideValue = z.union([z.string(), z.number(), z.boolean()]);

export const WhatIfBodySchema = z
  .strictObject({
    inputs: z
      .record(
        z.string().min(1).max(100),
        z.union([
          OverrideValue,
          z.strictObject({
            value: OverrideValue,
            as_of: z.string().optional().meta({ description: 'A new evidence date, YYYY-MM-DD.' }),
          }),
        ]),
      )
      .refine((inputs) => Object.keys(inputs).length > 0, 'must override at least one input')
      .meta({
        description:
          'Approved-input keys with their hypothetical values (or `{value, as_of}`); the other inputs keep their approved values.',
        example: { collateral_coverage_ratio: 1.5 },
      }),
  })
  .meta({ id: 'WhatIfRequest' });

export const HypotheticalIndicatorSchema = RiskIndicatorSchema.omit({
  risk_indicator_id: true,
  path_to_next_band: true,
  score_verified_at: true,
  published_at: true,
  signature: true,
  outlook: true,
  watch: true,
  limitations_disclosure: true,
}).meta({ id: 'HypotheticalIndicator', description: 'An indicator the engine computed and nobody published.' });

export const WhatIfResponseSchema = z
  .object({
    provider_id: UuidSchema,
    stored: z.literal(false).meta({ description: 'A what-if is never stored or published.' }),
    base: z.object({ risk_indicator_id: RiskIndicatorIdSchema, final_score: z.number(), risk_band: RiskBandSchema }),
    what_if: HypotheticalIndicatorSchema,
    changes: z.object({
      final_score_delta: z.number(),
      band_from: RiskBandSchema,
      band_to: RiskBandSchema,
      criteria: z.array(
        z.object({
          criterion_id: z.string(),
          input_key: z.string(),
          value_before: z.union([z.string(), z.number(), z.boolean()]).nullable(),
          value_after: z.union([z.string(), z.number(), z.boolean()]).nullable(),
          points_before: z.number(),
          points_after: z.number(),
          points_delta: z.number(),
        }),
      ),
    }),
    limitations_disclosure: z.string(),
  })
  .meta({ id: 'WhatIfResponse' });

// ---- evidence schedule ----

/** The longest horizon the evidence schedule route takes, in days. */
export const EVIDENCE_SCHEDULE_MAX_DAYS = 730;

const daysMessage = `must be a whole number from 1 to ${EVIDENCE_SCHEDULE_MAX_DAYS}`;

export const EvidenceScheduleQuerySchema = z.strictObject({
  days: z
    // Decimal digits only: "1e2", "0x10", "5.0" and " 5" are refused rather than read as numbers.
    .preprocess(
      (v) => (typeof v === 'string' && /^[0-9]{1,6}$/.test(v) ? Number(v) : v),
      z
        .number({ error: daysMessage })
        .int(daysMessage)
        .min(1, 'must be at least 1')
        .max(EVIDENCE_SCHEDULE_MAX_DAYS, `must be at most ${EVIDENCE_SCHEDULE_MAX_DAYS}`),
    )
    .default(365)
    .meta({ description: `How many days ahead of today to look, 1 to ${EVIDENCE_SCHEDULE_MAX_DAYS}.`, example: 365 }),
});

export const EvidenceReasonSchema = z.enum(EVIDENCE_REASONS).meta({
  id: 'EvidenceReason',
  description:
    'Why a date is in the schedule (a closed set): `DECAY_STARTS` an input passes 90 days (its freshness starts to ' +
    'fall, and confidence with it); `EVIDENCE_STALE` an input passes 365 days (its freshness drops to 0.25); ' +
    '`CAP_FIRES` a hard cap on stale evidence starts to fire (HC-07); `SCORE_CHANGES` and `BAND_CHANGES` the final ' +
    'score or the band differs from the day before; `NOT_PUBLISHABLE` confidence falls below 0.5.',
});

const evidenceFigures = {
  date: z.string().meta({ description: 'A calendar date, YYYY-MM-DD.', example: '2027-06-01' }),
  final_score: z.number().meta({ description: 'The final score the engine gives the inputs on this date.' }),
  risk_band: RiskBandSchema,
  confidence: z.number().meta({ description: 'Confidence on this date, 0 to 1 (4 places).' }),
  publishable: z.boolean().meta({ description: 'Whether confidence is at least 0.5 on this date.' }),
  hard_caps_fired: z.array(z.string()).meta({ description: 'The hard caps that fire on this date (ids).' }),
  decaying_criteria: z.array(z.string()).meta({
    description:
      'Criteria whose freshness is in its linear decay on this date (evidence 91 to 365 days old). Empty: ' +
      'confidence holds until the next entry. Not empty: confidence may fall day by day until the next entry, ' +
      'which has no entry of its own; nothing else changes before the next entry.',
  }),
};

export const EvidenceFiguresSchema = z.object(evidenceFigures).meta({
  id: 'EvidenceFigures',
  description: "The indicator's figures on one date, as the engine scores its approved inputs on that date.",
});

export const EvidenceScheduleEntrySchema = z
  .object({
    ...evidenceFigures,
    reason_codes: z.array(EvidenceReasonSchema).min(1).meta({ description: 'Every reason that holds on this date.' }),
    reason: z.string().meta({ description: 'The reasons in one sentence.' }),
    criteria: z
      .array(
        z.object({
          criterion_id: z.string(),
          input_key: z.string(),
          as_of: z.string(),
          age_days: z.number().int(),
          freshness: z.number(),
        }),
      )
      .meta({ description: 'The inputs that pass 90 or 365 days on this date, with their freshness then.' }),
  })
  .meta({ id: 'EvidenceScheduleEntry' });

export const EvidenceScheduleResponseSchema = z
  .object({
    provider_id: UuidSchema,
    risk_indicator_id: RiskIndicatorIdSchema.meta({ description: 'The indicator in force whose inputs age.' }),
    framework_version: z.string(),
    evaluation_date: z.string().meta({ description: "The indicator's own evaluation date." }),
    start_date: z.string().meta({
      description: "Today (UTC), or the indicator's evaluation date when that is later; `current` holds its figures.",
    }),
    end_date: z.string().meta({ description: 'start_date plus `days`: the last date looked at.' }),
    days: z.number().int(),
    current: EvidenceFiguresSchema,
    entries: z.array(EvidenceScheduleEntrySchema).meta({
      description:
        'Oldest first: every date after start_date, up to end_date, on which an input passes 90 or 365 days or the ' +
        'final score, the band, the fired caps or publishability changes, each as the engine scores the inputs on ' +
        'that date. Empty when nothing changes within the horizon.',
    }),
    first_band_change: z
      .object({ date: z.string(), from: RiskBandSchema, to: RiskBandSchema })
      .nullable()
      .meta({ description: 'The first band change within the horizon; null when the band holds.' }),
    not_publishable_from: z
      .string()
      .nullable()
      .meta({
        description:
          'The first date within the horizon on which the indicator is no longer publishable; null when it stays ' +
          'publishable (or is already not publishable on start_date: see `current`).',
      }),
    limitations_disclosure: z.string(),
  })
  .meta({ id: 'EvidenceSchedule' });

// ---- export and memos ----

export const ExportQuerySchema = z.strictObject({ planner_type: PlannerTypeSchema.optional() });

export const MemoQuerySchema = z.strictObject({
  format: z
    .enum(['md', 'html'])
    .default('md')
    .meta({
      description:
        'Markdown (default): text and tables; or one self-contained HTML page, which also draws charts (as SVG) ' +
        'before the tables of the same figures.',
    }),
});

export type ProviderSearchQuery = z.infer<typeof ProviderSearchQuerySchema>;
export type ProviderMatch = z.infer<typeof ProviderMatchSchema>;
export type Comparison = z.infer<typeof ComparisonSchema>;
export type PortfolioBody = z.infer<typeof PortfolioBodySchema>;
export type PortfolioScore = z.infer<typeof PortfolioScoreSchema>;
export type WhatIfBody = z.infer<typeof WhatIfBodySchema>;
export type WhatIfResponse = z.infer<typeof WhatIfResponseSchema>;
export type EvidenceReason = z.infer<typeof EvidenceReasonSchema>;
export type EvidenceScheduleQuery = z.infer<typeof EvidenceScheduleQuerySchema>;
export type EvidenceScheduleResponse = z.infer<typeof EvidenceScheduleResponseSchema>;
