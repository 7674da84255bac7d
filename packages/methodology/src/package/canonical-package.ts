import { canonicalArray, canonicalJson, canonicalObject } from '../canonical/canonical-json.js';
import { dec, fixed } from '../decimal.js';
import type { Decision } from '../decision/decision.js';
import type { CriterionDefinition, FrameworkDefinition, HardCapDefinition } from '../framework/schema.js';
import { PLACES, type RiskIndicatorOf } from '../indicator.js';
import type { ComputationPackage } from './computation-package.js';

/**
 * The RFC 8785 texts of a package's result and steps, with the members that
 * come straight from the framework (ids, labels, weights, conditions, caps)
 * canonicalised once per framework instead of once per package. Entries run
 * in framework order, so each is paired with its definition by position.
 */

type ModuleDefinition = FrameworkDefinition['modules'][number];
type MemberTexts = Readonly<Record<string, string>>;

/** Canonical member texts by definition object; definitions are frozen, so the texts stay true. */
const memberTexts = new WeakMap<object, MemberTexts>();

function textsOf<D extends object>(definition: D, members: (d: D) => Record<string, unknown>): MemberTexts {
  const known = memberTexts.get(definition);
  if (known) return known;
  const entries = Object.entries(members(definition)).map(([key, value]) => [key, canonicalJson(value)]);
  const texts: MemberTexts = Object.freeze(Object.fromEntries(entries));
  memberTexts.set(definition, texts);
  return texts;
}

/** The members a criterion gives its score, its trace and a decision factor (each entry takes the ones it has). */
const criterionMembers = (c: CriterionDefinition) =>
  textsOf(c, () => ({
    criterion_id: c.id,
    criterion_label: c.label,
    module_id: c.module_id,
    weight: c.weight,
    input_key: c.input_key,
  }));

/** The members a hard cap gives its trace and its fired entry. */
const capMembers = (cap: HardCapDefinition) =>
  textsOf(cap, () => ({
    cap_id: cap.id,
    label: cap.label,
    condition: cap.condition_text,
    cap: fixed(dec(cap.cap), PLACES.score),
  }));

const moduleMembers = (m: ModuleDefinition) => textsOf(m, () => ({ module_id: m.id, label: m.label, max: m.weight }));

/** An array of entries, the i-th built from definitions[i]. */
function entriesOf<D extends object>(
  entries: readonly object[],
  definitions: readonly D[],
  members: (d: D) => MemberTexts,
): string {
  return canonicalArray(
    entries.map((entry, i) => canonicalObject(entry as Record<string, unknown>, members(definitions[i] as D))),
  );
}

/** canonicalJson(result) of a result rendered from a computation under `fw` with this decision. */
export function canonicalResult(result: RiskIndicatorOf<string>, fw: FrameworkDefinition, decision: Decision): string {
  const d = result.svc_decision_object;
  const criterionOf = (f: Decision['ceiling'][number]) => f.step.criterion;
  const commentary = result.score_commentary;
  return canonicalObject(record(result), {
    criterion_scores: entriesOf(result.criterion_scores, fw.criteria, criterionMembers),
    svc_decision_object: canonicalObject(record(d), {
      ceiling_factors: entriesOf(d.ceiling_factors, decision.ceiling.map(criterionOf), criterionMembers),
      floor_factors: entriesOf(d.floor_factors, decision.floor.map(criterionOf), criterionMembers),
      hard_caps_fired: entriesOf(
        d.hard_caps_fired,
        decision.capsFired.map((cap) => cap.cap),
        capMembers,
      ),
    }),
    score_commentary: canonicalObject(record(commentary), {
      modules: entriesOf(commentary.modules, fw.modules, moduleMembers),
    }),
  });
}

/** canonicalJson(steps) of steps computed under `fw`. */
export function canonicalSteps(steps: ComputationPackage['steps'], fw: FrameworkDefinition): string {
  return canonicalObject(record(steps), {
    criteria: entriesOf(steps.criteria, fw.criteria, criterionMembers),
    hard_caps: entriesOf(steps.hard_caps, fw.hard_caps, capMembers),
  });
}

const record = (value: object) => value as Record<string, unknown>;
