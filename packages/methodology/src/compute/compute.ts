import { daysBetween } from '../dates.js';
import { compare, type Dec, dec, minOf, r2, sum, ZERO } from '../decimal.js';
import type { CriterionDefinition, Framework, FrameworkDefinition } from '../framework/schema.js';
import type { InputItem, InputsDocument, InputValue } from '../inputs/document.js';
import { type CapEvaluation, evaluateCap } from './caps.js';
import { type CompiledCriterion, type CompiledFramework, compile, partsOf } from './compiled.js';
import { derive } from './derived.js';
import { confidenceOf, freshnessFactor } from './freshness.js';
import { criterionPoints } from './scale.js';

export interface CriterionStep {
  criterion: CriterionDefinition;
  /** The approved input, or null when it is missing. */
  item: InputItem | null;
  /** The derived quantity the scale reads, when it reads one. */
  derived: { name: string; value: Dec } | null;
  points: Dec;
  contribution: Dec;
  /** weight x (100 - points) / 100; the whole weight when missing. */
  shortfall: Dec;
  ageDays: number | null;
  freshness: Dec;
}

export interface CapStep extends CapEvaluation {
  binding: boolean;
  /** r2(cap - uncapped) when binding, else 0. */
  pointImpact: Dec;
}

export interface BandStep {
  band: string;
  /** The next better band, absent for the lowest-risk band. */
  next: { band: string; pointsTo: Dec } | null;
}

/** Every intermediate figure of one scoring, exact, in framework order. */
export interface Computation {
  framework: Framework;
  document: InputsDocument;
  criteria: CriterionStep[];
  /** Each module's score, the sum of its criteria's contributions, in framework order. */
  moduleScores: Dec[];
  uncapped: Dec;
  caps: CapStep[];
  capped: Dec;
  finalScore: Dec;
  band: BandStep;
  confidence: Dec;
  publishable: boolean;
}

/** Runs the methodology on a validated document. Pure: same document, same computation. */
export function compute(document: InputsDocument, framework: Framework): Computation {
  const fw = framework.definition;
  const compiled = compile(fw);
  const read = readerOf(document);
  const criteria = compiled.criteria.map((c) => criterionStep(c, document, fw, compiled, read));
  const moduleScores = compiled.moduleCriteria.map((indexes) =>
    sum(indexes.map((i) => (criteria[i] as CriterionStep).contribution)),
  );
  // With exact sums (CompiledFramework.exactSums) any order of adding gives the same value: the modules' scores
  // add up to the sum in framework order, with one addition a module rather than one a criterion.
  const uncapped = compiled.exactSums ? sum(moduleScores) : sum(criteria.map((c) => c.contribution));
  const caps = evaluateCaps(fw, compiled, document, criteria, uncapped, read);
  const fired = caps.filter((c) => c.fired).map((c) => compiled.caps.get(c.cap.id) as Dec);
  const capped = minOf(uncapped, fired);
  const finalScore = r2(capped);
  const confidence = confidenceOf(criteria, compiled.freshnessUnits);
  return {
    framework,
    document,
    criteria,
    moduleScores,
    uncapped,
    caps,
    capped,
    finalScore,
    band: bandOf(compiled, finalScore),
    confidence,
    publishable: compare(confidence, compiled.minConfidence) >= 0,
  };
}

/**
 * A document's numeric inputs and derived quantities as decimals, each parsed or derived once for one computation
 * (a criterion's scale and a cap's condition may read the same one).
 */
interface Reader {
  number(key: string): Dec;
  derived(name: string): Dec | null;
}

function readerOf(doc: InputsDocument): Reader {
  const numbers = new Map<string, Dec>();
  const derived = new Map<string, Dec | null>();
  return {
    number(key) {
      let value = numbers.get(key);
      if (value === undefined) {
        value = dec((doc.inputs[key] as InputItem).value as number);
        numbers.set(key, value);
      }
      return value;
    },
    derived(name) {
      let value = derived.get(name);
      if (value === undefined) {
        value = derive(name, doc);
        derived.set(name, value);
      }
      return value;
    },
  };
}

function criterionStep(
  compiled: CompiledCriterion,
  doc: InputsDocument,
  fw: FrameworkDefinition,
  framework: CompiledFramework,
  read: Reader,
): CriterionStep {
  const criterion = compiled.definition;
  const { weight } = compiled;
  const item = doc.inputs[criterion.input_key] ?? null;
  if (item === null) {
    return {
      criterion,
      item,
      derived: null,
      points: ZERO,
      contribution: ZERO,
      shortfall: weight,
      ageDays: null,
      freshness: ZERO,
    };
  }
  const { scale } = criterion;
  let derived: CriterionStep['derived'] = null;
  let x: Dec | InputValue = item.value;
  if (scale.kind === 'linear') {
    if (scale.on === 'input') x = read.number(criterion.input_key);
    else {
      derived = { name: scale.on, value: read.derived(scale.on) as Dec };
      x = derived.value;
    }
  }
  const points = criterionPoints(compiled, x);
  const ageDays = daysBetween(item.as_of, doc.evaluation_date);
  // A table's points are its own decimals, whose parts were computed once.
  const { contribution, shortfall } = compiled.parts.get(points) ?? partsOf(compiled, points);
  return {
    criterion,
    item,
    derived,
    points,
    contribution,
    shortfall,
    ageDays,
    freshness: freshnessFactor(fw.freshness, framework, ageDays),
  };
}

function evaluateCaps(
  fw: FrameworkDefinition,
  compiled: CompiledFramework,
  doc: InputsDocument,
  criteria: CriterionStep[],
  uncapped: Dec,
  read: Reader,
): CapStep[] {
  const byId = new Map(criteria.map((c) => [c.criterion.id, c]));
  const { numericInputKeys, derivedNames } = compiled;
  const ctx = {
    read(operand: string) {
      if (derivedNames.has(operand)) return { kind: 'derived' as const, value: read.derived(operand) };
      const item = doc.inputs[operand];
      const value = !item ? null : numericInputKeys.has(operand) ? read.number(operand) : item.value;
      return { kind: 'input' as const, value };
    },
    ageOf: (id: string) => byId.get(id)?.ageDays ?? null,
  };
  return fw.hard_caps.map((cap) => {
    const evaluation = evaluateCap(cap, ctx);
    const capValue = compiled.caps.get(cap.id) as Dec;
    const binding = evaluation.fired && compare(capValue, uncapped) < 0;
    const pointImpact = binding ? r2(capValue.minus(uncapped)) : ZERO;
    return { cap: evaluation.cap, operands: evaluation.operands, fired: evaluation.fired, binding, pointImpact };
  });
}

function bandOf(compiled: CompiledFramework, finalScore: Dec): BandStep {
  const { bands } = compiled;
  const index = bands.findIndex((b) => compare(finalScore, b.min) >= 0);
  const at = index === -1 ? bands.length - 1 : index;
  const better = at > 0 ? bands[at - 1] : undefined;
  return {
    band: (bands[at] as { band: string }).band,
    next: better ? { band: better.band, pointsTo: better.min.minus(finalScore) } : null,
  };
}
