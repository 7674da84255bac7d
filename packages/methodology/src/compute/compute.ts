import { daysBetween } from '../dates.js';
import { compare, type Dec, dec, minOf, percent, r2, sum, ZERO } from '../decimal.js';
import type { CriterionDefinition, Framework, FrameworkDefinition } from '../framework/schema.js';
import type { InputItem, InputsDocument, InputValue } from '../inputs/document.js';
import { type CapEvaluation, evaluateCap } from './caps.js';
import { type CompiledCriterion, type CompiledFramework, compile } from './compiled.js';
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
  const criteria = compiled.criteria.map((c) => criterionStep(c, document, fw, compiled));
  const uncapped = sum(criteria.map((c) => c.contribution));
  const caps = evaluateCaps(fw, compiled, document, criteria, uncapped);
  const fired = caps.filter((c) => c.fired).map((c) => compiled.caps.get(c.cap.id) as Dec);
  const capped = minOf(uncapped, fired);
  const finalScore = r2(capped);
  const confidence = confidenceOf(criteria);
  return {
    framework,
    document,
    criteria,
    uncapped,
    caps,
    capped,
    finalScore,
    band: bandOf(compiled, finalScore),
    confidence,
    publishable: compare(confidence, compiled.minConfidence) >= 0,
  };
}

function criterionStep(
  compiled: CompiledCriterion,
  doc: InputsDocument,
  fw: FrameworkDefinition,
  framework: CompiledFramework,
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
    if (scale.on === 'input') x = dec(item.value as number);
    else {
      derived = { name: scale.on, value: derive(scale.on, doc) as Dec };
      x = derived.value;
    }
  }
  const points = criterionPoints(compiled, x);
  const ageDays = daysBetween(item.as_of, doc.evaluation_date);
  const contribution = percent(weight.times(points));
  return {
    criterion,
    item,
    derived,
    points,
    contribution,
    // weight x (100 - points) / 100 = weight - contribution: every term is exact (points has 4 places).
    shortfall: weight.minus(contribution),
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
): CapStep[] {
  const byId = new Map(criteria.map((c) => [c.criterion.id, c]));
  const { numericInputKeys, derivedNames } = compiled;
  const ctx = {
    read(operand: string) {
      if (derivedNames.has(operand)) return { kind: 'derived' as const, value: derive(operand, doc) };
      const item = doc.inputs[operand];
      const value = !item ? null : numericInputKeys.has(operand) ? dec(item.value as number) : item.value;
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
