import { z } from 'zod';
import { plainText } from '../text.js';

/** Exact decimal text as the methodology writes it ("0.90", "34.99"). */
const DecimalText = z.string().regex(/^-?(0|[1-9]\d*)(\.\d+)?$/, 'must be decimal text such as "0.90"');
const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const Id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const InputKey = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

const InputDomain = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('decimal'), min: DecimalText.optional(), max: DecimalText.optional() }),
  z.strictObject({ type: z.literal('integer'), min: DecimalText.optional(), max: DecimalText.optional() }),
  z.strictObject({ type: z.literal('enum') }),
  z.strictObject({ type: z.literal('boolean') }),
]);

const LinearScale = z.strictObject({
  kind: z.literal('linear'),
  /** What x is: the input value itself, or a derived quantity named in `derived`. */
  on: z.string(),
  anchors: z.array(z.tuple([DecimalText, DecimalText])).min(2),
});

const TableScale = z.strictObject({
  kind: z.literal('table'),
  entries: z.array(z.tuple([z.union([z.string().min(1), z.boolean()]), DecimalText])).min(1),
});

const Criterion = z.strictObject({
  id: Id,
  module_id: Id,
  label: z.string().min(1),
  input_key: InputKey,
  weight: z.number().int().positive(),
  input: InputDomain,
  scale: z.discriminatedUnion('kind', [LinearScale, TableScale]),
});

const DerivedQuantity = z.strictObject({
  name: InputKey,
  unit: z.string(),
  formula: z.string(),
  reads: z.array(z.string()),
});

const Operand = z.string();
type ConditionShape =
  | { op: 'eq'; operand: string; value: string | boolean }
  | { op: 'in'; operand: string; values: string[] }
  | { op: 'lt' | 'gt'; operand: string; value: string }
  | { op: 'all'; of: ConditionShape[] }
  | { op: 'stale'; criteria: string[]; age_days_over: number };

const Condition: z.ZodType<ConditionShape> = z
  .lazy(() =>
    z.discriminatedUnion('op', [
      z.strictObject({ op: z.literal('eq'), operand: Operand, value: z.union([z.string(), z.boolean()]) }),
      z.strictObject({ op: z.literal('in'), operand: Operand, values: z.array(z.string()).min(1) }),
      z.strictObject({ op: z.enum(['lt', 'gt']), operand: Operand, value: DecimalText }),
      z.strictObject({ op: z.literal('all'), of: z.array(Condition).min(2) }),
      z.strictObject({
        op: z.literal('stale'),
        criteria: z.array(Id).min(1),
        age_days_over: z.number().int().nonnegative(),
      }),
    ]),
  )
  .meta({
    id: 'CapCondition',
    description: 'A hard-cap condition: eq, in, lt, gt on an operand; all of several; stale evidence.',
  });

const HardCap = z.strictObject({
  id: Id,
  label: z.string().min(1),
  /** The condition as the methodology writes it, for people. */
  condition_text: z.string().min(1),
  condition: Condition,
  cap: DecimalText,
});

const Band = z.strictObject({ band: z.string().regex(/^[A-Z]+$/), min: DecimalText });

export const FrameworkDefinitionSchema = z
  .strictObject({
    name: z.string().min(1),
    short_name: z.string().min(1),
    version: z.string().regex(/^\d+\.\d+$/),
    framework_version: z.string().min(1),
    effective_date: IsoDate,
    score_range: z.strictObject({ min: DecimalText, max: DecimalText, higher_means: z.literal('lower_risk') }),
    arithmetic: z.strictObject({
      precision: z.literal(40),
      rounding: z.literal('ROUND_HALF_EVEN'),
      points_places: z.number().int().min(0),
      freshness_places: z.number().int().min(0),
      confidence_places: z.number().int().min(0),
      final_score_places: z.number().int().min(0),
    }),
    modules: z.array(z.strictObject({ id: Id, label: z.string().min(1), weight: z.number().int().positive() })).min(1),
    criteria: z.array(Criterion).min(1),
    derived: z.array(DerivedQuantity),
    hard_caps: z.array(HardCap),
    bands: z.array(Band).min(2),
    freshness: z.strictObject({
      full_until_days: z.number().int().nonnegative(),
      decay_until_days: z.number().int().positive(),
      decay: DecimalText,
      stale_factor: DecimalText,
    }),
    publication: z.strictObject({ min_confidence: DecimalText }),
    decision: z.strictObject({
      max_ceiling_factors: z.number().int().positive(),
      max_floor_factors: z.number().int().positive(),
      floor_min_points: DecimalText,
    }),
  })
  .superRefine((fw, ctx) => {
    const issue = (message: string, path: (string | number)[]) => ctx.addIssue({ code: 'custom', message, path });
    const moduleIds = new Set(fw.modules.map((m) => m.id));
    const criterionIds = new Set<string>();
    const inputKeys = new Set<string>();
    const derivedNames = new Set(fw.derived.map((d) => d.name));
    fw.criteria.forEach((c, i) => {
      if (criterionIds.has(c.id)) issue(`duplicate criterion id ${c.id}`, ['criteria', i, 'id']);
      if (inputKeys.has(c.input_key)) issue(`duplicate input key ${c.input_key}`, ['criteria', i, 'input_key']);
      criterionIds.add(c.id);
      inputKeys.add(c.input_key);
      if (!moduleIds.has(c.module_id)) issue(`unknown module ${c.module_id}`, ['criteria', i, 'module_id']);
      const numeric = c.input.type === 'decimal' || c.input.type === 'integer';
      if (numeric !== (c.scale.kind === 'linear')) {
        issue('numeric inputs take a linear scale, enum and boolean inputs a table', ['criteria', i, 'scale']);
      }
      if (c.scale.kind === 'linear') {
        const xs = c.scale.anchors.map(([x]) => Number(x));
        if (xs.some((x, j) => j > 0 && x <= (xs[j - 1] as number))) {
          issue('anchors must be sorted by strictly increasing x', ['criteria', i, 'scale', 'anchors']);
        }
        if (c.scale.on !== 'input' && !derivedNames.has(c.scale.on)) {
          issue(`unknown derived quantity ${c.scale.on}`, ['criteria', i, 'scale', 'on']);
        }
      }
      if (c.scale.kind === 'table') {
        const values = c.scale.entries.map(([v]) => v);
        if (new Set(values).size !== values.length) issue('duplicate table value', ['criteria', i, 'scale']);
        if (c.input.type === 'boolean' && !(values.length === 2 && values.includes(true) && values.includes(false))) {
          issue('a boolean table maps exactly true and false', ['criteria', i, 'scale']);
        }
        if (c.input.type === 'enum' && values.some((v) => typeof v !== 'string')) {
          issue('an enum table maps strings', ['criteria', i, 'scale']);
        }
      }
    });
    const total = fw.criteria.reduce((acc, c) => acc + c.weight, 0);
    if (total !== 100) issue(`criterion weights sum to ${total}, not 100`, ['criteria']);
    fw.modules.forEach((m, i) => {
      const w = fw.criteria.filter((c) => c.module_id === m.id).reduce((acc, c) => acc + c.weight, 0);
      if (w !== m.weight) issue(`module ${m.id} weight ${m.weight} differs from its criteria's ${w}`, ['modules', i]);
    });
    const mins = fw.bands.map((b) => Number(b.min));
    if (mins.some((x, j) => j > 0 && x >= (mins[j - 1] as number))) {
      issue('bands run from lowest risk (highest minimum) to highest risk', ['bands']);
    }
    const checkOperand = (operand: string, path: (string | number)[]) => {
      if (!inputKeys.has(operand) && !derivedNames.has(operand)) issue(`unknown operand ${operand}`, path);
    };
    const checkCondition = (cond: ConditionShape, path: (string | number)[]) => {
      if (cond.op === 'all') {
        cond.of.forEach((c, j) => {
          checkCondition(c, [...path, 'of', j]);
        });
      } else if (cond.op === 'stale') {
        for (const id of cond.criteria) if (!criterionIds.has(id)) issue(`unknown criterion ${id}`, path);
      } else checkOperand(cond.operand, [...path, 'operand']);
    };
    fw.hard_caps.forEach((cap, i) => {
      checkCondition(cap.condition, ['hard_caps', i, 'condition']);
    });
  });

export type FrameworkDefinition = z.infer<typeof FrameworkDefinitionSchema>;
export type CriterionDefinition = FrameworkDefinition['criteria'][number];
export type HardCapDefinition = FrameworkDefinition['hard_caps'][number];
export type CapCondition = ConditionShape;

export const SignOffSchema = z.strictObject({
  role: z.literal('chief_risk_officer'),
  signed_off_by: plainText(z.string()).min(1),
  signed_off_on: IsoDate,
});
export type SignOff = z.infer<typeof SignOffSchema>;

/**
 * A framework definition with its hash and, once the chief risk officer has
 * approved it, its sign-off. The sign-off is not part of the hashed definition:
 * it attests to a definition, identified by `sha256`.
 */
export interface Framework {
  readonly definition: FrameworkDefinition;
  readonly sha256: string;
  readonly signOff: SignOff | null;
}
