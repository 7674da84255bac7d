import { canonicalJson, type Framework, type FrameworkDefinition } from '@svc/methodology';

/** One difference between two framework definitions. */
export interface DefinitionChange {
  /** Where, by identity rather than position: "criteria[A1].weight", "criteria[A1].scale.anchors[1.20]", "hard_caps[HC-04].cap". */
  path: string;
  change: 'added' | 'removed' | 'changed' | 'reordered';
  /** The value in the first definition; absent when added. For "reordered", the keys in their first order. */
  before?: unknown;
  /** The value in the second definition; absent when removed. */
  after?: unknown;
}

export interface FrameworkComparison {
  from: { framework_version: string; sha256: string };
  to: { framework_version: string; sha256: string };
  identical: boolean;
  changes: DefinitionChange[];
}

/** Compares two frameworks' definitions (a later `diff A B --inputs DIR` adds score changes beside these). */
export function compareFrameworks(a: Framework, b: Framework): FrameworkComparison {
  const changes = a.sha256 === b.sha256 ? [] : diffDefinitions(a.definition, b.definition);
  return {
    from: { framework_version: a.definition.framework_version, sha256: a.sha256 },
    to: { framework_version: b.definition.framework_version, sha256: b.sha256 },
    identical: changes.length === 0,
    changes,
  };
}

/**
 * Every difference between two definitions, in the first one's field order.
 * Lists are matched by identity (criteria, modules and caps by id, bands by
 * band, derived quantities by name, scale anchors by x, table entries by
 * value), so a changed weight reads as one change, not as a shifted list.
 */
export function diffDefinitions(a: FrameworkDefinition, b: FrameworkDefinition): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  diffValue(a, b, '', out);
  return out;
}

function diffValue(before: unknown, after: unknown, path: string, out: DefinitionChange[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) {
      const at = path ? `${path}.${key}` : key;
      if (key in after) diffValue(before[key], after[key], at, out);
      else out.push({ path: at, change: 'removed', before: before[key] });
    }
    for (const key of Object.keys(after)) {
      if (!(key in before)) out.push({ path: path ? `${path}.${key}` : key, change: 'added', after: after[key] });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const keyed = keyedItems(before, after);
    if (keyed) {
      diffKeyed(keyed, path, out);
      return;
    }
  }
  if (canonicalJson(before) !== canonicalJson(after)) out.push({ path, change: 'changed', before, after });
}

interface Keyed {
  before: Map<string, unknown>;
  after: Map<string, unknown>;
}

/** Items by identity; for [key, value] pairs (anchors, table entries) the value alone is compared. */
function keyedItems(before: unknown[], after: unknown[]): Keyed | null {
  for (const identify of IDENTITIES) {
    const b = byKey(before, identify);
    const a = byKey(after, identify);
    if (b && a) return { before: b, after: a };
  }
  return null;
}

type Identify = (item: unknown) => [key: string, value: unknown] | null;

const field =
  (name: string): Identify =>
  (item) =>
    isRecord(item) && typeof item[name] === 'string' ? [item[name] as string, item] : null;

const pair: Identify = (item) =>
  Array.isArray(item) && item.length === 2 && (typeof item[0] === 'string' || typeof item[0] === 'boolean')
    ? [String(item[0]), item[1]]
    : null;

const IDENTITIES: readonly Identify[] = [field('id'), field('band'), field('name'), pair];

/** A map from key to item when every item has a distinct key, else null. */
function byKey(items: unknown[], identify: Identify): Map<string, unknown> | null {
  const map = new Map<string, unknown>();
  for (const item of items) {
    const entry = identify(item);
    if (!entry || map.has(entry[0])) return null;
    map.set(entry[0], entry[1]);
  }
  return map;
}

function diffKeyed({ before, after }: Keyed, path: string, out: DefinitionChange[]): void {
  for (const [key, value] of before) {
    const at = `${path}[${key}]`;
    if (after.has(key)) diffValue(value, after.get(key), at, out);
    else out.push({ path: at, change: 'removed', before: value });
  }
  for (const [key, value] of after) {
    if (!before.has(key)) out.push({ path: `${path}[${key}]`, change: 'added', after: value });
  }
  // The framework's order is the iteration order of the calculation, so a new order is a change of its own.
  const common = (keys: Iterable<string>, other: Map<string, unknown>) => [...keys].filter((k) => other.has(k));
  const first = common(before.keys(), after);
  const second = common(after.keys(), before);
  if (first.some((k, i) => k !== second[i])) out.push({ path, change: 'reordered', before: first, after: second });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
