import fc from 'fast-check';

/** Hostile values, JSON texts no serialiser writes, and mutations of a valid value tree. */

/** JSON written as is, for what JSON.stringify cannot produce: 1e309, -0, 30-digit numbers, deep nesting, repeated keys. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson pieces. */
export function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof RawJson ? `\u0000raw${raws.push(v.text) - 1}\u0000` : v,
  );
  return (text ?? '').replace(/"\\u0000raw(\d+)\\u0000"/g, (_match, i: string) => raws[Number(i)] ?? 'null');
}

const nested = (depth: number, open: string, close: string, inner = '') =>
  new RawJson(`${open.repeat(depth)}${inner}${close.repeat(depth)}`);

export const HOSTILE_NUMBERS = [
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '0.0000000000000000000000001',
  '123456789012345678901234567890',
  '9007199254740993',
  '1.0000000000000001',
  '1E2',
  '0e0',
];

export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\r\n',
  '\ud800',
  'x\udfffy',
  '\udbff\udfff',
  'a\u0000b',
  '\u202egnp.exe',
  // Control-character names (issue 11): a terminal escape, BEL and backspace, DEL and C1 (CSI), a line break
  // inside a name, bidi isolates, a line separator, a form feed and vertical tab (XML forbids both), U+FFFF.
  'Evil\u001b[2J\u001b]0;owned\u0007 Lending',
  'Co\u0007\u0008\u0008',
  'Acme\u007f\u009b31m Inc',
  'Acme\r\nInc',
  'a\u2066b\u2069c',
  'Lending\u2028Co',
  'x\u000b\u000cy',
  'z\uffff',
  'e\u0301',
  '\u0301\u0301',
  '\ufeff',
  '\u{1F4A5}',
  'İı ß ﬀ Ⅻ',
  'مرحبا',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '=HYPERLINK("http://x")',
  '../../etc/passwd',
  '%00',
  '%zz',
  '\r\nX-Injected: 1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, meant literally
  '${jndi:ldap://x}',
  '__proto__',
  'NaN',
  '1e309',
  '2026-02-30',
  '\\',
  '"',
  'x'.repeat(10_000),
  '9'.repeat(400),
];

/** One value that no schema of the contract wants where it is put. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS.map((text) => new RawJson(text))),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, Number.MAX_VALUE, [], {}, [null], { '': '' }),
  fc.constantFrom(65, 1000, 20_000).map((depth) => nested(depth, '[', ']')),
  fc.constantFrom(65, 1000).map((depth) => nested(depth, '{"a":', '}', '1')),
  fc.constantFrom(
    new RawJson('{"__proto__":{"polluted":true}}'),
    new RawJson('{"constructor":{"prototype":{"polluted":true}}}'),
    new RawJson('{"a":1,"a":2}'),
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

export type TreePath = (string | number)[];

/** Every place in a value tree, the root first, breadth-first (at most `limit`). */
export function placesOf(value: unknown, limit = 200): TreePath[] {
  const places: TreePath[] = [[]];
  for (let i = 0; i < places.length && places.length < limit; i++) {
    const path = places[i] as TreePath;
    const node = at(value, path);
    if (Array.isArray(node)) for (let j = 0; j < node.length; j++) places.push([...path, j]);
    else if (isObject(node)) for (const key of Object.keys(node)) places.push([...path, key]);
  }
  return places.slice(0, limit);
}

function at(value: unknown, path: TreePath): unknown {
  let node = value;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson);

/** A copy of the tree with `edit` applied to the node at `path` (the node is replaced by its result; undefined removes it). */
export function editAt(value: unknown, path: TreePath, edit: (node: unknown) => unknown): unknown {
  if (path.length === 0) return edit(value);
  const [step, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = editAt(copy[step as number], rest, edit);
    if (next === undefined) copy.splice(step as number, 1);
    else copy[step as number] = next;
    return copy;
  }
  if (isObject(value)) {
    const copy: Record<string, unknown> = { ...value };
    const next = editAt(copy[step as string], rest, edit);
    if (next === undefined) delete copy[step as string];
    // defineProperty: an own "__proto__" member stays a member instead of replacing the prototype.
    else
      Object.defineProperty(copy, step as string, {
        value: next,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  }
  return value;
}

/** A mutation of a valid value, and its label for the report. */
export function mutationOf(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ value: unknown; label: string }> {
  const place = (v: unknown, n: number) => {
    const places = placesOf(v);
    return places[n % places.length] as TreePath;
  };
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.nat(), hostileValue).map(([v, n, hostile]) => ({
        value: editAt(v, place(v, n), () => hostile),
        label: 'hostile-value',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat()).map(([v, n]) => {
        const path = place(v, n);
        return { value: path.length === 0 ? v : editAt(v, path, () => undefined), label: 'member-removed' };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.nat(), fc.constantFrom('extra', '__proto__', 'constructor', ''), hostileValue)
        .map(([v, n, key, hostile]) => ({
          value: editAt(v, place(v, n), (node) => (isObject(node) ? { ...node, [key]: hostile } : node)),
          label: 'unknown-member',
        })),
    },
  );
}
