import type { FrameworkDefinition } from '../framework/schema.js';
import type { InputsDocument, InputValue } from '../inputs/document.js';
import type { ComputationPackage } from './computation-package.js';

/**
 * RFC 8785 texts of the parts of a package built by this engine, written by hand for the package's shape: members
 * in the sorted order JCS gives them, strings and numbers as `JSON.stringify` writes them. These are the bytes
 * `canonicalJson` (the `canonicalize` library) gives for the same objects, at a fraction of its cost
 * (docs/decisions/0034-fast-engine-path.md); the property suite compares the two byte for byte on generated
 * documents, and `serializePackage` keeps `canonicalJson` for any package this engine did not build.
 *
 * What makes `JSON.stringify` of a member equal its RFC 8785 text here: every string in a package built by the
 * engine passed input validation (no lone surrogate) or is framework data; every number is finite and validated;
 * no key is an array index. Anything else (a package read from a file) goes through `canonicalJson`.
 */

type Result = ComputationPackage['result'];
type Steps = ComputationPackage['steps'];
type Item = InputsDocument['inputs'][string];

/** A string's JSON text (`JSON.stringify`), for the texts of one framework's packages. */
export type Quote = (value: string) => string;

const stringify = JSON.stringify as Quote;
const quotes = new WeakMap<FrameworkDefinition, Quote>();

/**
 * JSON.stringify for the strings of a package under this framework, with the text of each string of the framework's
 * definition (ids, labels, input keys, conditions, band names) written once: they make most of a package's strings.
 */
export function quoteFor(fw: FrameworkDefinition): Quote {
  let quote = quotes.get(fw);
  if (!quote) {
    const known = new Map<string, string>();
    const collect = (value: unknown): void => {
      if (typeof value === 'string') known.set(value, stringify(value));
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(fw);
    quote = (value) => known.get(value) ?? stringify(value);
    quotes.set(fw, quote);
  }
  return quote;
}
/**
 * A string whose every character JSON writes as itself, quoted: a figure (digits, "-", "."), a date or timestamp, a
 * UUID, a SHA-256, a risk_indicator_id, a planner type or subtype (all of these validated to their patterns).
 */
const plain = (value: string): string => `"${value}"`;
const nullable = (value: string | null, write = plain): string => (value === null ? 'null' : write(value));
const integer = (value: number | null): string => (value === null ? 'null' : `${value}`);
/** An input value as the document wrote it: a validated number, a string or a boolean. */
const scalar = (value: InputValue | null, known: Quote): string =>
  typeof value === 'string' ? known(value) : `${value}`;

function list<T>(items: readonly T[], write: (item: T) => string): string {
  let out = '';
  for (let i = 0; i < items.length; i++) out += i === 0 ? write(items[i] as T) : `,${write(items[i] as T)}`;
  return `[${out}]`;
}

/** canonicalJson(document) of a validated approved-inputs document. */
export function canonicalInputs(doc: InputsDocument, known: Quote = stringify): string {
  const p = doc.provider;
  const keys = Object.keys(doc.inputs).sort();
  let inputs = '';
  for (const key of keys) {
    const value = doc.inputs[key];
    if (value !== undefined) inputs += `${inputs === '' ? '' : ','}${known(key)}:${item(value, known)}`;
  }
  return (
    `{"evaluation_date":${plain(doc.evaluation_date)},"inputs":{${inputs}},"provider":{"id":${plain(p.id)},` +
    `"name":${stringify(p.name)},"planner_type":${plain(p.planner_type)},"provider_subtype":${plain(p.provider_subtype)},` +
    `"yield_max":${p.yield_max},"yield_min":${p.yield_min}}}`
  );
}

const item = (i: Item, known: Quote): string =>
  `{"approved_at":${plain(i.approved_at)},"approved_by":${stringify(i.approved_by)},"as_of":${plain(i.as_of)},` +
  `"source":${stringify(i.source)},"value":${scalar(i.value, known)}}`;

type Factor = Result['svc_decision_object']['ceiling_factors'][number];
const factor = (f: Factor, known: Quote): string =>
  `{"criterion_id":${known(f.criterion_id)},"criterion_label":${known(f.criterion_label)},"detail":${stringify(f.detail)},` +
  `"point_impact":${plain(f.point_impact)}}`;

/** canonicalJson(result) of a result (a Risk Indicator in text form) built by the engine. */
export function canonicalResult(r: Result, known: Quote = stringify): string {
  const d = r.svc_decision_object;
  const next =
    d.next_band === undefined
      ? ''
      : `"next_band":${known(d.next_band)},"points_to_next_band":${plain(d.points_to_next_band as string)},`;
  const criteria = list(
    r.criterion_scores,
    (s) =>
      `{"age_days":${integer(s.age_days)},"as_of":${nullable(s.as_of)},"contribution":${plain(s.contribution)},` +
      `"criterion_id":${known(s.criterion_id)},"criterion_label":${known(s.criterion_label)},` +
      `"freshness":${plain(s.freshness)},"input_key":${known(s.input_key)},"input_value":${scalar(s.input_value, known)},` +
      `"missing":${s.missing},"module_id":${known(s.module_id)},"points":${plain(s.points)},"weight":${s.weight}}`,
  );
  const caps = list(
    d.hard_caps_fired,
    (c) =>
      `{"binding":${c.binding},"cap":${plain(c.cap)},"cap_id":${known(c.cap_id)},"label":${known(c.label)},` +
      `"point_impact":${plain(c.point_impact)}}`,
  );
  const modules = list(
    r.score_commentary.modules,
    (m) =>
      `{"label":${known(m.label)},"max":${m.max},"module_id":${known(m.module_id)},"score":${plain(m.score)},` +
      `"text":${stringify(m.text)}}`,
  );
  return (
    `{"confidence":${plain(r.confidence)},"criterion_scores":${criteria},"final_score":${plain(r.final_score)},` +
    `"framework_version":${known(r.framework_version)},"id":${plain(r.id)},"name":${stringify(r.name)},` +
    `"planner_type":${plain(r.planner_type)},"provider_id":${plain(r.provider_id)},` +
    `"provider_subtype":${plain(r.provider_subtype)},"publishable":${r.publishable},"risk_band":${known(r.risk_band)},` +
    `"risk_indicator_id":${plain(r.risk_indicator_id)},"score_commentary":{"modules":${modules},` +
    `"overview":${stringify(r.score_commentary.overview)}},"scored_at":${plain(r.scored_at)},` +
    `"svc_decision_object":{"ceiling_factors":${list(d.ceiling_factors, (f) => factor(f, known))},` +
    `"floor_factors":${list(d.floor_factors, (f) => factor(f, known))},"hard_caps_fired":${caps},${next}"summary":${stringify(d.summary)}},` +
    `"yield_max":${r.yield_max},"yield_min":${r.yield_min}}`
  );
}

/** canonicalJson(steps) of steps built by the engine. */
export function canonicalSteps(s: Steps, known: Quote = stringify): string {
  const criteria = list(
    s.criteria,
    (t) =>
      `{"age_days":${integer(t.age_days)},"as_of":${nullable(t.as_of)},"contribution":${plain(t.contribution)},` +
      `"criterion_id":${known(t.criterion_id)},"derived":${
        t.derived === null ? 'null' : `{"name":${known(t.derived.name)},"value":${plain(t.derived.value)}}`
      },"freshness":${plain(t.freshness)},"input_key":${known(t.input_key)},"input_value":${scalar(t.input_value, known)},` +
      `"missing":${t.missing},"points":${plain(t.points)},"weight":${t.weight}}`,
  );
  const caps = list(
    s.hard_caps,
    (c) =>
      `{"binding":${c.binding},"cap":${plain(c.cap)},"cap_id":${known(c.cap_id)},"condition":${known(c.condition)},` +
      `"fired":${c.fired},"label":${known(c.label)},"operands":${list(
        c.operands,
        (o) => `{"operand":${known(o.operand)},"value":${o.value === null ? 'null' : scalar(o.value, known)}}`,
      )},"point_impact":${plain(c.point_impact)}}`,
  );
  return (
    `{"capped":${plain(s.capped)},"confidence":${plain(s.confidence)},"criteria":${criteria},` +
    `"final_score":${plain(s.final_score)},"hard_caps":${caps},"next_band":${nullable(s.next_band, known)},` +
    `"points_to_next_band":${nullable(s.points_to_next_band)},"publishable":${s.publishable},` +
    `"risk_band":${known(s.risk_band)},"uncapped":${plain(s.uncapped)}}`
  );
}

/** canonicalJson(pkg) of a package built by the engine, from the texts of its inputs, result and steps. */
export function canonicalPackage(
  pkg: ComputationPackage,
  parts: { inputs: string; result: string; steps: string },
  known: Quote = stringify,
): string {
  const { engine, framework } = pkg;
  return (
    `{"engine":{"name":${known(engine.name)},"version":${known(engine.version)}},` +
    `"evaluation_date":${plain(pkg.evaluation_date)},"framework":{"framework_version":${known(
      framework.framework_version,
    )},"sha256":${plain(framework.sha256)},"version":${known(framework.version)}},"inputs":${parts.inputs},` +
    `"inputs_sha256":${plain(pkg.inputs_sha256)},"package_format":${known(pkg.package_format)},` +
    `"result":${parts.result},"result_sha256":${plain(pkg.result_sha256)},` +
    `"risk_indicator_id":${plain(pkg.risk_indicator_id)},"steps":${parts.steps}}`
  );
}
