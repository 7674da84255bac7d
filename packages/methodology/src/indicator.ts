import { sha256Hex } from './canonical/canonical-json.js';
import { compile } from './compute/compiled.js';
import type { Computation } from './compute/compute.js';
import { type Dec, fixed, toNumber } from './decimal.js';
import { type Commentary, commentOn } from './decision/commentary.js';
import { type Decision, decide, type FactorStep } from './decision/decision.js';
import type { InputValue, PlannerType } from './inputs/document.js';
import { canonicalInputs, quoteFor } from './package/canonical-package.js';
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

/**
 * The indicator (figures as JSON numbers) of a result rendered as text, when every figure is exact at its places
 * (CompiledFramework.exactFigures): each number is then Number(text), which is toNumber(value) of the figure (the
 * double nearest the decimal either way), so this is renderIndicator(c, identity, asNumber) without a second rendering.
 */
export function numbersOf(r: RiskIndicatorOf<string>): RiskIndicator {
  const d = r.svc_decision_object;
  const factor = (f: DecisionFactor<string>): DecisionFactor<number> => ({
    criterion_id: f.criterion_id,
    criterion_label: f.criterion_label,
    point_impact: Number(f.point_impact),
    detail: f.detail,
  });
  const decisionObject: DecisionObject<number> = {
    summary: d.summary,
    ceiling_factors: d.ceiling_factors.map(factor),
    floor_factors: d.floor_factors.map(factor),
    hard_caps_fired: d.hard_caps_fired.map((cap) => ({
      cap_id: cap.cap_id,
      label: cap.label,
      cap: Number(cap.cap),
      binding: cap.binding,
      point_impact: Number(cap.point_impact),
    })),
  };
  if (d.next_band !== undefined) {
    decisionObject.next_band = d.next_band;
    decisionObject.points_to_next_band = Number(d.points_to_next_band);
  }
  return {
    risk_indicator_id: r.risk_indicator_id,
    id: r.id,
    provider_id: r.provider_id,
    name: r.name,
    planner_type: r.planner_type,
    provider_subtype: r.provider_subtype,
    yield_min: r.yield_min,
    yield_max: r.yield_max,
    final_score: Number(r.final_score),
    risk_band: r.risk_band,
    confidence: Number(r.confidence),
    publishable: r.publishable,
    framework_version: r.framework_version,
    scored_at: r.scored_at,
    criterion_scores: r.criterion_scores.map((s) => ({
      criterion_id: s.criterion_id,
      criterion_label: s.criterion_label,
      module_id: s.module_id,
      weight: s.weight,
      input_key: s.input_key,
      input_value: s.input_value,
      points: Number(s.points),
      contribution: Number(s.contribution),
      as_of: s.as_of,
      age_days: s.age_days,
      freshness: Number(s.freshness),
      missing: s.missing,
    })),
    svc_decision_object: decisionObject,
    score_commentary: {
      overview: r.score_commentary.overview,
      modules: r.score_commentary.modules.map((m) => ({ ...m, score: Number(m.score) })),
    },
  };
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
  const inputsCanonical = canonicalInputs(c.document, quoteFor(c.framework.definition));
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
