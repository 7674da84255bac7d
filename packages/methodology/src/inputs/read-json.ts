import { parse } from 'lossless-json';
import { significantDigitsOfText } from '../decimal.js';
import { TooPreciseNumber } from './messages.js';

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

/**
 * Parses JSON text, keeping every number as written: a number of at most 15
 * significant digits becomes a JS number (which gives those digits back
 * exactly); a longer one stays a TooPreciseNumber so validation refuses it
 * instead of silently rounding it.
 */
export function readJson(text: string): unknown {
  const plain = readPlainJson(text);
  return plain === undefined ? readJsonExactly(text) : plain.value;
}

/** The reader of record: every number through its lexeme, every duplicate key refused. */
export function readJsonExactly(text: string): unknown {
  try {
    return parse(text, null, (lexeme: string) => {
      const value = Number(lexeme);
      const exact = Number.isFinite(value) && significantDigitsOfText(lexeme) <= 15;
      return exact ? value : new TooPreciseNumber(lexeme);
    });
  } catch (error) {
    // The reader descends one call per level: a text nested thousands deep runs out of stack, which says nothing
    // to the reader of the message ("Maximum call stack size exceeded"). No document of the service nests so deep.
    if (error instanceof RangeError) throw new JsonSyntaxError('arrays and objects are nested too deeply to read');
    throw new JsonSyntaxError((error as Error).message);
  }
}

/** Nesting beyond this goes to the exact reader, which decides (and fails) as it always has. */
const MAX_PLAIN_DEPTH = 64;

/**
 * JSON.parse's value when it is provably what readJsonExactly returns, else
 * undefined. JSON.parse accepts exactly the valid JSON texts, which the exact
 * reader reads into the same tree (own "__proto__" members, numbers as
 * Number(lexeme)), unless a number is not exact or a key repeats: the scan
 * rules out the first; the second shows as fewer keys than colons.
 */
function readPlainJson(text: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const members = membersIfPlain(text);
  return members !== null && keysIfFinite(value) === members ? { value } : undefined;
}

/**
 * Of a valid JSON text: the number of object members (colons outside
 * strings), or null when a number has more than 15 significant digits or the
 * nesting is deep.
 */
function membersIfPlain(text: string): number | null {
  let members = 0;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      i = afterString(text, i);
      continue;
    }
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const start = i;
      while (i < text.length && isNumberCharacter(text.charCodeAt(i))) i++;
      // A lexeme of at most 15 characters has at most 15 digits: only a longer one is counted.
      if (i - start > 15 && significantDigitsOfText(text.slice(start, i)) > 15) return null;
      continue;
    }
    if (code === 0x3a) members++;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_PLAIN_DEPTH) return null;
    } else if (code === 0x7d || code === 0x5d) depth--;
    i++;
  }
  return members;
}

/** The index just after the string that opens at `open` in a valid JSON text. */
function afterString(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1 && isEscaped(text, close)) close = text.indexOf('"', close + 1);
  return close === -1 ? text.length : close + 1;
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

/** Digits, sign, decimal point and exponent: what a JSON number lexeme is made of. */
function isNumberCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2d || code === 0x2b || code === 0x65 || code === 0x45
  );
}

/** Own keys of every object in a parsed value, or -1 if a number is not finite (1e400). */
function keysIfFinite(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : -1;
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let keys = Array.isArray(value) ? 0 : children.length;
  for (const child of children) {
    const inner = keysIfFinite(child);
    if (inner < 0) return -1;
    keys += inner;
  }
  return keys;
}
