// The computation package's format: the record an auditor replays. The shape
// lives apart from the code that builds and canonicalises it (build.ts,
// canonical-package.ts) so that both can name it without importing each other.
// It is a zod schema, the types are inferred from it, and its JSON Schema
// (docs/schemas/computation-package.json) is generated from it: one statement
// of the format.
import { z } from 'zod';
import { AnyInputsDocumentSchema, PLANNER_TYPES } from '../inputs/document.js';
import { PLACES } from '../places.js';

export const PACKAGE_FORMAT = 'svc.computation-package/1';

/** A figure as a package writes it: decimal text with exactly `places` decimals (methodology section 10). */
const figure = (places: number) =>
  z
    .string()
    .regex(new RegExp(`^-?(0|[1-9][0-9]*)\\.[0-9]{${places}}$`))
    .meta({ description: `Exact decimal text with ${places} decimals.` });

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const CalendarDate = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/);
const InputValue = z.union([z.number(), z.string(), z.boolean()]).meta({
  description: 'The input as the approved-inputs document wrote it.',
});
/** A text of the decision object or the commentary; its wording is the methodology's. */
const Words = z.string().min(1);

const CriterionTraceSchema = z.strictObject({
  criterion_id: z.string(),
  input_key: z.string(),
  input_value: InputValue.nullable(),
  derived: z
    .strictObject({ name: z.string(), value: z.string().regex(/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/) })
    .nullable()
    .meta({ description: 'The derived quantity the scale reads, exact decimal text; null when it reads the input.' }),
  missing: z.boolean(),
  as_of: CalendarDate.nullable(),
  age_days: z.int().nullable(),
  freshness: figure(PLACES.freshness),
  points: figure(PLACES.points),
  weight: z.int(),
  contribution: figure(PLACES.contribution),
});

const CapTraceSchema = z.strictObject({
  cap_id: z.string(),
  label: z.string(),
  condition: z.string(),
  operands: z.array(
    z.strictObject({
      operand: z.string(),
      value: z.union([z.number(), z.string(), z.boolean()]).nullable().meta({
        description:
          'An input operand as the document wrote it, a derived one as exact decimal text, an age in whole days; null when missing.',
      }),
    }),
  ),
  fired: z.boolean(),
  cap: figure(PLACES.score),
  binding: z.boolean(),
  point_impact: figure(PLACES.score),
});

const DecisionFactorSchema = z.strictObject({
  criterion_id: z.string(),
  criterion_label: z.string(),
  point_impact: figure(PLACES.score),
  detail: Words,
});

/** The Risk Indicator of methodology section 9 with its figures as fixed-place text, as a package holds it. */
const PackagedIndicatorSchema = z.strictObject({
  risk_indicator_id: z.string().regex(/^ri_[0-9a-f]{24}$/),
  id: z.string(),
  provider_id: z.string(),
  name: z.string(),
  planner_type: z.enum(PLANNER_TYPES),
  provider_subtype: z.string(),
  yield_min: z.number(),
  yield_max: z.number(),
  final_score: figure(PLACES.score),
  risk_band: z.string(),
  confidence: figure(PLACES.confidence),
  publishable: z.boolean(),
  framework_version: z.string(),
  scored_at: z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T00:00:00Z$/),
  criterion_scores: z.array(
    z.strictObject({
      criterion_id: z.string(),
      criterion_label: z.string(),
      module_id: z.string(),
      weight: z.int(),
      input_key: z.string(),
      input_value: InputValue.nullable(),
      points: figure(PLACES.points),
      contribution: figure(PLACES.contribution),
      as_of: CalendarDate.nullable(),
      age_days: z.int().nullable(),
      freshness: figure(PLACES.freshness),
      missing: z.boolean(),
    }),
  ),
  svc_decision_object: z.strictObject({
    summary: Words,
    ceiling_factors: z.array(DecisionFactorSchema),
    floor_factors: z.array(DecisionFactorSchema),
    hard_caps_fired: z.array(
      z.strictObject({
        cap_id: z.string(),
        label: z.string(),
        cap: figure(PLACES.score),
        binding: z.boolean(),
        point_impact: figure(PLACES.score),
      }),
    ),
    next_band: z.string().optional().meta({ description: 'Absent for the lowest-risk band.' }),
    points_to_next_band: figure(PLACES.score).optional().meta({ description: 'Absent for the lowest-risk band.' }),
  }),
  score_commentary: z.strictObject({
    overview: Words,
    modules: z.array(
      z.strictObject({
        module_id: z.string(),
        label: z.string(),
        score: figure(PLACES.contribution),
        max: z.int(),
        text: Words,
      }),
    ),
  }),
});

/** Methodology section 10: everything an auditor needs to reproduce a Risk Indicator. */
export const ComputationPackageSchema = z.strictObject({
  package_format: z.literal(PACKAGE_FORMAT),
  engine: z.strictObject({ name: z.string(), version: z.string() }),
  framework: z
    .strictObject({
      framework_version: z.string(),
      version: z.string().regex(/^[0-9]+\.[0-9]+$/),
      sha256: Sha256,
    })
    .meta({
      description:
        'The framework the package was computed under: its version and the SHA-256 of its canonical definition (GET /api/public/frameworks/{version} serves those bytes).',
    }),
  inputs: AnyInputsDocumentSchema,
  inputs_sha256: Sha256.meta({ description: 'SHA-256 of the RFC 8785 canonical form of `inputs`.' }),
  evaluation_date: CalendarDate,
  risk_indicator_id: z.string().regex(/^ri_[0-9a-f]{24}$/),
  steps: z.strictObject({
    criteria: z.array(CriterionTraceSchema),
    uncapped: figure(PLACES.contribution),
    hard_caps: z.array(CapTraceSchema),
    capped: figure(PLACES.contribution),
    final_score: figure(PLACES.score),
    risk_band: z.string(),
    next_band: z.string().nullable(),
    points_to_next_band: figure(PLACES.score).nullable(),
    confidence: figure(PLACES.confidence),
    publishable: z.boolean(),
  }),
  result: PackagedIndicatorSchema,
  result_sha256: Sha256.meta({ description: 'SHA-256 of the RFC 8785 canonical form of `result`.' }),
});

export type CriterionTrace = z.infer<typeof CriterionTraceSchema>;
export type CapTrace = z.infer<typeof CapTraceSchema>;
export type ComputationPackage = z.infer<typeof ComputationPackageSchema>;
