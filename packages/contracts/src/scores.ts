import { z } from 'zod';
import {
  AsOfSchema,
  NextCursorSchema,
  OutlookSchema,
  PageLimitSchema,
  PageQuery,
  PlannerTypeSchema,
  RiskBandSchema,
  RiskIndicatorIdSchema,
  TimestampSchema,
  UuidSchema,
  WatchSchema,
} from './common.js';

const InputValueSchema = z.union([z.string(), z.number(), z.boolean()]).nullable();

export const CriterionScoreSchema = z
  .object({
    criterion_id: z.string().meta({ example: 'A1' }),
    criterion_label: z.string(),
    module_id: z.string(),
    weight: z.number().int(),
    input_key: z.string(),
    input_value: InputValueSchema.meta({ description: 'The approved input as written; null when missing.' }),
    points: z.number().min(0).max(100),
    contribution: z.number(),
    as_of: z.string().nullable(),
    age_days: z.number().int().nullable(),
    freshness: z.number().min(0).max(1),
    missing: z.boolean(),
  })
  .meta({ id: 'CriterionScore' });

export const DecisionFactorSchema = z
  .object({
    criterion_id: z.string(),
    criterion_label: z.string(),
    point_impact: z
      .number()
      .meta({ description: 'Points, 2 decimals: negative for ceiling factors, positive for floor factors.' }),
    detail: z.string(),
  })
  .meta({ id: 'DecisionFactor' });

export const HardCapFiredSchema = z
  .object({
    cap_id: z.string().meta({ example: 'HC-01' }),
    label: z.string(),
    cap: z.number(),
    binding: z.boolean(),
    point_impact: z.number().meta({ description: 'r2(cap - uncapped) when binding, else 0.' }),
  })
  .meta({ id: 'HardCapFired' });

export const DecisionObjectSchema = z
  .object({
    summary: z.string(),
    ceiling_factors: z.array(DecisionFactorSchema),
    floor_factors: z.array(DecisionFactorSchema),
    hard_caps_fired: z.array(HardCapFiredSchema),
    next_band: RiskBandSchema.optional().meta({ description: 'The next better band; absent for LOW.' }),
    points_to_next_band: z.number().optional().meta({ description: 'Absent for LOW.' }),
  })
  .meta({ id: 'DecisionObject' });

export const ScoreCommentarySchema = z
  .object({
    overview: z.string(),
    modules: z.array(
      z.object({
        module_id: z.string(),
        label: z.string(),
        score: z.number(),
        max: z.number().int(),
        text: z.string(),
      }),
    ),
  })
  .meta({ id: 'ScoreCommentary' });

export const NextBandStepSchema = z
  .object({
    criterion_id: z.string(),
    input_key: z.string(),
    label: z.string(),
    current_value: InputValueSchema,
    suggested_value: InputValueSchema.meta({
      description: 'The smallest change of this input alone that reaches the next band; null when none can.',
    }),
    suggested_as_of: z.string().nullable().meta({
      description: 'The evidence date the suggestion assumes when it renews a missing or stale input.',
    }),
    resulting_score: z.number().nullable(),
    resulting_band: RiskBandSchema.nullable(),
    reachable: z.boolean(),
    reason: z.string().nullable().meta({ description: 'Why no single change of this input reaches the band.' }),
  })
  .meta({ id: 'NextBandStep' });

export const PathToNextBandSchema = z
  .object({
    current_score: z.number(),
    current_band: RiskBandSchema,
    next_band: RiskBandSchema.nullable().meta({ description: 'null in the best band (LOW).' }),
    next_band_min_score: z.number().nullable(),
    steps: z.array(NextBandStepSchema).meta({
      description:
        'One per criterion, in framework order; empty in the best band (LOW), where `summary` says there is no next band.',
    }),
    summary: z.string(),
  })
  .meta({
    id: 'PathToNextBand',
    description:
      'For each criterion, the smallest improvement of its input alone that would reach the next better band, computed by the engine with caps and rounding applied, or why none can.',
  });

const publicFields = {
  id: UuidSchema.meta({ description: 'Provider identifier.' }),
  name: z.string(),
  planner_type: PlannerTypeSchema,
  provider_subtype: z.string(),
  yield_min: z.number(),
  yield_max: z.number(),
  final_score: z.number().min(0).max(100),
  risk_band: RiskBandSchema,
  scored_at: TimestampSchema,
  outlook: OutlookSchema,
  watch: WatchSchema,
};

/** The public form (GET /api/public/scores): headline score and band, no breakdown. */
export const PublicScoreSchema = z.strictObject(publicFields).meta({ id: 'PublicScore' });

export const LIMITATIONS_DISCLOSURE =
  'Risk Indicators are deterministic outputs of the published Digital Credit Risk Framework applied to approved inputs. ' +
  'They are not credit ratings, investment advice or a recommendation to buy, hold or sell any product, and they may ' +
  'change when inputs or the framework change. Inputs come from provider disclosures and third-party evidence that the ' +
  'operator does not guarantee.';

/** The public list: every provider by default (one element each); `limit` or `cursor` asks for pages of it. */
export const PublicScoresQuerySchema = z.strictObject({
  limit: PageLimitSchema.optional().meta({
    description: 'Page size, 1 to 500 (100 when only `cursor` is given). Without `limit` and `cursor`: every provider.',
  }),
  cursor: PageQuery.cursor,
  as_of: AsOfSchema.optional(),
});

export const PublicScoresResponseSchema = z
  .object({
    data: z.array(PublicScoreSchema),
    limitations_disclosure: z.string(),
    cached: z.boolean().meta({ description: 'True when served from the snapshot built at the last publication.' }),
    next_cursor: NextCursorSchema.optional().meta({
      description:
        'On a page (`limit` or `cursor` given): the cursor of the next page, null on the last; also a `Link: <...>; rel="next"` header. Absent from the whole list.',
    }),
  })
  .meta({ id: 'PublicScoresResponse' });

export const IndicatorSignatureSchema = z
  .object({
    kid: z.string().meta({ description: 'The signing key, in the JWKS at /.well-known/svc-signing-keys.json.' }),
    value: z.string().meta({ description: 'base64url of the Ed25519 signature over the statement.' }),
    statement_sha256: z.string().meta({
      description:
        'SHA-256 of the RFC 8785 bytes of the statement signed: GET /api/public/statements/{statement_sha256} answers it (also GET /api/public/publications/{risk_indicator_id} for an indicator, GET /api/public/rating-actions/{ratingActionId}/statement for a rating action).',
    }),
  })
  .nullable()
  .meta({
    id: 'IndicatorSignature',
    description:
      'The signed statement of a publication (in an indicator) or of a rating action, in short; null only until what was recorded before signing existed is signed.',
  });

/** The authenticated form (Professional and above). */
export const RiskIndicatorSchema = z
  .strictObject({
    ...publicFields,
    provider_id: UuidSchema,
    risk_indicator_id: RiskIndicatorIdSchema,
    confidence: z.number().min(0).max(1),
    publishable: z.boolean(),
    framework_version: z.string().meta({ example: 'DCRF v1.0' }),
    score_verified_at: TimestampSchema.meta({
      description: 'When the inputs behind this indicator were last approved.',
    }),
    published_at: TimestampSchema,
    criterion_scores: z.array(CriterionScoreSchema),
    svc_decision_object: DecisionObjectSchema,
    score_commentary: ScoreCommentarySchema,
    path_to_next_band: PathToNextBandSchema,
    signature: IndicatorSignatureSchema,
    limitations_disclosure: z.string(),
  })
  .meta({ id: 'RiskIndicator' });

/** The top-level fields of the authenticated form: what `fields` may name. */
export const RISK_INDICATOR_FIELDS: readonly string[] = Object.freeze(Object.keys(RiskIndicatorSchema.shape));

const FIELD_LIST = RISK_INDICATOR_FIELDS.join(', ');

/**
 * `fields`: top-level fields of the indicator form, comma-separated, each once; read into the list of names. An
 * unknown name is refused naming it and listing the fields there are.
 */
export const IndicatorFieldsSchema = z
  .string()
  .transform((text, ctx) => {
    const names = text.split(',');
    const seen = new Set<string>();
    for (const name of names) {
      if (name === '') {
        ctx.addIssue({
          code: 'custom',
          message: `must name fields, comma-separated, none empty; one of ${FIELD_LIST}`,
        });
      } else if (!RISK_INDICATOR_FIELDS.includes(name)) {
        ctx.addIssue({ code: 'custom', message: `names no field "${name}"; the fields are ${FIELD_LIST}` });
      } else if (seen.has(name)) {
        ctx.addIssue({ code: 'custom', message: `names the field "${name}" twice` });
      }
      seen.add(name);
    }
    return names;
  })
  .meta({
    description:
      'Only these top-level fields of each Risk Indicator, comma-separated, each once (in the order of the full form, whatever the order asked).',
    example: 'provider_id,final_score,risk_band',
  });

export const ScoresQuerySchema = z.strictObject({
  planner_type: PlannerTypeSchema.optional(),
  ...PageQuery,
  as_of: AsOfSchema.optional(),
  fields: IndicatorFieldsSchema.optional(),
});

/** A provider's indicator: the one in force now, or with `as_of` the one in force at that instant. */
export const ScoreQuerySchema = z.strictObject({
  as_of: AsOfSchema.optional(),
  fields: IndicatorFieldsSchema.optional(),
});

export const ScoresListResponseSchema = z
  .object({
    data: z.array(RiskIndicatorSchema),
    framework_version: z.string(),
    limitations_disclosure: z.string(),
    next_cursor: NextCursorSchema,
  })
  .meta({ id: 'ScoresListResponse' });

export const ProviderParamsSchema = z.strictObject({ providerId: UuidSchema });

export const HistoryQuerySchema = z.strictObject({ ...PageQuery });

/** A withdrawal in a provider's history: an entry of its own, right after the publication it withdrew. */
export const HistoryWithdrawalSchema = z
  .strictObject({
    entry_type: z.literal('withdrawal'),
    provider_id: UuidSchema,
    withdrawn_at: TimestampSchema,
    withdrawn_risk_indicator_id: RiskIndicatorIdSchema.meta({ description: 'The indicator that was in force.' }),
    previous_score: z.number().min(0).max(100),
    previous_band: RiskBandSchema,
    framework_version: z.string(),
    reason: z.string().nullable().meta({ description: 'Why, as the operator recorded it; null when not given.' }),
  })
  .meta({ id: 'HistoryWithdrawal' });

/**
 * A publication in a provider's history: the Risk Indicator as GET /api/v1/scores/{providerId} serves it, with
 * `entry_type: "publication"` first, as a withdrawal names its kind.
 */
export const HistoryPublicationSchema = z
  .strictObject({
    entry_type: z.literal('publication'),
    ...RiskIndicatorSchema.shape,
  })
  .meta({ id: 'HistoryPublication' });

export const ScoreHistoryResponseSchema = z
  .object({
    provider_id: UuidSchema,
    data: z.array(z.union([HistoryPublicationSchema, HistoryWithdrawalSchema])).meta({
      description:
        'Every publication (a Risk Indicator with `entry_type: "publication"`) and every withdrawal (an entry with `entry_type: "withdrawal"`), newest first. ' +
        'A withdrawal follows the publication it withdrew; a later publication reinstates the provider. ' +
        'Each publication carries the `outlook` and `watch` in force when it was published (the rating actions feed says what changed them since).',
    }),
    next_cursor: NextCursorSchema,
  })
  .meta({ id: 'ScoreHistoryResponse' });

export type PublicScore = z.infer<typeof PublicScoreSchema>;
export type PublicScoresResponse = z.infer<typeof PublicScoresResponseSchema>;
export type RiskIndicatorResponse = z.infer<typeof RiskIndicatorSchema>;
export type ScoresQuery = z.infer<typeof ScoresQuerySchema>;
export type ScoreQuery = z.infer<typeof ScoreQuerySchema>;
export type ScoresListResponse = z.infer<typeof ScoresListResponseSchema>;
export type ScoreHistoryResponse = z.infer<typeof ScoreHistoryResponseSchema>;
export type HistoryWithdrawal = z.infer<typeof HistoryWithdrawalSchema>;
export type HistoryPublication = z.infer<typeof HistoryPublicationSchema>;
