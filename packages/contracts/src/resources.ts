import { FrameworkDefinitionSchema, plainText, SignOffSchema } from '@svc/methodology';
import { z } from 'zod';
import {
  NextCursorSchema,
  PageQuery,
  PlannerTypeSchema,
  RatingActionIdSchema,
  RiskBandSchema,
  RiskIndicatorIdSchema,
  TimestampSchema,
  UuidSchema,
} from './common.js';

// ---- methodology ----

export const MethodologyQuerySchema = z.strictObject({
  version: z
    .string()
    .max(32)
    .optional()
    .meta({ description: 'A framework version such as `1.0`; the current one when absent.' }),
});

export const MethodologyResponseSchema = z
  .object({
    framework_version: z.string(),
    version: z.string(),
    effective_date: z.string(),
    status: z.enum(['approved', 'draft']),
    sign_off: SignOffSchema.nullable(),
    framework_sha256: z.string().meta({ description: 'SHA-256 of the RFC 8785 canonical form of `definition`.' }),
    definition: FrameworkDefinitionSchema,
  })
  .meta({ id: 'MethodologyResponse' });

/** A framework version as the engine keys it ("1.0"): the path parameter of the public definition. */
export const FrameworkParamsSchema = z.strictObject({
  version: z
    .string()
    .regex(
      /^\d{1,9}\.\d{1,9}$/,
      'must be a framework version such as 1.0 (the `version` of GET /api/public/frameworks)',
    )
    .meta({ description: 'The framework version, as `version` in the list.', example: '1.0' }),
});

export const FrameworkReleaseSchema = z
  .object({
    version: z.string().meta({ example: '1.0' }),
    framework_version: z.string().meta({ example: 'DCRF v1.0' }),
    framework_sha256: z.string().meta({
      description:
        'SHA-256 of the RFC 8785 canonical form of the definition: of the bytes GET /api/public/frameworks/{version} answers. Computation packages name it as `framework.sha256`.',
    }),
    effective_date: z.string().meta({ description: 'The date (YYYY-MM-DD) from which it is in force.' }),
    signed_off_by: z.string().meta({ description: 'The chief risk officer who signed it off.' }),
    signed_off_at: z.string().meta({
      description:
        "When the sign-off was recorded (a UTC timestamp); for the engine's built-in sign-off, listed while no release of its version is recorded, only its date (YYYY-MM-DD) is known.",
    }),
  })
  .meta({ id: 'FrameworkRelease' });

export const FrameworksResponseSchema = z
  .object({
    data: z.array(FrameworkReleaseSchema).meta({ description: 'Every released framework, by effective date.' }),
  })
  .meta({ id: 'FrameworksResponse' });

// ---- computation packages ----

export const ComputationParamsSchema = z.strictObject({ id: RiskIndicatorIdSchema });

export const ComputationPackageSchema = z
  .looseObject({
    package_format: z.literal('svc.computation-package/1'),
    engine: z.object({ name: z.string(), version: z.string() }),
    framework: z.object({
      framework_version: z.string(),
      version: z.string(),
      sha256: z.string().meta({ description: 'framework_sha256 of GET /api/v1/methodology?version=...' }),
    }),
    inputs: z.record(z.string(), z.unknown()).meta({ description: 'The approved-inputs document.' }),
    inputs_sha256: z.string(),
    evaluation_date: z.string(),
    risk_indicator_id: RiskIndicatorIdSchema,
    steps: z
      .record(z.string(), z.unknown())
      .meta({ description: 'Every intermediate step; decimals as fixed-place strings.' }),
    result: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The Risk Indicator; decimals as fixed-place strings.' }),
    result_sha256: z.string(),
  })
  .meta({
    id: 'ComputationPackage',
    description: 'Everything needed to reproduce a Risk Indicator: verify with `svc verify FILE`.',
  });

// ---- issuances ----

/** The statuses of an upcoming issuance (the specification's), which the list's `status` filter takes. */
export const ISSUANCE_STATUSES = ['ANNOUNCED', 'PRICING'] as const;
/** An issuance closed by the operator (`svc issuances close`): no longer upcoming, listed only with include_closed. */
export const ISSUANCE_CLOSED_STATUSES = ['PRICED', 'CANCELLED'] as const;
export const ISSUANCE_TYPES = ['preferred_share', 'bond'] as const;

export const IssuancesQuerySchema = z.strictObject({
  status: z.enum(ISSUANCE_STATUSES).optional(),
  type: z.enum(ISSUANCE_TYPES).optional(),
  include_closed: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: 'Also list the closed issuances (PRICED, CANCELLED); without it only upcoming ones.' }),
  ...PageQuery,
});

export const IssuanceSchema = z
  .object({
    id: z
      .string()
      .regex(/^iss_[0-9a-f]{24}$/)
      .meta({ example: 'iss_217037c80cb44ee69ca32c6e' }),
    issuer_name: z.string(),
    provider_id: UuidSchema.nullable(),
    instrument_name: z.string(),
    ticker: z.string().nullable(),
    type: z.enum(ISSUANCE_TYPES),
    status: z.enum([...ISSUANCE_STATUSES, ...ISSUANCE_CLOSED_STATUSES]),
    currency: z.string().meta({ example: 'USD' }),
    target_amount: z.number(),
    coupon_rate_pct: z.number().nullable(),
    coupon_frequency: z.enum(['monthly', 'quarterly', 'semiannual', 'annual']).nullable(),
    expected_pricing_date: z.string().nullable(),
    announced_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'Issuance' });

export const IssuancesResponseSchema = z
  .object({ data: z.array(IssuanceSchema), next_cursor: NextCursorSchema })
  .meta({ id: 'IssuancesResponse' });

// ---- status ----

const DaysSchema = z.number().int();

/** The freshness policy in force (configuration; decision 0053). */
export const FreshnessPolicySchema = z
  .object({
    max_evaluation_age_days: DaysSchema.meta({
      description:
        'A provider whose approved inputs were evaluated more than this many days before today (UTC) is not published.',
    }),
    review_cadence_days: z
      .object({
        default: DaysSchema.meta({
          description: 'Days from an evaluation to its review, unless its planner type has its own.',
        }),
        by_planner_type: z
          .object({ btc: DaysSchema, fiat: DaysSchema, stablecoin: DaysSchema })
          .meta({ description: 'The cadence in force for each planner type (the default where none is set).' }),
      })
      .meta({ description: 'How often a rating in force is due for review.' }),
  })
  .meta({ id: 'FreshnessPolicy', description: 'The freshness policy this service runs under (its configuration).' });

export const StatusResponseSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    uptime_seconds: z.number().int(),
    started_at: TimestampSchema,
    framework_version: z.string(),
    data_freshness: z.object({
      latest_scored_at: TimestampSchema.nullable(),
      age_seconds: z.number().int().nullable(),
    }),
    components: z.object({
      store: z.enum(['ok', 'unavailable']),
      rate_limit_store: z.enum(['in_process', 'ok', 'degraded']),
    }),
    watches: z
      .object({
        on_watch: z.number().int().meta({ description: 'Providers with an indicator in force and a watch on.' }),
        overdue: z.number().int().meta({
          description:
            'Of those, the watches whose `review_by` is before today (UTC): due for review and not resolved.',
        }),
      })
      .nullable()
      .meta({ description: 'From the public snapshot; null while the store is unavailable.' }),
    policy: FreshnessPolicySchema,
  })
  .meta({ id: 'StatusResponse' });

// ---- operations: liveness and readiness ----

export const LiveResponseSchema = z.object({ status: z.literal('live') }).meta({ id: 'LiveResponse' });

/** What GET /readyz checked: the store's round trip and the migrations this code knows. */
export const ReadinessChecksSchema = z
  .object({
    store: z.enum(['ok', 'unavailable']).meta({
      description: '`ok` when the store answered a round trip within the store timeout.',
    }),
    migrations: z.string().meta({
      description:
        '`ok` when every migration this code knows is applied; `pending: <names>` when some are not; `unknown` when the store did not answer.',
    }),
  })
  .meta({ id: 'ReadinessChecks' });

export const ReadyResponseSchema = z
  .object({
    status: z.literal('ready'),
    checks: z.object({ store: z.literal('ok'), migrations: z.literal('ok') }),
  })
  .meta({ id: 'ReadyResponse' });

// ---- change feed ----

/** Date.parse rolls 2026-02-30 over to March; a real date reads back as written. */
function isRealTime(text: string): boolean {
  const time = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text.slice(0, 10);
}

export const CHANGE_TYPES = ['NEW', 'SCORE_CHANGE', 'BAND_CHANGE', 'WITHDRAWN'] as const;

/** A `since` parameter: a date (its first instant, UTC) or a UTC timestamp, on the calendar. */
export const SinceSchema = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z)?$/,
    'is not a date or time: write a date YYYY-MM-DD or a UTC timestamp, such as 2026-06-01 or 2026-06-01T12:00:00Z',
  )
  // Only a value written as a date is checked against the calendar, so "yesterday" gets the one message above.
  .refine(isRealTime, {
    when: (payload) => payload.issues.length === 0,
    error: (issue) => `must be a real date and time: ${String(issue.input)} does not exist on the calendar`,
  });

export const ChangelogQuerySchema = z.strictObject({
  since: SinceSchema.optional().meta({ description: 'Only changes at or after this date or UTC timestamp.' }),
  ...PageQuery,
});

export const ChangelogEntrySchema = z
  .object({
    id: z.string(),
    provider_id: UuidSchema,
    provider_name: z.string(),
    change_type: z.enum(CHANGE_TYPES),
    previous_score: z.number().nullable(),
    new_score: z.number().nullable(),
    previous_band: RiskBandSchema.nullable(),
    new_band: RiskBandSchema.nullable(),
    framework_version: z.string(),
    risk_indicator_id: RiskIndicatorIdSchema.nullable(),
    changed_at: TimestampSchema,
    rating_action_id: RatingActionIdSchema.nullable().meta({
      description:
        'The rating action this change is (GET /api/public/rating-actions); null only for an entry the store could not match when rating actions were introduced.',
    }),
  })
  .meta({ id: 'ChangelogEntry' });

export const ChangelogResponseSchema = z
  .object({ data: z.array(ChangelogEntrySchema), next_cursor: NextCursorSchema })
  .meta({ id: 'ChangelogResponse' });

// ---- coverage requests ----

export const CoverageRequestBodySchema = z
  .strictObject({
    provider_name: plainText(z.string())
      .trim()
      .min(2, 'must be 2 to 200 characters')
      .max(200, 'must be 2 to 200 characters'),
    website: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .max(2048, 'must be at most 2048 characters')
      .optional(),
    contact_email: z.email({ error: 'must be an email address' }).max(254).optional(),
    planner_type: PlannerTypeSchema.optional(),
    message: plainText(z.string(), 'multiline').max(2000, 'must be at most 2000 characters').optional(),
  })
  .meta({ id: 'CoverageRequest' });

/** What became of a coverage request: received, being reviewed, covered, or declined (the last two are final). */
export const COVERAGE_REQUEST_STATUSES = ['RECEIVED', 'IN_REVIEW', 'COVERED', 'DECLINED'] as const;
export const CoverageRequestStatusSchema = z.enum(COVERAGE_REQUEST_STATUSES);

export const CoverageRequestIdSchema = z
  .string()
  .regex(/^cr_[0-9a-f]{24}$/, 'must be a request id: cr_ followed by 24 lower-case hex digits')
  .meta({ example: 'cr_5f1c2a9e0b7d4c3a8e6f1b2d' });

export const CoverageRequestResponseSchema = z
  .object({
    request_id: CoverageRequestIdSchema,
    status: CoverageRequestStatusSchema.meta({
      description: 'RECEIVED for a new request; a resubmission answers the status the request has now.',
    }),
    received_at: TimestampSchema,
  })
  .meta({ id: 'CoverageRequestReceipt' });

export const CoverageRequestParamsSchema = z.strictObject({ requestId: CoverageRequestIdSchema });

/** What the requester may see of a request: its status and the resolution note, nothing they sent. */
export const CoverageRequestStatusResponseSchema = z
  .object({
    request_id: CoverageRequestIdSchema,
    status: CoverageRequestStatusSchema,
    resolution_note: z
      .string()
      .nullable()
      .meta({ description: "The operator's note to the requester; null until one is written." }),
  })
  .meta({ id: 'CoverageRequestStatus' });

export type MethodologyResponse = z.infer<typeof MethodologyResponseSchema>;
export type FrameworkReleaseEntry = z.infer<typeof FrameworkReleaseSchema>;
export type Issuance = z.infer<typeof IssuanceSchema>;
export type IssuancesQuery = z.infer<typeof IssuancesQuerySchema>;
export type StatusResponse = z.infer<typeof StatusResponseSchema>;
export type FreshnessPolicy = z.infer<typeof FreshnessPolicySchema>;
export type LiveResponse = z.infer<typeof LiveResponseSchema>;
export type ReadyResponse = z.infer<typeof ReadyResponseSchema>;
export type ReadinessChecks = z.infer<typeof ReadinessChecksSchema>;
export type ChangelogEntry = z.infer<typeof ChangelogEntrySchema>;
export type ChangelogQuery = z.infer<typeof ChangelogQuerySchema>;
export type CoverageRequestBody = z.infer<typeof CoverageRequestBodySchema>;
export type CoverageRequestReceipt = z.infer<typeof CoverageRequestResponseSchema>;
export type CoverageRequestStatus = z.infer<typeof CoverageRequestStatusResponseSchema>;
