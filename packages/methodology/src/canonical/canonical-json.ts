import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 (JCS) text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

export function sha256Hex(text: string): string {
  // One-shot hashing (Node 20.12+): the same digest as createHash().update(text, 'utf8'), without the stream object.
  return hash('sha256', text, 'hex');
}

/** SHA-256 of the canonical JSON of a value. */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
