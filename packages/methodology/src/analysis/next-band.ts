import { compile } from '../compute/compiled.js';
import { compute } from '../compute/compute.js';
import { daysBetween } from '../dates.js';
import { type Dec, dec, fixed, toNumber } from '../decimal.js';
import type { CriterionDefinition, Framework } from '../framework/schema.js';
import type { InputsDocument, InputValue } from '../inputs/document.js';
import { checkInputs } from '../score.js';
import { messages as M } from './messages.js';
import { searchNumeric } from './numeric-search.js';
import { type Outcome, probeOf, type Scored, type Trial } from './probe.js';
import { searchTable } from './table-search.js';

export interface NextBandStep {
  criterion_id: string;
  input_key: string;
  label: string;
  current_value: InputValue | null;
  /** null when no single change of this input reaches the next band. */
  suggested_value: InputValue | null;
  /**
   * The evidence date the suggestion assumes when it is not the input's own:
   * the evaluation date for a missing or stale input (renewed evidence); null
   * when the suggestion keeps the input's as_of, or there is no suggestion.
   */
  suggested_as_of: string | null;
  resulting_score: number | null;
  resulting_band: string | null;
  reachable: boolean;
  /** Why no single change of this input reaches the next band; null when one does. */
  reason: string | null;
}

export interface NextBandPath {
  current_score: number;
  current_band: string;
  /** The band just better than the current one; null in the best band. */
  next_band: string | null;
  next_band_min_score: number | null;
  /** One step per criterion, in framework order; none in the best band (the summary says there is no next band). */
  steps: NextBandStep[];
  summary: string;
}

/**
 * For each criterion, the smallest improvement of its input alone that lifts
 * the final score into the next better band, scored with the engine's own
 * arithmetic at the document's evaluation date (caps, rounding and derived
 * quantities as they are), or why no value of that input can.
 *
 * Enum and boolean inputs try their better values by increasing points.
 * Numeric inputs give the least (or, where a lower value is better, the
 * greatest) value at `suggestionPlaces` decimals within the input's bounds,
 * found by inverting the piecewise-linear scale (see searchNumeric). A
 * missing input, or one whose evidence is older than the framework's decay
 * horizon (freshness at the stale factor), is assumed provided or renewed on
 * the evaluation date (`suggested_as_of`). Pure; throws InputsError for an
 * invalid document.
 */
export function pathToNextBand(document: InputsDocument, framework: Framework): NextBandPath {
  const doc = checkInputs(document, framework);
  const fw = framework.definition;
  const now = compute(doc, framework);
  const places = fw.arithmetic.final_score_places;
  const score = fixed(now.finalScore, places);
  const { band, next } = now.band;
  if (next === null) {
    return {
      current_score: toNumber(now.finalScore),
      current_band: band,
      next_band: null,
      next_band_min_score: null,
      // Said once, in the summary: a step per criterion would repeat "already the best band" for each.
      steps: [],
      summary: M.summaryBest(score, band),
    };
  }
  const target = compile(fw).bands.find((b) => b.band === next.band)?.min as Dec;
  const stale = (item: { as_of: string }) =>
    daysBetween(item.as_of, doc.evaluation_date) > fw.freshness.decay_until_days;
  const targetText = fixed(target, places);
  const steps = fw.criteria.map((criterion) => {
    const probe = probeOf(criterion, doc, framework, now, target, stale);
    const outcome = criterion.scale.kind === 'table' ? searchTable(probe) : searchNumeric(probe, fw, target);
    return stepOf(criterion, doc, outcome, probe.refresh, { target, targetText, band: next.band, places });
  });
  const changes = steps.flatMap((s) =>
    s.reachable ? [M.change(s.input_key, String(s.suggested_value), s.suggested_as_of)] : [],
  );
  return {
    current_score: toNumber(now.finalScore),
    current_band: band,
    next_band: next.band,
    next_band_min_score: toNumber(target),
    steps,
    summary: M.summary(score, band, fixed(next.pointsTo, places), next.band, targetText, changes),
  };
}

interface Goal {
  target: Dec;
  targetText: string;
  band: string;
  places: number;
}

function stepOf(
  criterion: CriterionDefinition,
  doc: InputsDocument,
  outcome: Outcome,
  refresh: boolean,
  goal: Goal,
): NextBandStep {
  if (outcome.kind === 'reached') {
    const { value, computation } = outcome.trial;
    return stepFor(criterion, doc, {
      suggested_value: value,
      suggested_as_of: refresh ? doc.evaluation_date : null,
      resulting_score: toNumber(computation.finalScore),
      resulting_band: computation.band.band,
      reachable: true,
      reason: null,
    });
  }
  if (outcome.kind === 'not-monotone') {
    return unreachable(criterion, doc, M.notMonotone(criterion.id, criterion.input_key));
  }
  return unreachable(criterion, doc, reasonOf(criterion, outcome.kind, outcome.best, goal));
}

/** A cap that fires even at the input's best value and holds the score below the band is the reason; else the best falls short. */
function reasonOf(criterion: CriterionDefinition, kind: 'short' | 'at-best', best: Trial, goal: Goal): string {
  const key = criterion.input_key;
  const holding = heldBelow(best.computation, goal.target);
  if (holding.length > 0) {
    const lowest = holding.map((c) => dec(c.cap)).reduce((low, v) => (v.lt(low) ? v : low));
    return M.capHolds(holding, fixed(lowest, goal.places), key);
  }
  const value = String(best.value);
  if (kind === 'at-best') return M.atBest(key, value);
  return M.short(key, value, fixed(best.computation.finalScore, goal.places), goal.band, goal.targetText);
}

/** The fired caps below the target, in table order. */
function heldBelow(c: Scored, target: Dec): { id: string; cap: string; label: string }[] {
  return c.caps
    .filter((cap) => cap.fired && dec(cap.cap.cap).lt(target))
    .map(({ cap }) => ({ id: cap.id, cap: cap.cap, label: cap.label }));
}

/** A step's fields after the criterion's own, reached or not. */
type Finding = Omit<NextBandStep, 'criterion_id' | 'input_key' | 'label' | 'current_value'>;

/** The step of a criterion, its members written out in order (a literal, not a spread: this runs per criterion). */
function stepFor(criterion: CriterionDefinition, doc: InputsDocument, finding: Finding): NextBandStep {
  const item = doc.inputs[criterion.input_key];
  return {
    criterion_id: criterion.id,
    input_key: criterion.input_key,
    label: criterion.label,
    current_value: item === undefined ? null : item.value,
    suggested_value: finding.suggested_value,
    suggested_as_of: finding.suggested_as_of,
    resulting_score: finding.resulting_score,
    resulting_band: finding.resulting_band,
    reachable: finding.reachable,
    reason: finding.reason,
  };
}

function unreachable(criterion: CriterionDefinition, doc: InputsDocument, reason: string): NextBandStep {
  return stepFor(criterion, doc, {
    suggested_value: null,
    suggested_as_of: null,
    resulting_score: null,
    resulting_band: null,
    reachable: false,
    reason,
  });
}

/** The overrides that apply a step's suggestion with applyOverrides; null when it has none. */
export function overridesOf(step: NextBandStep): Record<string, unknown> | null {
  if (step.suggested_value === null) return null;
  const override =
    step.suggested_as_of === null ? step.suggested_value : { value: step.suggested_value, as_of: step.suggested_as_of };
  return { [step.input_key]: override };
}
