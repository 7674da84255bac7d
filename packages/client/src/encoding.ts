/**
 * The byte encodings the webhook helpers need, for every runtime: `TextEncoder`, `atob` and `Uint8Array` exist in
 * Node.js 20+, browsers, Deno, Bun and Workers alike, so nothing here imports from `node:`.
 */

/** What a caller may hand over as a webhook body: the text, or the raw bytes as they arrived. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64_DIGITS = /^[A-Za-z0-9+/]*$/;

const encoder = new TextEncoder();

/** The UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The bytes of a webhook body: a string is encoded as UTF-8, bytes are used as they are (a Node.js `Buffer` is a
 * `Uint8Array`). Anything else is a programmer error, so it throws.
 */
export function bodyBytes(rawBody: RawBody, caller: string): Uint8Array {
  if (typeof rawBody === 'string') return utf8(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new TypeError(
    `${caller}: rawBody must be the raw request body as a string, Uint8Array (or Buffer) or ArrayBuffer, not ${describe(rawBody)}`,
  );
}

/** `a` followed by `b`, in a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

/** The bytes of an even-length hex string in either case, or undefined when it is not one. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (!HEX.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * The bytes of a standard-alphabet base64 string, padded or not, or undefined when it is not one. Checked here
 * because `atob` also skips whitespace, and the runtimes disagree on what else it forgives.
 */
export function base64ToBytes(base64: string): Uint8Array | undefined {
  const digits = base64.replace(/={1,2}$/, '');
  const padded = digits.length !== base64.length;
  if (!BASE64_DIGITS.test(digits) || digits.length % 4 === 1 || (padded && base64.length % 4 !== 0)) return undefined;
  return Uint8Array.from(atob(digits), (c) => c.charCodeAt(0));
}

/** A short description of an unexpected value for a TypeError message, never the value itself (it may be a secret). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  const kind = Array.isArray(value)
    ? 'array'
    : typeof value === 'object'
      ? (value.constructor?.name ?? 'object')
      : typeof value;
  return `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`;
}
