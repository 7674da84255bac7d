import { TooPreciseNumber } from '../inputs/messages.js';

export interface Difference {
  /** Where the package and the recomputation part, e.g. "steps.criteria[A1].points". */
  step: string;
  /** What the recomputation gives, as JSON text; undefined when it has no such field. */
  expected: string | undefined;
  /** What the package holds, as JSON text; undefined when it lacks the field. */
  found: string | undefined;
}

const ITEM_KEYS = ['criterion_id', 'cap_id', 'module_id', 'operand'] as const;

/**
 * Every place where `found` differs from `expected`, in the order of
 * `expected`'s fields (the order in which the computation runs), then any
 * field only `found` has.
 */
export function differences(expected: unknown, found: unknown, path = ''): Difference[] {
  if (isRecord(expected) && isRecord(found)) {
    const out: Difference[] = [];
    for (const key of Object.keys(expected)) out.push(...differences(expected[key], found[key], join(path, key)));
    for (const key of Object.keys(found)) {
      if (!(key in expected)) out.push({ step: join(path, key), expected: undefined, found: show(found[key]) });
    }
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(found)) {
    const out: Difference[] = [];
    const length = Math.max(expected.length, found.length);
    for (let i = 0; i < length; i++)
      out.push(...differences(expected[i], found[i], `${path}[${labelOf(expected[i], i)}]`));
    return out;
  }
  if (Object.is(expected, found)) return [];
  return [{ step: path || '(package)', expected: show(expected), found: show(found) }];
}

function labelOf(item: unknown, index: number): string {
  if (isRecord(item)) {
    for (const key of ITEM_KEYS) if (typeof item[key] === 'string') return item[key] as string;
  }
  return String(index);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function show(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = value instanceof TooPreciseNumber ? value.text : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
