import { epochDay, isCalendarDate, isUtcTimestamp } from '../dates.js';
import { boundTest, significantDigitsOfText } from '../decimal.js';
import type { CriterionDefinition, Framework } from '../framework/schema.js';
import { isPlainText } from '../text.js';
import { type InputItem, type InputsDocument, type InputValue, PLANNER_TYPES, type Provider } from './shape.js';

/**
 * The happy path of validateInputs, by hand: the document the schema gives for a raw document that keeps every
 * rule, or undefined for any other (which then goes through the schema, the reference, for its problems). It
 * accepts no document the schema refuses and builds the same objects, members in the schema's order; the oracle
 * test compares the two on generated documents and on every breakage (docs/decisions/0034-fast-engine-path.md).
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SUBTYPE = /^[a-z0-9_]{1,64}$/;
const YIELD_MIN = boundTest('0', 'min');
const YIELD_MAX = boundTest('100', 'max');

type ValueCheck = (value: unknown) => boolean;

/** Per framework: each input key's value check, in the schema's (framework) order. */
const checks = new WeakMap<Framework, [string, ValueCheck][]>();

function valueChecks(framework: Framework): [string, ValueCheck][] {
  let known = checks.get(framework);
  if (!known) {
    known = framework.definition.criteria.map((c) => [c.input_key, valueCheck(c)]);
    checks.set(framework, known);
  }
  return known;
}

/** The value rule of valueSchema (document.ts) as a test. */
function valueCheck(criterion: CriterionDefinition): ValueCheck {
  const { input, scale } = criterion;
  switch (input.type) {
    case 'decimal':
    case 'integer': {
      const min = input.min === undefined ? null : boundTest(input.min, 'min');
      const max = input.max === undefined ? null : boundTest(input.max, 'max');
      const integer = input.type === 'integer';
      return (v) =>
        exactNumber(v) && (!integer || Number.isInteger(v)) && (min === null || min(v)) && (max === null || max(v));
    }
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'enum': {
      const allowed = new Set(scale.kind === 'table' ? scale.entries.map(([v]) => String(v)) : []);
      return (v) => typeof v === 'string' && allowed.has(v);
    }
  }
}

/** A finite JSON number of at most 15 significant digits. */
const exactNumber = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && significantDigitsOfText(String(v)) <= 15;

/** An object as JSON.parse makes it (no prototype tricks), holding exactly `count` own keys. */
function isPlainRecord(value: unknown, count: number): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.keys(value).length === count;
}

const has = (record: Record<string, unknown>, key: string) => Object.hasOwn(record, key);
const nonEmptyText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && isPlainText(v);
const date = (v: unknown): v is string => typeof v === 'string' && isCalendarDate(v);

export function validDocument(raw: unknown, framework: Framework): InputsDocument | undefined {
  if (!isPlainRecord(raw, 3) || !has(raw, 'provider') || !has(raw, 'evaluation_date') || !has(raw, 'inputs')) return;
  const provider = validProvider(raw.provider);
  const evaluationDate = raw.evaluation_date;
  if (provider === undefined || !date(evaluationDate)) return;
  const evaluationDay = epochDay(evaluationDate) as number;
  const rawInputs = raw.inputs;
  if (rawInputs === null || typeof rawInputs !== 'object' || Array.isArray(rawInputs)) return;
  const prototype = Object.getPrototypeOf(rawInputs);
  if (prototype !== Object.prototype && prototype !== null) return;
  const given = rawInputs as Record<string, unknown>;
  let found = 0;
  const inputs: Record<string, InputItem> = {};
  for (const [key, check] of valueChecks(framework)) {
    if (!has(given, key)) continue;
    found++;
    const item = validItem(given[key], check, evaluationDay);
    if (item === undefined) return;
    inputs[key] = item;
  }
  if (found !== Object.keys(given).length) return; // a key the framework does not know
  return { provider, evaluation_date: evaluationDate, inputs };
}

function validProvider(raw: unknown): Provider | undefined {
  if (!isPlainRecord(raw, 6)) return;
  const { id, name, planner_type, provider_subtype, yield_min, yield_max } = raw;
  if (typeof id !== 'string' || !UUID.test(id)) return;
  if (typeof name !== 'string' || !isPlainText(name)) return;
  const length = [...name].length;
  if (length < 1 || length > 200) return;
  if (typeof planner_type !== 'string' || !(PLANNER_TYPES as readonly string[]).includes(planner_type)) return;
  if (typeof provider_subtype !== 'string' || !SUBTYPE.test(provider_subtype)) return;
  if (!exactNumber(yield_min) || !YIELD_MIN(yield_min) || !YIELD_MAX(yield_min)) return;
  if (!exactNumber(yield_max) || !YIELD_MIN(yield_max) || !YIELD_MAX(yield_max)) return;
  if (yield_min > yield_max) return;
  return {
    id: id.toLowerCase(),
    name,
    planner_type: planner_type as Provider['planner_type'],
    provider_subtype,
    yield_min,
    yield_max,
  };
}

function validItem(raw: unknown, check: ValueCheck, evaluationDay: number): InputItem | undefined {
  if (!isPlainRecord(raw, 5)) return;
  const { value, as_of, source, approved_by, approved_at } = raw;
  if (!has(raw, 'value') || !check(value)) return;
  if (!date(as_of) || (epochDay(as_of) as number) > evaluationDay) return;
  if (!nonEmptyText(source) || !nonEmptyText(approved_by)) return;
  if (typeof approved_at !== 'string' || !isUtcTimestamp(approved_at)) return;
  return { value: value as InputValue, as_of, source, approved_by, approved_at };
}
