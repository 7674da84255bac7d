import { compile } from '../compute/compiled.js';
import type { CapStep, Computation, CriterionStep } from '../compute/compute.js';
import { compare, type Dec, dec, r2, ZERO } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import { fill } from './templates.js';

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
const byLargest = (key: (s: CriterionStep) => Dec) => (a: CriterionStep, b: CriterionStep) => compare(key(b), key(a));

/** The decision object of methodology section 8. */
export function decide(c: Computation): Decision {
  const fw = c.framework.definition;
  const ceiling = c.criteria
    .filter((s) => compare(s.shortfall, ZERO) > 0)
    .sort(byLargest((s) => s.shortfall))
    .slice(0, fw.decision.max_ceiling_factors)
    .map((step) => ({ step, pointImpact: r2(step.shortfall).neg(), detail: factorDetail(step, fw) }));
  const floorMin = compile(fw).floorMinPoints;
  const floor = c.criteria
    .filter((s) => compare(s.points, floorMin) >= 0)
    .sort(byLargest((s) => s.contribution))
    .slice(0, fw.decision.max_floor_factors)
    .map((step) => ({ step, pointImpact: r2(step.contribution), detail: factorDetail(step, fw) }));
  const capsFired = c.caps.filter((cap) => cap.fired);
  return { summary: summaryOf(c, ceiling, floor, capsFired), ceiling, floor, capsFired };
}

/** Per-factor detail, e.g. "Collateral coverage 1.35 scores 75.0000 of 100" (templates `detail*`). */
function factorDetail(step: CriterionStep, fw: FrameworkDefinition): string {
  const { criterion, item, derived } = step;
  if (item === null) {
    return fill('detail_missing', { criterion_label: criterion.label, input_key: criterion.input_key }, fw);
  }
  const values = { criterion_label: criterion.label, input_value: item.value, points: step.points };
  if (derived !== null && derived.name === 'spread_bps') {
    return fill('detail_derived_spread_bps', { ...values, spread_bps: derived.value }, fw);
  }
  return fill('detail', values, fw);
}

/** The summary sentence (template `summary` and the templates of its slots). */
function summaryOf(c: Computation, ceiling: FactorStep[], floor: FactorStep[], caps: CapStep[]): string {
  const fw = c.framework.definition;
  const labels = (factors: FactorStep[]) => factors.map((f) => f.step.criterion.label);
  const where = c.band.next
    ? fill('summary_where_next', { points_to_next_band: c.band.next.pointsTo, next_band: c.band.next.band }, fw)
    : fill('summary_where_lowest', {}, fw);
  const anchored = floor.length
    ? fill('summary_anchored', { floor_labels: labels(floor) }, fw)
    : fill('summary_anchored_none', { floor_min_points: fw.decision.floor_min_points }, fw);
  const held = ceiling.length
    ? fill('summary_held', { ceiling_labels: labels(ceiling) }, fw)
    : fill('summary_held_none', {}, fw);
  const binding = caps.filter((cap) => cap.binding);
  const named = binding.map((b) => fill('summary_cap_named', { cap_id: b.cap.id, cap_label: b.cap.label }, fw));
  const capped = binding.length
    ? fill('summary_capped', { lowest_cap: dec(lowestCap(binding)), binding_caps: named }, fw)
    : fill('summary_capped_none', {}, fw);
  return fill(
    'summary',
    {
      provider_name: c.document.provider.name,
      final_score: c.finalScore,
      risk_band: c.band.band,
      where,
      framework_version: fw.framework_version,
      anchored,
      held,
      capped,
    },
    fw,
  );
}

function lowestCap(binding: CapStep[]): string {
  return binding.map((b) => b.cap.cap).reduce((low, cap) => (dec(cap).lt(dec(low)) ? cap : low));
}
