import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { canonicalJson } from '@svc/methodology';
import { CliError } from './errors.js';
import { parseJson, readText } from './files.js';

/**
 * Checks a signed statement (decision 0026) against the signing keys (a JWKS) and the package it should name,
 * without the service: the Ed25519 signature over the statement's RFC 8785 bytes, the key's lifetime, and that the
 * statement names this package (its risk_indicator_id, inputs, result and package hashes).
 */

/** The largest statement or key set read from a URL. */
const MAX_BYTES = 1_000_000;
const FETCH_TIMEOUT_MS = 15_000;

/** A file's text, or a URL's body (http or https). */
export async function readSource(source: string): Promise<string> {
  if (!/^https?:\/\//i.test(source)) return readText(source);
  let response: Response;
  try {
    response = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    throw new CliError('unreadable', `cannot fetch ${source}: ${(error as Error).message}`, { cause: error });
  }
  if (!response.ok) throw new CliError('unreadable', `cannot fetch ${source}: HTTP ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > MAX_BYTES) throw new CliError('unreadable', `${source} is larger than ${MAX_BYTES} bytes`);
  return bytes.toString('utf8');
}

interface SignedStatement {
  statement: Record<string, unknown>;
  signature: string;
  kid: string;
  alg: string;
  statement_sha256: string;
}

interface Jwk {
  kid: string;
  x?: unknown;
  crv?: unknown;
  kty?: unknown;
  not_before?: unknown;
  not_after?: unknown;
}

export interface StatementCheck {
  kid: string;
  statement_sha256: string;
  signed_at: string;
  key_status: 'active' | 'retired';
  package_sha256: string;
}

/**
 * Rule 1 of docs/auditing.md section 8: an object with `statement` (an object) and `signature`, `kid`, `alg` and
 * `statement_sha256` (strings); anything else is not a signed statement (exit 2).
 */
export function signedStatementOf(value: unknown, source: string): SignedStatement {
  const v = value as Partial<SignedStatement> | null;
  const text = (name: keyof SignedStatement) => typeof v?.[name] === 'string';
  if (
    v === null ||
    typeof v !== 'object' ||
    Array.isArray(v) ||
    typeof v.statement !== 'object' ||
    v.statement === null ||
    Array.isArray(v.statement) ||
    !(['signature', 'kid', 'alg', 'statement_sha256'] as const).every(text)
  ) {
    throw new CliError(
      'invalid_value',
      `${source} is not a signed statement: an object with statement, signature, kid, alg and statement_sha256 (as GET /api/public/publications/{id} answers)`,
    );
  }
  return v as SignedStatement;
}

/** Rule 3's first half: a JWKS is an object whose `keys` is an array; anything else is exit 2. */
function keysOf(value: unknown, source: string): Jwk[] {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (value === null || typeof value !== 'object' || !Array.isArray(keys)) {
    throw new CliError(
      'invalid_value',
      `${source} is not a JWKS: an object with keys (as /.well-known/svc-signing-keys.json)`,
    );
  }
  return keys.filter((k): k is Jwk => typeof k === 'object' && k !== null && typeof k.kid === 'string');
}

/** base64url without padding, exactly `bytes` long (rules 3 and 4); null otherwise. */
function base64urlBytes(text: unknown, bytes: number): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const decoded = Buffer.from(text, 'base64url');
  return decoded.length === bytes && decoded.toString('base64url') === text ? decoded : null;
}

/** Rule 6: a UTC timestamp as the service writes it (`Z`, 0 to 9 fraction digits), as text that sorts by instant. */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;
export function instantKey(text: unknown): string | null {
  const m = typeof text === 'string' ? TIMESTAMP.exec(text) : null;
  if (!m?.[1] || Number.isNaN(Date.parse(`${m[1]}Z`)) || new Date(`${m[1]}Z`).toISOString().slice(0, 19) !== m[1]) {
    return null;
  }
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}`;
}

/**
 * Verifies the statement for the package whose canonical bytes are `packageBytes`, by the rules of docs/auditing.md
 * section 8. Refusals are `does_not_verify` (exit 1) naming the rule that failed; a statement or key set that cannot
 * be read is exit 2.
 */
export async function checkStatement(
  input: { statement: string; keys: string },
  pkg: { value: Record<string, unknown>; canonical: string },
): Promise<StatementCheck> {
  const signed = signedStatementOf(parseJson(await readSource(input.statement), input.statement), input.statement);
  const keys = keysOf(parseJson(await readSource(input.keys), input.keys), input.keys);
  const fail = (message: string) => new CliError('does_not_verify', `the statement does not verify: ${message}`);
  if (signed.alg !== 'EdDSA') throw fail(`its alg is ${JSON.stringify(signed.alg)}, not "EdDSA" (rule 2)`);
  const key = keyFor(keys, signed.kid, input.keys, fail);
  const bytes = Buffer.from(canonicalJson(signed.statement), 'utf8');
  const raw = base64urlBytes(key.x, 32) as Buffer;
  const signature = base64urlBytes(signed.signature, 64);
  let valid = false;
  try {
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
    valid = signature !== null && verifySignature(null, bytes, publicKey, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw fail(`the Ed25519 signature does not match the statement's bytes under key ${key.kid} (rule 4)`);
  const statementSha256 = createHash('sha256').update(bytes).digest('hex');
  if (signed.statement_sha256 !== statementSha256) {
    throw fail(
      `its statement_sha256 is not the SHA-256 of its statement's RFC 8785 bytes, ${statementSha256} (rule 5)`,
    );
  }
  const signedAt = lifeOf(signed.statement.signed_at, key, fail);
  const packageSha256 = createHash('sha256').update(pkg.canonical, 'utf8').digest('hex');
  namesPackage(signed.statement, pkg.value, packageSha256, fail);
  return {
    kid: key.kid,
    statement_sha256: statementSha256,
    signed_at: signedAt,
    key_status: key.not_after === undefined ? 'active' : 'retired',
    package_sha256: packageSha256,
  };
}

/** Rule 3: exactly one key has the kid; it is Ed25519, its x 32 bytes, and the kid is the first 16 hex digits of its SHA-256. */
function keyFor(keys: Jwk[], kid: string, source: string, fail: (message: string) => CliError): Jwk {
  const found = keys.filter((k) => k.kid === kid);
  if (found.length === 0) throw fail(`no key ${kid} in ${source} (rule 3)`);
  if (found.length > 1) throw fail(`${found.length} keys ${kid} in ${source}: which one signed is not known (rule 3)`);
  const key = found[0] as Jwk;
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519') throw fail(`key ${kid} is not an Ed25519 key (rule 3)`);
  const raw = base64urlBytes(key.x, 32);
  if (!raw) throw fail(`key ${kid}'s x is not base64url of 32 bytes (rule 3)`);
  if (createHash('sha256').update(raw).digest('hex').slice(0, 16) !== kid) {
    throw fail(`the kid ${kid} is not the first 16 hex digits of the SHA-256 of its key's x (rule 3)`);
  }
  return key;
}

/** Rule 6: signed_at within the key's life, as instants, every timestamp in the service's UTC form. */
function lifeOf(signedAt: unknown, key: Jwk, fail: (message: string) => CliError): string {
  const at = instantKey(signedAt);
  if (at === null) throw fail(`its signed_at ${JSON.stringify(signedAt)} is not a UTC timestamp ending in Z (rule 6)`);
  const from = instantKey(key.not_before);
  const until = key.not_after === undefined ? undefined : instantKey(key.not_after);
  if (from === null || until === null) {
    throw fail(`key ${key.kid}'s not_before or not_after is not a UTC timestamp ending in Z (rule 6)`);
  }
  if (at < from) {
    throw fail(
      `the statement says it was signed at ${String(signedAt)}, before key ${key.kid} existed (${String(key.not_before)}) (rule 6)`,
    );
  }
  if (until !== undefined && at > until) {
    throw fail(
      `key ${key.kid} was retired at ${String(key.not_after)}, before the statement says it was signed (${String(signedAt)}) (rule 6)`,
    );
  }
  return signedAt as string;
}

/** Rule 7: a publication statement naming this package by its hash, id, inputs, result and framework. */
function namesPackage(
  statement: Record<string, unknown>,
  pkg: Record<string, unknown>,
  packageSha256: string,
  fail: (message: string) => CliError,
): void {
  if (statement.type !== 'publication') {
    throw fail(`it is a ${JSON.stringify(statement.type)} statement, not a publication's (rule 7)`);
  }
  const framework = pkg.framework as { sha256?: unknown } | undefined;
  const named: [string, unknown, unknown][] = [
    ['package_sha256', statement.package_sha256, packageSha256],
    ['risk_indicator_id', statement.risk_indicator_id, pkg.risk_indicator_id],
    ['inputs_sha256', statement.inputs_sha256, pkg.inputs_sha256],
    ['result_sha256', statement.result_sha256, pkg.result_sha256],
    ['framework_sha256', statement.framework_sha256, framework?.sha256],
  ];
  for (const [field, stated, found] of named) {
    if (stated !== found) throw fail(`it names ${field} ${String(stated)}, the package has ${String(found)} (rule 7)`);
  }
}
