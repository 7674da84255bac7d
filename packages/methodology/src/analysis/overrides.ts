import type { Framework } from '../framework/schema.js';
import type { InputItem, InputsDocument, InputValue, Problem, Validation } from '../inputs/document.js';
import { validateInputs } from '../inputs/document.js';
import { messages as M } from './messages.js';

/**
 * What-if: the document with each named input's value replaced, validated by
 * the engine's own validation, so an unknown key, a wrong type or an
 * out-of-range value comes back as problems such as
 * `inputs.collateral_coverage_ratio.value`.
 *
 * An override is either the new value itself, which keeps the item's as_of,
 * source and approvals, or an object `{value, as_of?}` that also moves the
 * evidence date (an object cannot be a value: values are strings, numbers and
 * booleans). A missing input gets a what-if item dated `as_of`, else the
 * evaluation date, so it counts as fresh evidence. No override removes an
 * input: null is never a value.
 */
export function applyOverrides(
  document: InputsDocument,
  overrides: Record<string, unknown>,
  framework: Framework,
): Validation {
  if (!isRecord(overrides)) return { ok: false, problems: [{ path: 'overrides', message: M.notOverrides }] };
  const problems: Problem[] = [];
  const replaced = Object.entries(overrides).map(([key, override]): [string, unknown] => {
    const { value, as_of, extra } = readOverride(override);
    for (const field of extra) problems.push({ path: `inputs.${key}.${field}`, message: M.notOverrideField });
    const item = Object.hasOwn(document.inputs, key) ? document.inputs[key] : undefined;
    // Unchecked here: validation below reports a value or an as_of of the wrong type with its path.
    const base = item ?? whatIfItem(document, value as InputValue);
    return [key, as_of === undefined ? { ...base, value } : { ...base, value, as_of }];
  });
  // fromEntries defines own properties, so a key such as "__proto__" is reported, never assigned to a prototype.
  const inputs = Object.fromEntries([...Object.entries(document.inputs), ...replaced]);
  const validation = validateInputs({ ...document, inputs }, framework);
  if (problems.length === 0) return validation;
  const all = [...problems, ...(validation.ok ? [] : validation.problems)];
  all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : 1));
  return { ok: false, problems: all };
}

/** The item a what-if gives an input the document lacks: dated on the evaluation date, so fresh. */
export function whatIfItem(document: InputsDocument, value: InputValue): InputItem {
  return {
    value,
    as_of: document.evaluation_date,
    source: M.whatIfSource,
    approved_by: M.whatIfApprover,
    approved_at: `${document.evaluation_date}T00:00:00Z`,
  };
}

function readOverride(override: unknown): { value: unknown; as_of: unknown; extra: string[] } {
  if (!isRecord(override)) return { value: override, as_of: undefined, extra: [] };
  const extra = Object.keys(override).filter((k) => k !== 'value' && k !== 'as_of');
  return { value: override.value, as_of: override.as_of, extra };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
