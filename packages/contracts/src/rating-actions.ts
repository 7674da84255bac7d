import { z } from 'zod';
import {
  NextCursorSchema,
  OutlookSchema,
  PageQuery,
  RatingActionIdSchema,
  RiskBandSchema,
  RiskIndicatorIdSchema,
  TimestampSchema,
  UuidSchema,
  WatchSchema,
} from './common.js';
import { SinceSchema } from './resources.js';
import { IndicatorSignatureSchema } from './scores.js';

// ---- rating actions (DESIGN-record section 4, decision 0030) ----

/**
 * Every kind of rating action: the six a publication or a withdrawal makes, then the three an analyst proposes and
 * another approves. A closed set: a new kind would be a new version of this contract.
 */
export const RATING_ACTION_TYPES = [
  'NEW',
  'UPGRADE',
  'DOWNGRADE',
  'AFFIRM',
  'WITHDRAW',
  'REINSTATE',
  'WATCH_PLACED',
  'WATCH_REMOVED',
  'OUTLOOK_CHANGED',
] as const;
export type RatingActionType = (typeof RATING_ACTION_TYPES)[number];

/** The kinds an analyst proposes (maker-checker); the others follow from publications and withdrawals. */
export const ANALYST_ACTION_TYPES = ['WATCH_PLACED', 'WATCH_REMOVED', 'OUTLOOK_CHANGED'] as const;
export type AnalystActionType = (typeof ANALYST_ACTION_TYPES)[number];

export const RatingActionTypeSchema = z.enum(RATING_ACTION_TYPES).meta({
  id: 'RatingActionType',
  description:
    'NEW (first publication), UPGRADE (to a lower-risk band), DOWNGRADE, AFFIRM (a publication keeping the band), ' +
    'WITHDRAW, REINSTATE (the first publication after a withdrawal), and the analyst actions WATCH_PLACED, ' +
    'WATCH_REMOVED and OUTLOOK_CHANGED.',
});

/** The action itself, as it took effect: exactly what its signed statement states under `action`. */
export const RatingActionFields = {
  id: RatingActionIdSchema,
  provider_id: UuidSchema,
  provider_name: z.string(),
  type: RatingActionTypeSchema,
  previous_band: RiskBandSchema.nullable().meta({
    description: 'The band in force before; null for NEW and REINSTATE (nothing was in force).',
  }),
  new_band: RiskBandSchema.nullable().meta({ description: 'The band in force after; null for WITHDRAW.' }),
  previous_score: z.number().nullable(),
  new_score: z.number().nullable(),
  /** The outlook and the watch in force once the action took effect (after a withdrawal: STABLE and null). */
  outlook: OutlookSchema,
  watch: WatchSchema,
  rationale: z.string().nullable().meta({
    description:
      "The analyst's rationale (analyst actions), the withdrawal's reason (WITHDRAW, null when none was given); null for a publication, whose reasons are its indicator's decision object and commentary.",
  }),
  risk_indicator_id: RiskIndicatorIdSchema.meta({
    description: 'The indicator published, withdrawn, or in force when an analyst action took effect.',
  }),
  framework_version: z.string().meta({ example: 'DCRF v1.0' }),
  proposed_by: z.string().nullable().meta({
    description:
      'The analyst who proposed it; for a publication, who submitted its inputs; null for a withdrawal and where the record does not say.',
  }),
  approved_by: z.string().nullable().meta({
    description:
      'The approver who made it effective; for a publication, who approved its inputs; for a withdrawal, who withdrew.',
  }),
  effective_at: TimestampSchema.meta({
    description: 'When it took effect: the publication or withdrawal instant, or the approval of an analyst action.',
  }),
};

export const RatingActionSchema = z
  .strictObject({
    ...RatingActionFields,
    /** Its signed statement in short: GET /api/public/rating-actions/{ratingActionId}/statement has it whole. */
    signature: IndicatorSignatureSchema,
  })
  .meta({ id: 'RatingAction' });

export const RatingActionsQuerySchema = z.strictObject({
  provider_id: UuidSchema.optional().meta({ description: "Only this provider's actions." }),
  type: z
    .enum(RATING_ACTION_TYPES)
    .optional()
    .meta({ description: `Only actions of this type: ${RATING_ACTION_TYPES.join(', ')}.` }),
  since: SinceSchema.optional().meta({ description: 'Only actions effective at or after this date or UTC timestamp.' }),
  ...PageQuery,
});

export const RatingActionsResponseSchema = z
  .object({
    data: z.array(RatingActionSchema).meta({ description: 'Effective actions, newest first.' }),
    next_cursor: NextCursorSchema,
  })
  .meta({ id: 'RatingActionsResponse' });

export const RatingActionParamsSchema = z.strictObject({ ratingActionId: RatingActionIdSchema });

export type RatingAction = z.infer<typeof RatingActionSchema>;
export type RatingActionsQuery = z.infer<typeof RatingActionsQuerySchema>;
export type RatingActionsResponse = z.infer<typeof RatingActionsResponseSchema>;
