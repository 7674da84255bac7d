import { createHash, createPublicKey, verify } from 'node:crypto';
import { canonicalJson, readJson } from '@svc/methodology';
import type { Store } from '../../src/store/store.js';

/**
 * Signed statements (issue 14, decision 0026) as a reader outside the service checks them: the Ed25519 signature
 * over the RFC 8785 bytes, with nothing of the service's signing code.
 */

export const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Whether `signature` (base64url) is an Ed25519 signature of `text` under the raw public key `x` (base64url). */
export function signatureHolds(text: string, signature: string, x: string): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64url'));
}

/** The kid rule: the first 16 hex digits of SHA-256 of the raw 32-byte public key. */
export const kidRule = (x: string) => sha256(Buffer.from(x, 'base64url')).slice(0, 16);

export interface StoredStatement {
  id: number;
  type: string;
  provider_id: string;
  risk_indicator_id: string;
  publication_seq: number;
  text: string;
  statement: Record<string, unknown>;
  statement_sha256: string;
  signature: string;
  kid: string;
  signed_at: string;
}

/** Every statement of the store, in the order signed, with the text parsed. */
export async function storedStatements(store: Store): Promise<StoredStatement[]> {
  const rows = await store.db.selectFrom('statements').selectAll().orderBy('id').execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    provider_id: r.provider_id,
    risk_indicator_id: r.risk_indicator_id,
    publication_seq: Number(r.publication_seq),
    text: r.statement,
    statement: readJson(r.statement) as Record<string, unknown>,
    statement_sha256: r.statement_sha256,
    signature: r.signature,
    kid: r.kid,
    signed_at: r.signed_at,
  }));
}

/** The public key (x) of every key the store records, by kid. */
export async function publicKeys(store: Store): Promise<Map<string, string>> {
  const rows = await store.db.selectFrom('signing_keys').select(['kid', 'public_key']).execute();
  return new Map(rows.map((r) => [r.kid, r.public_key]));
}

/**
 * Asserts what holds of every stored statement whatever it says: its text is the RFC 8785 form of itself, its hash
 * is the hash of that text, and its signature verifies under the key it names. Returns a list of what fails.
 */
export async function statementFaults(store: Store): Promise<string[]> {
  const keys = await publicKeys(store);
  const faults: string[] = [];
  for (const s of await storedStatements(store)) {
    if (canonicalJson(s.statement) !== s.text) faults.push(`statement ${s.id} is not stored in its RFC 8785 form`);
    if (sha256(s.text) !== s.statement_sha256) faults.push(`statement ${s.id}: statement_sha256 is not its hash`);
    const x = keys.get(s.kid);
    if (x === undefined) faults.push(`statement ${s.id}: no key ${s.kid}`);
    else if (!signatureHolds(s.text, s.signature, x)) faults.push(`statement ${s.id}: the signature does not verify`);
    if (s.statement.signed_at !== s.signed_at) faults.push(`statement ${s.id}: signed_at differs from its column`);
  }
  return faults;
}

/** Each provider's statements chain: the first names null, each next one the SHA-256 of the one before. */
export function chainFaults(statements: readonly StoredStatement[]): string[] {
  const last = new Map<string, string>();
  const faults: string[] = [];
  for (const s of statements) {
    const expected = last.get(s.provider_id) ?? null;
    if (s.statement.prev_statement_sha256 !== expected) {
      faults.push(`statement ${s.id} names ${String(s.statement.prev_statement_sha256)}, not ${String(expected)}`);
    }
    last.set(s.provider_id, sha256(s.text));
  }
  return faults;
}
