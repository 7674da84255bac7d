import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 (JCS) text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** SHA-256 of the canonical JSON of a value. */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * RFC 8785 text of a plain object some of whose members are already in
 * canonical form (`parts`, by key): the same bytes as canonicalJson(value).
 * Members are ordered by UTF-16 code units, as JCS orders them.
 */
export function canonicalObject(value: Record<string, unknown>, parts: Readonly<Record<string, string>>): string {
  let members = '';
  for (const key of Object.keys(value).sort()) {
    const member = value[key];
    if (member === undefined) continue;
    members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${parts[key] ?? canonicalJson(member)}`;
  }
  return `{${members}}`;
}

/** RFC 8785 text of an array whose items are already in canonical form. */
export function canonicalArray(items: readonly string[]): string {
  return `[${items.join(',')}]`;
}
