import { daysBetween } from '../dates.js';
import { type Dec, dec, HUNDRED, minOf, r2, r4, sum, ZERO } from '../decimal.js';
import type { Framework } from '../framework/framework.js';
import type { CriterionDefinition, FrameworkDefinition } from '../framework/schema.js';
import type { InputItem, InputsDocument, InputValue } from '../inputs/document.js';
import { type CapEvaluation, evaluateCap } from './caps.js';
import { derive } from './derived.js';
import { freshnessFactor } from './freshness.js';
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
  const criteria = fw.criteria.map((c) => criterionStep(c, document, fw));
  const uncapped = sum(criteria.map((c) => c.contribution));
  const caps = evaluateCaps(fw, document, criteria, uncapped);
  const fired = caps.filter((c) => c.fired).map((c) => dec(c.cap.cap));
  const capped = minOf(uncapped, fired);
  const finalScore = r2(capped);
  const confidence = r4(sum(criteria.map((c) => c.freshness.times(c.criterion.weight))).div(HUNDRED));
  return {
    framework,
    document,
    criteria,
    uncapped,
    caps,
    capped,
    finalScore,
    band: bandOf(fw, finalScore),
    confidence,
    publishable: confidence.gte(dec(fw.publication.min_confidence)),
  };
}

function criterionStep(criterion: CriterionDefinition, doc: InputsDocument, fw: FrameworkDefinition): CriterionStep {
  const item = doc.inputs[criterion.input_key] ?? null;
  if (item === null) {
    const weight = dec(criterion.weight);
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
  const points = criterionPoints(criterion, x);
  const weight = dec(criterion.weight);
  const ageDays = daysBetween(item.as_of, doc.evaluation_date);
  return {
    criterion,
    item,
    derived,
    points,
    contribution: weight.times(points).div(HUNDRED),
    shortfall: weight.times(HUNDRED.minus(points)).div(HUNDRED),
    ageDays,
    freshness: freshnessFactor(fw.freshness, ageDays),
  };
}

function evaluateCaps(
  fw: FrameworkDefinition,
  doc: InputsDocument,
  criteria: CriterionStep[],
  uncapped: Dec,
): CapStep[] {
  const byId = new Map(criteria.map((c) => [c.criterion.id, c]));
  const numericKeys = new Set(fw.criteria.filter((c) => c.scale.kind === 'linear').map((c) => c.input_key));
  const derivedNames = new Set(fw.derived.map((d) => d.name));
  const ctx = {
    read(operand: string) {
      if (derivedNames.has(operand)) return { kind: 'derived' as const, value: derive(operand, doc) };
      const item = doc.inputs[operand];
      const value = !item ? null : numericKeys.has(operand) ? dec(item.value as number) : item.value;
      return { kind: 'input' as const, value };
    },
    ageOf: (id: string) => byId.get(id)?.ageDays ?? null,
  };
  return fw.hard_caps.map((cap) => {
    const evaluation = evaluateCap(cap, ctx);
    const capValue = dec(cap.cap);
    const binding = evaluation.fired && capValue.lt(uncapped);
    return { ...evaluation, binding, pointImpact: binding ? r2(capValue.minus(uncapped)) : ZERO };
  });
}

function bandOf(fw: FrameworkDefinition, finalScore: Dec): BandStep {
  const index = fw.bands.findIndex((b) => finalScore.gte(dec(b.min)));
  const at = index === -1 ? fw.bands.length - 1 : index;
  const better = at > 0 ? fw.bands[at - 1] : undefined;
  return {
    band: (fw.bands[at] as { band: string }).band,
    next: better ? { band: better.band, pointsTo: dec(better.min).minus(finalScore) } : null,
  };
}
