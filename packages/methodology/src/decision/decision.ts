import type { CapStep, Computation, CriterionStep } from '../compute/compute.js';
import { type Dec, dec, fixed, r2, ZERO } from '../decimal.js';
import { factorDetail, listOf } from './wording.js';

export interface FactorStep {
  step: CriterionStep;
  pointImpact: Dec;
  detail: string;
}

export interface Decision {
  summary: string;
  ceiling: FactorStep[];
  floor: FactorStep[];
  capsFired: CapStep[];
}

/** Largest first; a stable sort keeps framework order among ties. */
const byLargest = (key: (s: CriterionStep) => Dec) => (a: CriterionStep, b: CriterionStep) => key(b).comparedTo(key(a));

/** The decision object of methodology section 8. */
export function decide(c: Computation): Decision {
  const fw = c.framework.definition;
  const places = fw.arithmetic.points_places;
  const ceiling = c.criteria
    .filter((s) => s.shortfall.gt(ZERO))
    .sort(byLargest((s) => s.shortfall))
    .slice(0, fw.decision.max_ceiling_factors)
    .map((step) => ({ step, pointImpact: r2(step.shortfall).neg(), detail: factorDetail(step, places) }));
  const floorMin = dec(fw.decision.floor_min_points);
  const floor = c.criteria
    .filter((s) => s.points.gte(floorMin))
    .sort(byLargest((s) => s.contribution))
    .slice(0, fw.decision.max_floor_factors)
    .map((step) => ({ step, pointImpact: r2(step.contribution), detail: factorDetail(step, places) }));
  const capsFired = c.caps.filter((cap) => cap.fired);
  return { summary: summaryOf(c, ceiling, floor, capsFired), ceiling, floor, capsFired };
}

function summaryOf(c: Computation, ceiling: FactorStep[], floor: FactorStep[], caps: CapStep[]): string {
  const fw = c.framework.definition;
  const name = c.document.provider.name;
  const score = fixed(c.finalScore, fw.arithmetic.final_score_places);
  const where = c.band.next
    ? `${fixed(c.band.next.pointsTo, 2)} points below ${c.band.next.band}`
    : 'the lowest-risk band';
  const anchored = floor.length
    ? `anchored by ${listOf(floor.map((f) => f.step.criterion.label))}`
    : `with no criterion at ${fw.decision.floor_min_points} points or more`;
  const held = ceiling.length
    ? `held back by ${listOf(ceiling.map((f) => f.step.criterion.label))}`
    : 'with nothing holding it back';
  const binding = caps.filter((cap) => cap.binding);
  const capped = binding.length
    ? `capped at ${fixed(dec(lowestCap(binding)), 2)} by ${listOf(binding.map((b) => `${b.cap.id} ${b.cap.label}`))}`
    : 'no hard cap binds';
  return `${name} scores ${score} (${c.band.band}, ${where}) under ${fw.framework_version}, ${anchored}, ${held}; ${capped}.`;
}

function lowestCap(binding: CapStep[]): string {
  return binding.map((b) => b.cap.cap).reduce((low, cap) => (dec(cap).lt(dec(low)) ? cap : low));
}
