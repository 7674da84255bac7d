import { canonicalJson, sha256Hex } from '../canonical/canonical-json.js';
import type { Operand } from '../compute/caps.js';
import { compile } from '../compute/compiled.js';
import type { Computation } from '../compute/compute.js';
import type { Dec } from '../decimal.js';
import { ENGINE } from '../engine.js';
import type { Framework } from '../framework/schema.js';
import {
  asText,
  type Figure,
  type Identity,
  identify,
  type Narrative,
  narrate,
  numbersOf,
  PLACES,
  type RiskIndicator,
  renderIndicator,
  sharedFigures,
} from '../indicator.js';
import type { InputsDocument, InputValue } from '../inputs/document.js';
import { computeFrom } from '../score.js';
import { canonicalPackage, canonicalResult, canonicalSteps, type Quote, quoteFor } from './canonical-package.js';
import { type ComputationPackage, PACKAGE_FORMAT } from './computation-package.js';

export interface Scored {
  indicator: RiskIndicator;
  package: ComputationPackage;
}

/** Validates, scores and packages in one pass; throws InputsError for an invalid document. */
export function scoreWithPackage(document: unknown, framework: Framework): Scored {
  const c = computeFrom(document, framework);
  const identity = identify(c);
  const narrative = narrate(c);
  if (compile(c.framework.definition).exactFigures) {
    const pkg = packageOf(c, identity, narrative);
    return { indicator: numbersOf(pkg.result), package: pkg };
  }
  const figures = sharedFigures();
  return {
    indicator: renderIndicator(c, identity, figures.asNumber, narrative),
    package: packageOf(c, identity, narrative, figures.asText),
  };
}

export function buildPackage(document: unknown, framework: Framework): ComputationPackage {
  const c = computeFrom(document, framework);
  return packageOf(c, identify(c));
}

type Result = ComputationPackage['result'];
type Written = Result['criterion_scores'][number];

/** What serialising a package built here can reuse: the canonical texts hashed into it. */
interface KnownParts {
  inputs: string;
  result: string;
  quote: Quote;
}

/**
 * Where a package built here keeps its KnownParts: a property no serialiser sees (a symbol, not enumerable) rather
 * than a WeakMap, whose entries the young-generation collector keeps alive: each package's texts were promoted to the
 * old generation, about 0.7 MB per scavenge in the throughput bench, and collected later at a higher cost.
 */
const KNOWN_PARTS = Symbol('svc.knownParts');

/** The bytes of a package as written to a file: RFC 8785 canonical JSON. */
export function serializePackage(pkg: ComputationPackage): string {
  const known = (pkg as { [KNOWN_PARTS]?: KnownParts })[KNOWN_PARTS];
  if (!known) return canonicalJson(pkg);
  const { inputs, result, quote } = known;
  return canonicalPackage(pkg, { inputs, result, steps: canonicalSteps(pkg.steps, quote) }, quote);
}

/** Builds the package; it is frozen, so the canonical texts kept for its parts stay true. */
export function packageOf(
  c: Computation,
  identity: Identity,
  narrative: Narrative = narrate(c),
  text: Figure<string> = asText,
): ComputationPackage {
  const fw = c.framework.definition;
  const result = renderIndicator(c, identity, text, narrative);
  const quote = quoteFor(fw);
  const resultCanonical = canonicalResult(result, quote);
  const pkg: ComputationPackage = {
    package_format: PACKAGE_FORMAT,
    engine: { name: ENGINE.name, version: ENGINE.version },
    framework: { framework_version: fw.framework_version, version: fw.version, sha256: c.framework.sha256 },
    inputs: c.document,
    inputs_sha256: identity.inputsSha256,
    evaluation_date: c.document.evaluation_date,
    risk_indicator_id: identity.riskIndicatorId,
    steps: stepsOf(c, text, result),
    result,
    result_sha256: sha256Hex(resultCanonical),
  };
  const known: KnownParts = { inputs: identity.inputsCanonical, result: resultCanonical, quote };
  Object.defineProperty(pkg, KNOWN_PARTS, { value: known });
  freezePackage(pkg);
  return pkg;
}

/**
 * The steps, with the figures the result already wrote (each criterion's points, contribution and freshness, the
 * final score, the confidence, the points to the next band) taken from it: the same `fixed` of the same decimals,
 * in the same order (both follow `c.criteria`), written once.
 */
function stepsOf(c: Computation, fixed: Figure<string>, result: Result): ComputationPackage['steps'] {
  const caps = compile(c.framework.definition).caps;
  const written = result.criterion_scores;
  return {
    criteria: c.criteria.map((s, i) => {
      const { freshness, points, contribution } = written[i] as Written;
      return {
        criterion_id: s.criterion.id,
        input_key: s.criterion.input_key,
        input_value: s.item ? s.item.value : null,
        derived: s.derived ? { name: s.derived.name, value: s.derived.value.toFixed() } : null,
        missing: s.item === null,
        as_of: s.item ? s.item.as_of : null,
        age_days: s.ageDays,
        freshness,
        points,
        weight: s.criterion.weight,
        contribution,
      };
    }),
    uncapped: fixed(c.uncapped, PLACES.contribution),
    hard_caps: c.caps.map((cap) => ({
      cap_id: cap.cap.id,
      label: cap.cap.label,
      condition: cap.cap.condition_text,
      operands: cap.operands.map((o) => ({ operand: o.operand, value: operandValue(o, c.document) })),
      fired: cap.fired,
      cap: fixed(caps.get(cap.cap.id) as Dec, PLACES.score),
      binding: cap.binding,
      point_impact: fixed(cap.pointImpact, PLACES.score),
    })),
    capped: fixed(c.capped, PLACES.contribution),
    final_score: result.final_score,
    risk_band: c.band.band,
    next_band: c.band.next ? c.band.next.band : null,
    points_to_next_band: c.band.next ? (result.svc_decision_object.points_to_next_band as string) : null,
    confidence: result.confidence,
    publishable: c.publishable,
  };
}

/**
 * Freezes every object and array of a package built here, along the package's shape: the cost of a generic deep
 * walk (Object.values of every object) was a tenth of packaging. The oracle test checks that nothing is left out.
 */
function freezePackage(pkg: ComputationPackage): void {
  const { inputs, steps, result } = pkg;
  for (const item of Object.values(inputs.inputs)) Object.freeze(item);
  freezeAll([inputs.inputs, inputs.provider, inputs]);
  for (const t of steps.criteria) freezeAll([t.derived, t]);
  for (const cap of steps.hard_caps) freezeAll([...cap.operands, cap.operands, cap]);
  freezeAll([steps.criteria, steps.hard_caps, steps]);
  const d = result.svc_decision_object;
  freezeAll([...result.criterion_scores, result.criterion_scores, ...d.ceiling_factors, d.ceiling_factors]);
  freezeAll([...d.floor_factors, d.floor_factors, ...d.hard_caps_fired, d.hard_caps_fired, d]);
  const commentary = result.score_commentary;
  freezeAll([...commentary.modules, commentary.modules, commentary, result, pkg.engine, pkg.framework, pkg]);
}

function freezeAll(values: readonly (object | null)[]): void {
  for (const value of values) if (value !== null) Object.freeze(value);
}

/** Input operands travel as the inputs document wrote them; derived ones as exact text; ages as integers. */
function operandValue(o: Operand, doc: InputsDocument): InputValue | string | number | null {
  if (o.value === null) return null;
  if (o.kind === 'input') return (doc.inputs[o.operand] as { value: InputValue }).value;
  if (o.kind === 'age') return o.value as number;
  return (o.value as Dec).toFixed();
}
