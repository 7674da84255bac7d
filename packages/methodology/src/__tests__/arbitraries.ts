import fc from 'fast-check';
import {
  type CriterionDefinition,
  currentFramework,
  type InputItem,
  type InputsDocument,
  type InputValue,
  isPlainText,
  PLANNER_TYPES,
  type Provider,
} from '../index.js';

/**
 * Bounded arbitraries of VALID approved-inputs documents under the current
 * framework (DCRF v1.0), defined once for every property test. Enum values,
 * domains and anchors are read from the framework data, never retyped.
 */

/** The fast-check seed: FC_SEED replays a printed failure; the default keeps every run the same. */
export const SEED: number = process.env.FC_SEED === undefined ? 20_260_401 : Number(process.env.FC_SEED);

export const FRAMEWORK = currentFramework();
export const DEFINITION = FRAMEWORK.definition;
export const CRITERIA: readonly CriterionDefinition[] = DEFINITION.criteria;

/** Decimal places of generated decimals: values up to a few hundred stay within ~8 significant digits. */
export const DECIMAL_PLACES = 4;

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------
// Exact decimal text as scaled integers (no binary floating point in the oracle).

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Decimal text (or a number written in plain notation) as an integer count of 10^-places. */
export function toUnits(value: string | number, places: number): bigint {
  const text = typeof value === 'number' ? String(value) : value;
  const m = DECIMAL_TEXT.exec(text);
  if (!m) throw new RangeError(`not plain decimal text: ${text}`);
  const fraction = m[3] ?? '';
  if (fraction.replace(/0+$/, '').length > places) throw new RangeError(`${text} has more than ${places} decimals`);
  const units = BigInt(`${m[2]}${fraction.slice(0, places).padEnd(places, '0')}`);
  return m[1] === '-' ? -units : units;
}

/** An integer count of 10^-places as decimal text with exactly `places` decimals. */
export function fromUnits(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}

/** Scaled units as a JSON number, through exact decimal text (at most ~8 significant digits, so exact). */
const numberOf = (units: bigint, places: number): number => Number(fromUnits(units, places));

// ---------------------------------------------------------------------------
// Dates.

export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
export const dayOfDate = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

const EFFECTIVE_DAY = dayOfDate(DEFINITION.effective_date);
const { full_until_days: FRESH_DAYS, decay_until_days: DECAY_DAYS } = DEFINITION.freshness;

/** Evaluation dates from the framework's effective date to about five years later. */
export const evaluationDayArb = fc.integer({ min: EFFECTIVE_DAY, max: EFFECTIVE_DAY + 5 * 366 });

/** Age of an input in days: fresh, decaying, stale, and the freshness boundaries themselves. */
export const ageDaysArb = fc.oneof(
  fc.constantFrom(0, FRESH_DAYS, FRESH_DAYS + 1, DECAY_DAYS, DECAY_DAYS + 1),
  fc.integer({ min: 0, max: FRESH_DAYS }),
  fc.integer({ min: FRESH_DAYS + 1, max: DECAY_DAYS }),
  fc.integer({ min: DECAY_DAYS + 1, max: 4 * DECAY_DAYS }),
);

const two = (n: number) => String(n).padStart(2, '0');

/** An ISO 8601 UTC timestamp, sometimes with fractional seconds. */
const timeOfDayArb = fc
  .record({
    h: fc.integer({ min: 0, max: 23 }),
    m: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
  })
  .map(({ h, m, s, fraction }) => `T${two(h)}:${two(m)}:${two(s)}${fraction === undefined ? '' : `.${fraction}`}Z`);

// ---------------------------------------------------------------------------
// Values of one criterion's input, from its domain and scale in the framework data.

/** Bounds (as scaled integers) within which a numeric input is generated. */
export interface NumericDomain {
  places: number;
  /** Inclusive; null where the framework sets no bound. */
  min: bigint | null;
  max: bigint | null;
  /** Where values are generated when the framework sets no bound. */
  low: bigint;
  high: bigint;
}

export function numericDomain(criterion: CriterionDefinition): NumericDomain {
  const { input, scale } = criterion;
  const places = input.type === 'integer' ? 0 : DECIMAL_PLACES;
  const min = 'min' in input && input.min !== undefined ? toUnits(input.min, places) : null;
  const max = 'max' in input && input.max !== undefined ? toUnits(input.max, places) : null;
  let low = min ?? 0n;
  let high = max ?? 0n;
  if (scale.kind === 'linear' && scale.on === 'input') {
    const xs = scale.anchors.map(([x]) => toUnits(x, places));
    const first = xs[0] ?? 0n;
    const last = xs[xs.length - 1] ?? 0n;
    const margin = (last - first) / 2n;
    low = min ?? first - margin;
    high = max ?? last + margin;
  }
  return { places, min, max, low, high };
}

const clampTo = (d: NumericDomain, units: bigint): bigint =>
  d.min !== null && units < d.min ? d.min : d.max !== null && units > d.max ? d.max : units;

/** Uniform in [low, high], with more weight on the lower fifth (where a derived spread's anchors sit). */
function unitsIn(d: NumericDomain): fc.Arbitrary<bigint> {
  const fifth = d.low + (d.high - d.low) / 5n;
  return fc.oneof(
    { arbitrary: fc.bigInt({ min: d.low, max: d.high }), weight: 2 },
    { arbitrary: fc.bigInt({ min: d.low, max: fifth }), weight: 2 },
  );
}

function numericValueArb(criterion: CriterionDefinition): fc.Arbitrary<number> {
  const d = numericDomain(criterion);
  const { scale } = criterion;
  const anchors =
    scale.kind === 'linear' && scale.on === 'input' ? scale.anchors.map(([x]) => toUnits(x, d.places)) : [];
  const near = anchors.length
    ? [fc.tuple(fc.constantFrom(...anchors), fc.constantFrom(-1n, 0n, 0n, 1n)).map(([x, step]) => clampTo(d, x + step))]
    : [];
  return fc.oneof(unitsIn(d), ...near).map((units) => numberOf(units, d.places));
}

/** The table entries (value, points) of an enum or boolean criterion. */
export function tableEntries(criterion: CriterionDefinition): readonly (readonly [string | boolean, string])[] {
  return criterion.scale.kind === 'table' ? criterion.scale.entries : [];
}

export function valueArb(criterion: CriterionDefinition): fc.Arbitrary<InputValue> {
  switch (criterion.input.type) {
    case 'enum':
    case 'boolean':
      return fc.constantFrom(...tableEntries(criterion).map(([value]) => value));
    case 'decimal':
    case 'integer':
      return numericValueArb(criterion);
  }
}

// ---------------------------------------------------------------------------
// Documents.

/**
 * Non-empty free text: mostly readable, sometimes any Unicode code point the free-text rule keeps
 * (never a lone surrogate, a control character, a line separator or a bidi override).
 */
const textArb = (maxLength: number) =>
  fc
    .oneof(
      fc.string({ minLength: 1, maxLength: Math.min(maxLength, 40) }),
      fc.string({ unit: 'binary', minLength: 1, maxLength }),
    )
    .filter((s) => isPlainText(s));

/** An input item before it is dated against the evaluation date. */
export interface ItemDraft {
  value: InputValue;
  ageDays: number;
  source: string;
  approved_by: string;
  /** approved_at = as_of plus this many days, at timeOfDay. */
  approvedAfterDays: number;
  timeOfDay: string;
}

const itemDraftArb = (value: fc.Arbitrary<InputValue>, age: fc.Arbitrary<number>): fc.Arbitrary<ItemDraft> =>
  fc.record({
    value,
    ageDays: age,
    source: textArb(80),
    approved_by: textArb(40),
    approvedAfterDays: fc.integer({ min: 0, max: 30 }),
    timeOfDay: timeOfDayArb,
  });

export function itemOf(draft: ItemDraft, evaluationDay: number): InputItem {
  const asOfDay = evaluationDay - draft.ageDays;
  return {
    value: draft.value,
    as_of: dateOfDay(asOfDay),
    source: draft.source,
    approved_by: draft.approved_by,
    approved_at: `${dateOfDay(asOfDay + draft.approvedAfterDays)}${draft.timeOfDay}`,
  };
}

/** Annual yields in percent, 0..100, mostly below 20 so that spreads over a benchmark reach every anchor. */
const yieldArb = unitsIn({
  places: DECIMAL_PLACES,
  min: null,
  max: null,
  low: 0n,
  high: toUnits('100', DECIMAL_PLACES),
});

export const providerArb: fc.Arbitrary<Provider> = fc
  .record({
    id: fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.toUpperCase()),
    ),
    name: textArb(200),
    planner_type: fc.constantFrom(...PLANNER_TYPES),
    provider_subtype: fc.stringMatching(/^[a-z0-9_]{1,64}$/),
    yields: fc.tuple(yieldArb, yieldArb).map(([a, b]) => (a <= b ? [a, b] : [b, a])),
  })
  .map(({ yields: [low, high], ...provider }) => ({
    ...provider,
    yield_min: numberOf(low as bigint, DECIMAL_PLACES),
    yield_max: numberOf(high as bigint, DECIMAL_PLACES),
  }));

const FLOOR_POINTS = toUnits(DEFINITION.decision.floor_min_points, DECIMAL_PLACES);

/** The input that gives a derived quantity: spread_bps = (provider.yield_max - benchmark) x 100, so benchmark = yield_max - spread / 100. */
const INPUT_FOR_DERIVED: Record<string, (derived: bigint, provider: Provider) => bigint> = {
  spread_bps: (spread, provider) => toUnits(provider.yield_max, DECIMAL_PLACES) - spread / 100n,
};

/**
 * A value scoring near or above the framework's floor-factor threshold (70
 * points): a table entry at or above it, or a numeric value close to an
 * anchor at or above it. Such documents reach the better bands.
 */
function strongValueArb(criterion: CriterionDefinition, provider: Provider): fc.Arbitrary<InputValue> {
  const { scale } = criterion;
  if (scale.kind === 'table') {
    const strong = scale.entries.filter(([, p]) => toUnits(p, DECIMAL_PLACES) >= FLOOR_POINTS).map(([v]) => v);
    return fc.constantFrom(...strong);
  }
  const d = numericDomain(criterion);
  const onInput = scale.on === 'input';
  const xPlaces = onInput ? d.places : DECIMAL_PLACES;
  const xs = scale.anchors.map(([x, p]) => [toUnits(x, xPlaces), toUnits(p, DECIMAL_PLACES)] as const);
  const first = xs[0]?.[0] ?? 0n;
  const jitter = ((xs[xs.length - 1]?.[0] ?? first) - first) / 20n;
  const anchors = xs.filter(([, p]) => p >= FLOOR_POINTS).map(([x]) => x);
  const toInput = onInput
    ? (x: bigint) => x
    : (x: bigint) => (INPUT_FOR_DERIVED[scale.on] as (x: bigint, p: Provider) => bigint)(x, provider);
  return fc
    .tuple(fc.constantFrom(...anchors), fc.bigInt({ min: -jitter, max: jitter }))
    .map(([x, j]) => numberOf(clampTo(d, toInput(x + j)), d.places));
}

const freshAgeArb = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: FRESH_DAYS }), weight: 4 },
  { arbitrary: ageDaysArb, weight: 1 },
);

type InputDrafts = Partial<Record<string, ItemDraft>>;

const toDocument = ({
  provider,
  evaluationDay,
  inputs,
}: {
  provider: Provider;
  evaluationDay: number;
  inputs: InputDrafts;
}): InputsDocument => ({
  provider,
  evaluation_date: dateOfDay(evaluationDay),
  inputs: Object.fromEntries(
    Object.entries(inputs).flatMap(([key, draft]) => (draft ? [[key, itemOf(draft, evaluationDay)]] : [])),
  ),
});

const draftsOf = <T>(item: (c: CriterionDefinition) => fc.Arbitrary<T>) =>
  Object.fromEntries(CRITERIA.map((c) => [c.input_key, item(c)]));

/** Any subset of the criteria present, any value in each domain, any age. */
const sparseDocumentArb = fc
  .record({
    provider: providerArb,
    evaluationDay: evaluationDayArb,
    inputs: fc.record(
      draftsOf((c) => itemDraftArb(valueArb(c), ageDaysArb)),
      { requiredKeys: [] },
    ),
  })
  .map(toDocument);

/** Every criterion present, any value in each domain, any age. */
const completeDocumentArb = fc
  .record({
    provider: providerArb,
    evaluationDay: evaluationDayArb,
    inputs: fc.record(draftsOf((c) => itemDraftArb(valueArb(c), ageDaysArb))),
  })
  .map(toDocument);

/** Most criteria present with strong, mostly fresh evidence: the documents that reach MEDIUM and LOW. */
const strongDocumentArb = fc
  .record({ provider: providerArb, evaluationDay: evaluationDayArb })
  .chain(({ provider, evaluationDay }) =>
    fc
      .record(
        draftsOf((c) => {
          const value = fc.oneof(
            { arbitrary: strongValueArb(c, provider), weight: 6 },
            { arbitrary: valueArb(c), weight: 1 },
          );
          // Present seven times in eight.
          return fc.option(itemDraftArb(value, freshAgeArb), { freq: 8, nil: undefined });
        }),
      )
      .map((inputs) => toDocument({ provider, evaluationDay, inputs })),
  );

/** A valid approved-inputs document: every as_of on or before the evaluation date, every band reachable. */
export const documentArb: fc.Arbitrary<InputsDocument> = fc.oneof(
  sparseDocumentArb,
  completeDocumentArb,
  strongDocumentArb,
);

/** A valid document with at least one input present. */
export const documentWithInputsArb = documentArb.filter((doc) => Object.keys(doc.inputs).length > 0);

/** The criterion of an input key. */
export function criterionOf(inputKey: string): CriterionDefinition {
  const found = CRITERIA.find((c) => c.input_key === inputKey);
  if (!found) throw new RangeError(`no criterion reads ${inputKey}`);
  return found;
}

// ---------------------------------------------------------------------------
// Improvements: another value of the same input whose points are not lower.

/** How a derived quantity moves as the input it is derived from rises: spread_bps = (yield_max - benchmark) x 100 falls. */
const DERIVED_SLOPE: Record<string, 1 | -1> = { spread_bps: -1 };

/** +1 when points never fall as the input rises, -1 when they never rise (read from the anchors), 0 otherwise. */
export function improvingDirection(criterion: CriterionDefinition): 1 | -1 | 0 {
  const { scale } = criterion;
  if (scale.kind !== 'linear') return 0;
  const points = scale.anchors.map(([, p]) => toUnits(p, DECIMAL_PLACES));
  const rising = points.every((p, i) => i === 0 || p >= (points[i - 1] as bigint));
  const falling = points.every((p, i) => i === 0 || p <= (points[i - 1] as bigint));
  const onScale = rising ? 1 : falling ? -1 : 0;
  const slope = scale.on === 'input' ? 1 : (DERIVED_SLOPE[scale.on] ?? 0);
  return (onScale * slope) as 1 | -1 | 0;
}

/**
 * A value for `criterion` whose points are at least those of `current`: a table
 * entry with no fewer points, or a numeric value moved (by zero, a little or a
 * lot, within the domain) in the direction in which points do not fall.
 */
export function improvedValueArb(criterion: CriterionDefinition, current: InputValue): fc.Arbitrary<InputValue> {
  if (criterion.scale.kind === 'table') {
    const entries = tableEntries(criterion);
    const now = entries.find(([v]) => v === current);
    if (!now) throw new RangeError(`${String(current)} is not in the table of ${criterion.id}`);
    const atLeast = entries.filter(([, p]) => toUnits(p, DECIMAL_PLACES) >= toUnits(now[1], DECIMAL_PLACES));
    return fc.constantFrom(...atLeast.map(([v]) => v));
  }
  const direction = improvingDirection(criterion);
  if (direction === 0) throw new RangeError(`the scale of ${criterion.id} is not monotone`);
  const d = numericDomain(criterion);
  const from = toUnits(current as number, d.places);
  const span = d.high - d.low;
  const step = fc.oneof(
    fc.constant(0n),
    fc.bigInt({ min: 1n, max: span / 20n > 1n ? span / 20n : 1n }),
    fc.bigInt({ min: 0n, max: span }),
  );
  return step.map((delta) => numberOf(clampTo(d, from + BigInt(direction) * delta), d.places));
}

/**
 * Lets the test worker's event loop run between the runs of a long property: vitest's worker answers its runner
 * over a channel with a fixed 60 s timeout, and a property that computes for longer without a pause (seconds
 * alone, a minute on a loaded machine) fails the run with "Timeout calling onTaskUpdate" though every test passed.
 */
export const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
