import { type CapContext, evaluateCap } from '../compute/caps.js';
import {
  type CompiledCriterion,
  type CompiledFramework,
  compile,
  contributionOf,
  oncePerFramework,
  type PerFramework,
} from '../compute/compiled.js';
import type { Computation } from '../compute/compute.js';
import { derive } from '../compute/derived.js';
import { criterionPoints } from '../compute/scale.js';
import { daysBetween } from '../dates.js';
import { type Dec, dec, minOf, r2, sum, ZERO } from '../decimal.js';
import type {
  CapCondition,
  CriterionDefinition,
  Framework,
  FrameworkDefinition,
  HardCapDefinition,
} from '../framework/schema.js';
import type { InputItem, InputsDocument, InputValue } from '../inputs/document.js';
import { whatIfItem } from './overrides.js';

/** The figures of a scoring that a search and its step read: a part of the engine's Computation. */
export interface Scored {
  uncapped: Dec;
  capped: Dec;
  finalScore: Dec;
  band: { band: string };
  /** Every hard cap, in table order, and whether it fires. */
  caps: { fired: boolean; cap: HardCapDefinition }[];
}

/** One value tried for a criterion's input, everything else as in the document. */
export interface Trial {
  value: InputValue;
  computation: Scored;
  /** The criterion's own points at this value (null for a search that does not record them). */
  points: Dec | null;
}

/** The outcome of searching one criterion's values for the next band. */
export type Outcome =
  /** The smallest improvement that reaches the band. */
  | { kind: 'reached'; trial: Trial }
  /** No value reaches it; `best` is the least improvement that scores the most. */
  | { kind: 'short'; best: Trial }
  /** No value better than the current one scores more. */
  | { kind: 'at-best'; best: Trial }
  | { kind: 'not-monotone' };

/**
 * Tries values of one criterion's input. A missing or stale input is tried as
 * fresh evidence dated on the evaluation date: the suggestion is then to
 * provide (or renew) it, which also lifts the stale-evidence cap it may trigger.
 */
export interface Probe {
  criterion: CriterionDefinition;
  /** The current value, null when missing. */
  current: InputValue | null;
  /** Whether trials date the evidence on the evaluation date. */
  refresh: boolean;
  /** The document with the input set to `value`. */
  documentWith(value: InputValue): InputsDocument;
  trial(value: InputValue): Trial;
  reaches(trial: Trial): boolean;
}

/**
 * A probe that scores a trial from the document's own computation (`now`), re-doing only what one input moves:
 * the points of the criteria that read it (directly or through a derived quantity), the sum of contributions in
 * framework order, the hard caps that read it, its age or a quantity derived from it, the rounding and the band.
 * Each figure is the engine's own function on the same operands, so a trial equals compute() of documentWith(value)
 * in every figure it carries (property-tested against the engine).
 */
export function probeOf(
  criterion: CriterionDefinition,
  document: InputsDocument,
  framework: Framework,
  now: Computation,
  target: Dec,
  isStale: (item: InputItem) => boolean,
): Probe {
  const key = criterion.input_key;
  const item = document.inputs[key];
  const refresh = item === undefined || isStale(item);
  const base = item ?? whatIfItem(document, false);
  const as_of = refresh ? document.evaluation_date : base.as_of;
  const documentWith = (value: InputValue): InputsDocument => ({
    ...document,
    inputs: { ...document.inputs, [key]: { ...base, value, as_of } },
  });
  const score = scorerOf(criterion, framework, now, daysBetween(as_of, document.evaluation_date));
  // The trials' document: one per probe, its input set again for each trial. A trial only reads the document and
  // keeps nothing of it, so no trial sees another's value. (An input key is never "__proto__": see InputKey.)
  const trialInputs: Record<string, InputItem> = { ...document.inputs };
  const trialDocument: InputsDocument = { ...document, inputs: trialInputs };
  return {
    criterion,
    current: item === undefined ? null : item.value,
    refresh,
    documentWith,
    trial: (value) => {
      trialInputs[key] = { ...base, value, as_of };
      return score(value, trialDocument);
    },
    reaches: (trial) => trial.computation.finalScore.gte(target),
  };
}

function scorerOf(
  criterion: CriterionDefinition,
  framework: Framework,
  now: Computation,
  ageDays: number,
): (value: InputValue, doc: InputsDocument) => Trial {
  const fw = framework.definition;
  const compiled = compile(fw);
  const { own, moved, capsMoved } = reachOf(fw, criterion);
  const { ages, contributions } = baseOf(now);
  const ageOf = (id: string) => (id === criterion.id ? ageDays : (ages.get(id) ?? null));
  // The sum of the contributions no trial moves: the document's uncapped score less those it moves (exact sums:
  // any order gives compute's sum); or none when the framework's sums could round, and every trial adds all of
  // them in framework order.
  const unmoved = compiled.exactSums
    ? moved.reduce((rest, i) => rest.minus(contributions[i] as Dec), now.uncapped)
    : null;
  return (value, doc) => {
    const parts = unmoved === null ? [...contributions] : [];
    let points: Dec = ZERO;
    for (const i of moved) {
      const p = pointsOf(compiled, i, doc);
      if (i === own) points = p ?? ZERO;
      const part = p === null ? ZERO : contributionOf(compiled.criteria[i] as CompiledCriterion, p);
      if (unmoved === null) parts[i] = part;
      else parts.push(part);
    }
    const uncapped = unmoved === null ? sum(parts) : parts.reduce((acc, part) => acc.plus(part), unmoved);
    const ctx = capContext(compiled, doc, ageOf);
    const caps = fw.hard_caps.map((cap, i) => ({
      cap,
      fired: capsMoved[i] ? evaluateCap(cap, ctx).fired : (now.caps[i] as { fired: boolean }).fired,
    }));
    const fired = caps.filter((c) => c.fired).map((c) => compiled.caps.get(c.cap.id) as Dec);
    const capped = minOf(uncapped, fired);
    const finalScore = r2(capped);
    return { value, points, computation: { uncapped, capped, finalScore, band: bandOf(compiled, finalScore), caps } };
  };
}

/** What a change of one criterion's input reaches: its index, the criteria whose points move, the caps that read it. */
interface Reach {
  own: number;
  moved: number[];
  capsMoved: boolean[];
}

const reaches: PerFramework<Reach> = new WeakMap();

/** A criterion's reach in a framework, worked out once. */
function reachOf(fw: FrameworkDefinition, criterion: CriterionDefinition): Reach {
  return oncePerFramework(reaches, fw, criterion.id, () => {
    const key = criterion.input_key;
    const derivedFrom = new Set(fw.derived.filter((d) => d.reads.includes(key)).map((d) => d.name));
    const reads = (operand: string) => operand === key || derivedFrom.has(operand);
    const own = fw.criteria.findIndex((c) => c.id === criterion.id);
    return {
      own,
      moved: fw.criteria.flatMap((c, i) =>
        i === own || (c.scale.kind === 'linear' && derivedFrom.has(c.scale.on)) ? [i] : [],
      ),
      capsMoved: fw.hard_caps.map((cap) => readsInput(cap.condition, reads, criterion.id)),
    };
  });
}

/** The document's own figures every criterion's trials start from: ages and contributions, read once. */
const bases = new WeakMap<Computation, { ages: Map<string, number | null>; contributions: Dec[] }>();

function baseOf(now: Computation): { ages: Map<string, number | null>; contributions: Dec[] } {
  let base = bases.get(now);
  if (!base) {
    base = {
      ages: new Map(now.criteria.map((c) => [c.criterion.id, c.ageDays])),
      contributions: now.criteria.map((c) => c.contribution),
    };
    bases.set(now, base);
  }
  return base;
}

/** A criterion's points in `doc` as the engine takes them (criterionStep); null when its input is missing. */
function pointsOf(compiled: CompiledFramework, index: number, doc: InputsDocument): Dec | null {
  const c = compiled.criteria[index] as CompiledFramework['criteria'][number];
  const item = doc.inputs[c.definition.input_key];
  if (item === undefined) return null;
  const { scale } = c.definition;
  if (scale.kind !== 'linear') return criterionPoints(c, item.value);
  return criterionPoints(c, scale.on === 'input' ? dec(item.value as number) : (derive(scale.on, doc) as Dec));
}

/** What the engine's cap evaluation reads (compute's evaluateCaps), over `doc`. */
function capContext(
  compiled: CompiledFramework,
  doc: InputsDocument,
  ageOf: (criterionId: string) => number | null,
): CapContext {
  const { numericInputKeys, derivedNames } = compiled;
  return {
    read(operand) {
      if (derivedNames.has(operand)) return { kind: 'derived', value: derive(operand, doc) };
      const item = doc.inputs[operand];
      const value = !item ? null : numericInputKeys.has(operand) ? dec(item.value as number) : item.value;
      return { kind: 'input', value };
    },
    ageOf,
  };
}

/** Whether a cap condition reads the input, a quantity derived from it, or the age of its criterion. */
function readsInput(cond: CapCondition, reads: (operand: string) => boolean, criterionId: string): boolean {
  if (cond.op === 'all') return cond.of.some((c) => readsInput(c, reads, criterionId));
  if (cond.op === 'stale') return cond.criteria.includes(criterionId);
  return reads(cond.operand);
}

/** The band of a final score, as compute's bandOf. */
function bandOf(compiled: CompiledFramework, finalScore: Dec): { band: string } {
  const { bands } = compiled;
  const index = bands.findIndex((b) => finalScore.gte(b.min));
  return { band: (bands[index === -1 ? bands.length - 1 : index] as { band: string }).band };
}
