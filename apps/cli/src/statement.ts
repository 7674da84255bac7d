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
}

interface Jwk {
  kid: string;
  x: string;
  crv?: unknown;
  kty?: unknown;
  not_before?: string;
  not_after?: string;
}

export interface StatementCheck {
  kid: string;
  statement_sha256: string;
  signed_at: string;
  key_status: 'active' | 'retired';
  package_sha256: string;
}

/** Reads a signed statement ({statement, signature, kid, alg}) or refuses it as unreadable, naming what is missing. */
export function signedStatementOf(value: unknown, source: string): SignedStatement {
  const v = value as Partial<SignedStatement> | null;
  if (
    v === null ||
    typeof v !== 'object' ||
    typeof v.statement !== 'object' ||
    v.statement === null ||
    typeof v.signature !== 'string' ||
    typeof v.kid !== 'string'
  ) {
    throw new CliError(
      'invalid_value',
      `${source} is not a signed statement: an object with statement, signature and kid (as GET /api/public/publications/{id} answers)`,
    );
  }
  return v as SignedStatement;
}

function keysOf(value: unknown, source: string): Jwk[] {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) {
    throw new CliError(
      'invalid_value',
      `${source} is not a JWKS: an object with keys (as /.well-known/svc-signing-keys.json)`,
    );
  }
  return keys.filter((k): k is Jwk => typeof k?.kid === 'string' && typeof k?.x === 'string');
}

/**
 * Verifies the statement for the package whose canonical bytes are `packageBytes`. Refusals are `does_not_verify`
 * (exit 1) naming what failed; a statement or key set that cannot be read is exit 2.
 */
export async function checkStatement(
  input: { statement: string; keys: string },
  pkg: { value: Record<string, unknown>; canonical: string },
): Promise<StatementCheck> {
  const signed = signedStatementOf(parseJson(await readSource(input.statement), input.statement), input.statement);
  const keys = keysOf(parseJson(await readSource(input.keys), input.keys), input.keys);
  const key = keys.find((k) => k.kid === signed.kid);
  const fail = (message: string) => new CliError('does_not_verify', `the statement does not verify: ${message}`);
  if (!key) throw fail(`no key ${signed.kid} in ${input.keys}`);
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519') throw fail(`key ${key.kid} is not an Ed25519 key`);
  const bytes = Buffer.from(canonicalJson(signed.statement), 'utf8');
  let valid = false;
  try {
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' });
    valid = verifySignature(null, bytes, publicKey, Buffer.from(signed.signature, 'base64url'));
  } catch {
    valid = false;
  }
  if (!valid) throw fail(`the Ed25519 signature does not match the statement's bytes under key ${key.kid}`);
  const signedAt = String(signed.statement.signed_at ?? '');
  if (key.not_after !== undefined && signedAt > key.not_after) {
    throw fail(`key ${key.kid} was retired at ${key.not_after}, before the statement says it was signed (${signedAt})`);
  }
  if (key.not_before !== undefined && signedAt < key.not_before) {
    throw fail(`the statement says it was signed at ${signedAt}, before key ${key.kid} existed (${key.not_before})`);
  }
  const packageSha256 = createHash('sha256').update(pkg.canonical, 'utf8').digest('hex');
  const named: [string, unknown, unknown][] = [
    ['package_sha256', signed.statement.package_sha256, packageSha256],
    ['risk_indicator_id', signed.statement.risk_indicator_id, pkg.value.risk_indicator_id],
    ['inputs_sha256', signed.statement.inputs_sha256, pkg.value.inputs_sha256],
    ['result_sha256', signed.statement.result_sha256, pkg.value.result_sha256],
  ];
  for (const [field, stated, found] of named) {
    if (stated !== found) throw fail(`it names ${field} ${String(stated)}, the package has ${String(found)}`);
  }
  return {
    kid: key.kid,
    statement_sha256: createHash('sha256').update(bytes).digest('hex'),
    signed_at: signedAt,
    key_status: key.not_after === undefined ? 'active' : 'retired',
    package_sha256: packageSha256,
  };
}
