import { sha256Hex } from './canonical/canonical-json.js';
import { compile } from './compute/compiled.js';
import type { Computation } from './compute/compute.js';
import { type Dec, fixed, toNumber } from './decimal.js';
import { type Commentary, commentOn } from './decision/commentary.js';
import { type Decision, decide, type FactorStep } from './decision/decision.js';
import type { InputValue, PlannerType } from './inputs/document.js';
import { canonicalInputs } from './package/canonical-package.js';
import { PLACES } from './places.js';

/** A decimal figure with its published number of places, rendered as N (a JSON number, or fixed text in a package). */
export type Figure<N> = (value: Dec, places: number) => N;

export const asNumber: Figure<number> = (value) => toNumber(value);
export const asText: Figure<string> = (value, places) => fixed(value, places);

/**
 * asText and asNumber for one scoring that renders its figures in both forms (an indicator and its package): each
 * decimal's text is written once, and its number read from that text. Number(text) is toNumber(value) when the
 * text is exact (the value has no more places than it is written with), as it is for every figure of section 10.
 */
export function sharedFigures(): { asText: Figure<string>; asNumber: Figure<number> } {
  const texts: Map<Dec, string>[] = [];
  const text: Figure<string> = (value, places) => {
    let known = texts[places];
    if (known === undefined) {
      known = new Map();
      texts[places] = known;
    }
    let written = known.get(value);
    if (written === undefined) {
      written = fixed(value, places);
      known.set(value, written);
    }
    return written;
  };
  const number: Figure<number> = (value, places) =>
    value.decimalPlaces() <= places ? Number(text(value, places)) : toNumber(value);
  return { asText: text, asNumber: number };
}

export interface CriterionScore<N> {
  criterion_id: string;
  criterion_label: string;
  module_id: string;
  weight: number;
  input_key: string;
  input_value: InputValue | null;
  points: N;
  contribution: N;
  as_of: string | null;
  age_days: number | null;
  freshness: N;
  missing: boolean;
}

export interface DecisionFactor<N> {
  criterion_id: string;
  criterion_label: string;
  point_impact: N;
  detail: string;
}

export interface HardCapFired<N> {
  cap_id: string;
  label: string;
  cap: N;
  binding: boolean;
  point_impact: N;
}

export interface DecisionObject<N> {
  summary: string;
  ceiling_factors: DecisionFactor<N>[];
  floor_factors: DecisionFactor<N>[];
  hard_caps_fired: HardCapFired<N>[];
  /** Absent for the lowest-risk band. */
  next_band?: string;
  points_to_next_band?: N;
}

export interface ScoreCommentary<N> {
  overview: string;
  modules: { module_id: string; label: string; score: N; max: number; text: string }[];
}

/** The authenticated Risk Indicator of methodology section 9, with figures of type N. */
export interface RiskIndicatorOf<N> {
  risk_indicator_id: string;
  id: string;
  provider_id: string;
  name: string;
  planner_type: PlannerType;
  provider_subtype: string;
  yield_min: number;
  yield_max: number;
  final_score: N;
  risk_band: string;
  confidence: N;
  publishable: boolean;
  framework_version: string;
  scored_at: string;
  criterion_scores: CriterionScore<N>[];
  svc_decision_object: DecisionObject<N>;
  score_commentary: ScoreCommentary<N>;
}

/** Figures are JSON numbers: the form served over HTTP and printed by the CLI. */
export type RiskIndicator = RiskIndicatorOf<number>;

export { PLACES } from './places.js';

export interface Identity {
  /** RFC 8785 text of the inputs document, hashed into inputs_sha256. */
  inputsCanonical: string;
  inputsSha256: string;
  riskIndicatorId: string;
}

/** risk_indicator_id = "ri_" + the first 24 hex digits of SHA-256(canonical {framework_sha256, inputs_sha256, evaluation_date}). */
export function identify(c: Computation): Identity {
  const inputsCanonical = canonicalInputs(c.document);
  const inputsSha256 = sha256Hex(inputsCanonical);
  // canonicalJson({framework_sha256, inputs_sha256, evaluation_date}): members sorted, each a plain string.
  const digest = sha256Hex(
    `{"evaluation_date":${JSON.stringify(c.document.evaluation_date)},"framework_sha256":${JSON.stringify(
      c.framework.sha256,
    )},"inputs_sha256":"${inputsSha256}"}`,
  );
  return { inputsCanonical, inputsSha256, riskIndicatorId: `ri_${digest.slice(0, 24)}` };
}

/** The words of a Risk Indicator (decision object and commentary), computed once per computation. */
export interface Narrative {
  decision: Decision;
  commentary: Commentary;
}

export function narrate(c: Computation): Narrative {
  return { decision: decide(c), commentary: commentOn(c) };
}

export function renderIndicator<N>(
  c: Computation,
  identity: Identity,
  figure: Figure<N>,
  { decision, commentary }: Narrative = narrate(c),
): RiskIndicatorOf<N> {
  const { provider, evaluation_date } = c.document;
  const factor = (f: FactorStep): DecisionFactor<N> => ({
    criterion_id: f.step.criterion.id,
    criterion_label: f.step.criterion.label,
    point_impact: figure(f.pointImpact, PLACES.score),
    detail: f.detail,
  });
  const decisionObject: DecisionObject<N> = {
    summary: decision.summary,
    ceiling_factors: decision.ceiling.map(factor),
    floor_factors: decision.floor.map(factor),
    hard_caps_fired: decision.capsFired.map((cap) => ({
      cap_id: cap.cap.id,
      label: cap.cap.label,
      cap: figure(compile(c.framework.definition).caps.get(cap.cap.id) as Dec, PLACES.score),
      binding: cap.binding,
      point_impact: figure(cap.pointImpact, PLACES.score),
    })),
  };
  if (c.band.next) {
    decisionObject.next_band = c.band.next.band;
    decisionObject.points_to_next_band = figure(c.band.next.pointsTo, PLACES.score);
  }
  return {
    risk_indicator_id: identity.riskIndicatorId,
    id: provider.id,
    provider_id: provider.id,
    name: provider.name,
    planner_type: provider.planner_type,
    provider_subtype: provider.provider_subtype,
    yield_min: provider.yield_min,
    yield_max: provider.yield_max,
    final_score: figure(c.finalScore, PLACES.score),
    risk_band: c.band.band,
    confidence: figure(c.confidence, PLACES.confidence),
    publishable: c.publishable,
    framework_version: c.framework.definition.framework_version,
    scored_at: `${evaluation_date}T00:00:00Z`,
    criterion_scores: c.criteria.map((s) => ({
      criterion_id: s.criterion.id,
      criterion_label: s.criterion.label,
      module_id: s.criterion.module_id,
      weight: s.criterion.weight,
      input_key: s.criterion.input_key,
      input_value: s.item ? s.item.value : null,
      points: figure(s.points, PLACES.points),
      contribution: figure(s.contribution, PLACES.contribution),
      as_of: s.item ? s.item.as_of : null,
      age_days: s.ageDays,
      freshness: figure(s.freshness, PLACES.freshness),
      missing: s.item === null,
    })),
    svc_decision_object: decisionObject,
    score_commentary: {
      overview: commentary.overview,
      modules: commentary.modules.map((m) => ({
        module_id: m.moduleId,
        label: m.label,
        score: figure(m.score, PLACES.contribution),
        max: m.max,
        text: m.text,
      })),
    },
  };
}
