import { compile } from '../compute/compiled.js';
import { type Computation, compute } from '../compute/compute.js';
import { confidenceOf, freshnessFactor } from '../compute/freshness.js';
import { dateOfEpochDay, epochDay } from '../dates.js';
import { type Dec, fixed, ONE, toNumber } from '../decimal.js';
import type { CapCondition, CriterionDefinition, Framework } from '../framework/schema.js';
import type { InputItem } from '../inputs/document.js';
import { checkInputs, withEvaluationDate } from '../score.js';
import { messages as M } from './messages.js';

/**
 * Why an entry of the evidence schedule is there, in this order within an entry (a closed set):
 * - `DECAY_STARTS`: one or more inputs pass the framework's full-freshness age (DCRF v1.0: 90 days; the entry is
 *   on the day they are 91 days old): their freshness starts its linear fall, and with it confidence.
 * - `EVIDENCE_STALE`: one or more inputs pass the decay horizon (365 days; the day they are 366 days old): their
 *   freshness drops to the stale factor (0.25).
 * - `CAP_FIRES`: a hard cap on stale evidence starts to fire (DCRF v1.0: HC-07, any of A1, A2, B1 older than 365
 *   days).
 * - `SCORE_CHANGES`: the final score differs from the day before.
 * - `BAND_CHANGES`: the risk band differs from the day before.
 * - `NOT_PUBLISHABLE`: confidence falls below the framework's minimum (0.5): the indicator stops being publishable.
 */
export const EVIDENCE_REASONS = [
  'DECAY_STARTS',
  'EVIDENCE_STALE',
  'CAP_FIRES',
  'SCORE_CHANGES',
  'BAND_CHANGES',
  'NOT_PUBLISHABLE',
] as const;
export type EvidenceReason = (typeof EVIDENCE_REASONS)[number];

/** An indicator's figures on one date, as the engine scores the inputs with that date as the evaluation date. */
export interface EvidenceFigures {
  date: string;
  final_score: number;
  risk_band: string;
  confidence: number;
  publishable: boolean;
  /** The hard caps that fire on this date, in the framework's order. */
  hard_caps_fired: string[];
  /**
   * The criteria whose freshness is in its linear decay on this date (age 91 to 365 days under DCRF v1.0), in
   * framework order. Empty: confidence stays as it is until the next entry. Not empty: confidence may fall on the
   * days after this date, by the decay rule, with no entry of its own; nothing else changes before the next entry.
   */
  decaying_criteria: string[];
}

/** An input whose freshness changes regime on an entry's date. */
export interface EvidenceAgeing {
  criterion_id: string;
  input_key: string;
  as_of: string;
  age_days: number;
  /** Its freshness on the entry's date (4 places). */
  freshness: number;
}

export interface EvidenceScheduleEntry extends EvidenceFigures {
  /** Every reason that holds on this date, in the order of EVIDENCE_REASONS. */
  reason_codes: EvidenceReason[];
  /** The reasons in one sentence. */
  reason: string;
  /** The inputs that pass a freshness boundary on this date (DECAY_STARTS, EVIDENCE_STALE), in framework order. */
  criteria: EvidenceAgeing[];
}

export interface EvidenceSchedule {
  framework_version: string;
  /** The day the schedule starts from: its figures are `current`; entries are on the days after it. */
  start_date: string;
  /** The last day the schedule looks at: start_date + days. */
  end_date: string;
  days: number;
  current: EvidenceFigures;
  /** The dates in (start_date, end_date] on which the figures change, as defined in EVIDENCE_REASONS; oldest first. */
  entries: EvidenceScheduleEntry[];
  /** The first band change within the horizon, or null when the band holds to end_date. */
  first_band_change: { date: string; from: string; to: string } | null;
  /** The first date within the horizon on which the indicator is not publishable, or null when it stays publishable (or already is not on start_date). */
  not_publishable_from: string | null;
}

/** The largest horizon the engine takes: ten years of days. */
export const MAX_SCHEDULE_DAYS = 3660;

interface Present {
  /** The criterion's position in the framework (and in a computation's criteria). */
  index: number;
  criterion: CriterionDefinition;
  item: InputItem;
  /** Age in days on the start date. */
  age: number;
}

/**
 * The dates on which an indicator's figures change as its evidence ages with no new evidence, from `start` to
 * `start + days`, computed from the methodology's rules rather than by scoring every day.
 *
 * Under the framework's rules only two things move with the evaluation date: each input's freshness (full to its
 * full-freshness age, a linear fall to the decay horizon, then the stale factor) and the hard caps on stale
 * evidence; points, the uncapped score and every other cap do not. So the final score, the band and the fired caps
 * can change only on a day an input passes a stale cap's age, and confidence only on days some input is in its
 * decay or passes the horizon. Confidence never rises with age (each freshness factor is non-increasing and r4 is
 * monotone), so the day it first falls below the publication minimum is found by bisection over days.
 *
 * The candidate days are: each input's two freshness boundaries, each stale cap's boundary for the inputs it reads,
 * and the publishability crossing. Each is scored by the engine (the document with that evaluation date) and is an
 * entry when a reason of EVIDENCE_REASONS holds against the day before. Between two entries the score, the band,
 * the caps and publishability hold, and confidence holds unless the earlier entry lists `decaying_criteria`.
 *
 * Pure and exact (decimal arithmetic, the engine's own figures). Throws InputsError when the document is not valid
 * on `start` (an `as_of` after it, among every other rule), and RangeError for a start that is not a date or a
 * horizon that is not a whole number of days from 1 to MAX_SCHEDULE_DAYS.
 */
export function evidenceSchedule(
  document: unknown,
  framework: Framework,
  options: { start: string; days: number },
): EvidenceSchedule {
  const { start, days } = options;
  const startDay = epochDay(start);
  if (startDay === null) throw new RangeError(M.notStartDate(start));
  if (!Number.isSafeInteger(days) || days < 1 || days > MAX_SCHEDULE_DAYS) {
    throw new RangeError(M.notHorizon(days, MAX_SCHEDULE_DAYS));
  }
  const doc = checkInputs(withEvaluationDate(document, start), framework);
  const fw = framework.definition;
  const compiled = compile(fw);
  const { full_until_days: fullUntil, decay_until_days: decayUntil } = fw.freshness;
  if (compiled.decay.isNegative() || compiled.staleFactor.gt(ONE.minus(compiled.decay)) || decayUntil <= fullUntil) {
    throw new Error(M.freshnessRises(fw.framework_version));
  }

  const present: Present[] = compiled.criteria.flatMap(({ definition: criterion }, index) => {
    const item = doc.inputs[criterion.input_key];
    return item ? [{ index, criterion, item, age: startDay - (epochDay(item.as_of) as number) }] : [];
  });
  const byId = new Map(present.map((p) => [p.criterion.id, p]));
  const within = (k: number) => k >= 1 && k <= days;
  const candidates = new Set<number>();
  for (const p of present) {
    for (const boundary of [fullUntil + 1, decayUntil + 1]) {
      if (within(boundary - p.age)) candidates.add(boundary - p.age);
    }
  }
  for (const cap of fw.hard_caps) {
    for (const stale of staleConditions(cap.condition)) {
      for (const id of stale.criteria) {
        const p = byId.get(id);
        if (p && within(stale.age_days_over + 1 - p.age)) candidates.add(stale.age_days_over + 1 - p.age);
      }
    }
  }
  const confidenceAt = (k: number): Dec =>
    confidenceOf(
      present.map((p) => ({ criterion: p.criterion, freshness: freshnessFactor(fw.freshness, compiled, p.age + k) })),
    );
  const minimum = compiled.minConfidence;
  if (confidenceAt(0).gte(minimum) && confidenceAt(days).lt(minimum)) {
    // Invariant: publishable on day lo, not on day hi; confidence is non-increasing in the day.
    let lo = 0;
    let hi = days;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (confidenceAt(mid).lt(minimum)) hi = mid;
      else lo = mid;
    }
    candidates.add(hi);
  }

  const scoreAt = (k: number): Computation =>
    compute({ ...doc, evaluation_date: dateOfEpochDay(startDay + k) }, framework);
  const figuresOf = (k: number, c: Computation): EvidenceFigures => ({
    date: c.document.evaluation_date,
    final_score: toNumber(c.finalScore),
    risk_band: c.band.band,
    confidence: toNumber(c.confidence),
    publishable: c.publishable,
    hard_caps_fired: c.caps.filter((cap) => cap.fired).map((cap) => cap.cap.id),
    decaying_criteria: present
      .filter((p) => p.age + k > fullUntil && p.age + k <= decayUntil)
      .map((p) => p.criterion.id),
  });

  const startComputation = scoreAt(0);
  const current = figuresOf(0, startComputation);
  // The latest candidate scored: between candidates the score, band, caps and publishability hold.
  let before: Scored = { computation: startComputation, figures: current };
  const entries: EvidenceScheduleEntry[] = [];
  let firstBandChange: EvidenceSchedule['first_band_change'] = null;
  for (const k of [...candidates].sort((a, b) => a - b)) {
    const computation = scoreAt(k);
    const now: Scored = { computation, figures: figuresOf(k, computation) };
    const entry = entryOf(k, now, before, present, fw.freshness);
    if (entry) entries.push(entry);
    if (firstBandChange === null && entry?.reason_codes.includes('BAND_CHANGES')) {
      firstBandChange = { date: entry.date, from: before.figures.risk_band, to: entry.risk_band };
    }
    before = now;
  }
  return {
    framework_version: fw.framework_version,
    start_date: start,
    end_date: dateOfEpochDay(startDay + days),
    days,
    current,
    entries,
    first_band_change: firstBandChange,
    not_publishable_from: entries.find((e) => e.reason_codes.includes('NOT_PUBLISHABLE'))?.date ?? null,
  };
}

interface Scored {
  computation: Computation;
  figures: EvidenceFigures;
}

/** The entry of candidate day k against the day before (whose score, band, caps and publishability are `before`'s), or null when no reason holds. */
function entryOf(
  k: number,
  now: Scored,
  before: Scored,
  present: readonly Present[],
  rule: Framework['definition']['freshness'],
): EvidenceScheduleEntry | null {
  const { computation: c, figures } = now;
  const passing = (boundary: number) => present.filter((p) => p.age + k === boundary + 1);
  const decayStarts = passing(rule.full_until_days);
  const stale = passing(rule.decay_until_days);
  const firedBefore = new Set(before.figures.hard_caps_fired);
  const capsFiring = c.caps.filter((cap) => cap.fired && !firedBefore.has(cap.cap.id));
  const scoreChanges = !c.finalScore.eq(before.computation.finalScore);
  const bandChanges = c.band.band !== before.figures.risk_band;
  const notPublishable = before.figures.publishable && !c.publishable;
  const codes: EvidenceReason[] = [];
  const parts: string[] = [];
  const places = c.framework.definition.arithmetic.final_score_places;
  // Inputs that pass a boundary on the same day are of the same age: their evidence has one as_of.
  const label = (p: Present) => `${p.criterion.id} ${p.criterion.label}`;
  const asOf = (inputs: Present[]) => (inputs[0] as Present).item.as_of;
  if (decayStarts.length > 0) {
    codes.push('DECAY_STARTS');
    parts.push(M.decayStarts(asOf(decayStarts), decayStarts.map(label), rule.full_until_days));
  }
  if (stale.length > 0) {
    codes.push('EVIDENCE_STALE');
    parts.push(M.evidenceStale(asOf(stale), stale.map(label), rule.decay_until_days, rule.stale_factor));
  }
  if (capsFiring.length > 0) {
    codes.push('CAP_FIRES');
    parts.push(M.capsFire(capsFiring.map(({ cap }) => ({ id: cap.id, label: cap.label, cap: cap.cap }))));
  }
  if (scoreChanges) {
    codes.push('SCORE_CHANGES');
    parts.push(M.scoreMoves(fixed(before.computation.finalScore, places), fixed(c.finalScore, places)));
  }
  if (bandChanges) {
    codes.push('BAND_CHANGES');
    parts.push(M.bandMoves(before.figures.risk_band, c.band.band));
  }
  if (notPublishable) {
    codes.push('NOT_PUBLISHABLE');
    parts.push(
      M.notPublishable(
        fixed(c.confidence, c.framework.definition.arithmetic.confidence_places),
        c.framework.definition.publication.min_confidence,
      ),
    );
  }
  if (codes.length === 0) return null;
  const ageing = present
    .filter((p) => decayStarts.includes(p) || stale.includes(p))
    .map((p) => ({
      criterion_id: p.criterion.id,
      input_key: p.criterion.input_key,
      as_of: p.item.as_of,
      age_days: p.age + k,
      freshness: toNumber((c.criteria[p.index] as Computation['criteria'][number]).freshness),
    }));
  return { ...figures, reason_codes: codes, reason: M.sentence(parts), criteria: ageing };
}

/** The stale-evidence conditions of a cap's condition, however nested. */
function staleConditions(condition: CapCondition): Extract<CapCondition, { op: 'stale' }>[] {
  if (condition.op === 'stale') return [condition];
  if (condition.op === 'all') return condition.of.flatMap(staleConditions);
  return [];
}
