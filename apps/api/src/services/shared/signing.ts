import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import type { Kysely } from 'kysely';
import { lockAuditHead } from '../../store/repositories/audit.js';
import {
  findSigningKey,
  insertSigningKey,
  latestSignedAt,
  listSigningKeys as listKeyRows,
  retireOtherKeys,
  type SigningKeyRow,
} from '../../store/repositories/statements.js';
import type { Database } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { boxOf, type ServiceContext } from '../context.js';
import { recordAudit } from '../operators/audit.js';
import type { Signer } from './signer.js';

export type { Signer } from './signer.js';

import { ServiceError } from '../errors.js';
import { authorise } from '../operators/operators.js';
import type { SecretBox } from './secrets.js';

/**
 * The keys statements are signed with (decision 0026): Ed25519 through node:crypto. One key is active at a time; a
 * retired key stays published (the JWKS) so what it signed keeps verifying, and never signs again.
 */

export const SIGNING_KEY_VARIABLE = 'SVC_SIGNING_KEY';

function signerOfKey(key: KeyObject, keep: boolean): Signer {
  const x = createPublicKey(key).export({ format: 'jwk' }).x;
  if (key.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') throw new Error('not an Ed25519 private key');
  return {
    kid: kidOf(x),
    publicKey: x,
    sign: (bytes) => sign(null, bytes, key).toString('base64url'),
    pem: keep ? (key.export({ format: 'pem', type: 'pkcs8' }) as string) : null,
  };
}

/** kid = the first 16 hex digits of SHA-256 of the raw public key (its base64url form decoded). */
export function kidOf(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('hex').slice(0, 16);
}

/** A new key, generated here: its private half is sealed into the store. */
export function generateSigner(): Signer {
  return signerOfKey(generateKeyPairSync('ed25519').privateKey, true);
}

/**
 * The key of SVC_SIGNING_KEY: a PKCS#8 PEM (`openssl genpkey -algorithm ed25519`), or that PEM in base64, or the
 * PKCS#8 DER in base64. Anything else is refused naming the variable.
 */
export function signerFromText(text: string): Signer {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('-----BEGIN')) return signerOfKey(createPrivateKey(trimmed), false);
    const bytes = Buffer.from(trimmed, 'base64');
    const decoded = bytes.toString('utf8');
    const key = decoded.startsWith('-----BEGIN')
      ? createPrivateKey(decoded)
      : createPrivateKey({ key: bytes, format: 'der', type: 'pkcs8' });
    return signerOfKey(key, false);
  } catch {
    throw new ServiceError(
      'invalid_value',
      `${SIGNING_KEY_VARIABLE} is not an Ed25519 private key in PKCS#8 (a PEM such as openssl genpkey -algorithm ed25519 writes, or its base64)`,
    );
  }
}

/** Whether `signature` (base64url) is the Ed25519 signature of `bytes` under the raw public key `x` (base64url). */
export function signatureVerifies(bytes: Buffer, signature: string, x: string): boolean {
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    return verify(null, bytes, key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

/** The signer of the context; a verb that signs run without one is a programming error. */
export function signerOf(ctx: ServiceContext): Signer {
  if (!ctx.signer) throw new Error('this verb signs a statement and was run without a signing key');
  return ctx.signer;
}

/**
 * Makes sure the signer's key is the store's active key, inside the signing transaction: a retired key is refused,
 * so nothing it signs can postdate its retirement. A store's first key is recorded here and becomes the active one.
 * A key the store does not know while another is active is refused: bringing it into use retires the store's key,
 * which is an administrator's act recorded in the audit trail (admitSigner, rotateSigningKey), never a side effect of
 * signing. Answers when the key started signing.
 *
 * Processes on several machines do not share a clock: a key starts (and its predecessor retires) no earlier than
 * the latest statement signed, so every statement's `signed_at` stays within its key's life whatever the skew
 * (signStatement, for its part, never dates a statement before its key's start).
 */
export async function registerSigner(
  tx: Kysely<Database>,
  signer: Signer,
  now: string,
  box?: SecretBox,
): Promise<string> {
  const row = await findSigningKey(tx, signer.kid);
  if (row) {
    if (row.not_after !== null) {
      throw new ServiceError(
        'refused',
        `signing key ${signer.kid} was retired at ${row.not_after} and signs no more: unset ${SIGNING_KEY_VARIABLE} or set it to the active key (svc signing-key list)`,
      );
    }
    return row.not_before;
  }
  const active = (await listKeyRows(tx)).find((k) => k.not_after === null);
  if (active) throw new ServiceError('refused', unknownKeyMessage(signer.kid, active.kid));
  return startKey(tx, signer, now, box);
}

function unknownKeyMessage(kid: string, activeKid: string): string {
  return `${SIGNING_KEY_VARIABLE} holds signing key ${kid}, which this store does not know, while ${activeKid} is its active key: bringing a new key into use is an administrator's act (svc signing-key rotate with ${SIGNING_KEY_VARIABLE} set to it); nothing was written`;
}

/** Records the key as the active one from now (or the latest statement's time) and retires every other. */
async function startKey(tx: Kysely<Database>, signer: Signer, now: string, box?: SecretBox): Promise<string> {
  const latest = await latestSignedAt(tx);
  const from = latest !== null && latest > now ? latest : now;
  await insertSigningKey(tx, {
    kid: signer.kid,
    public_key: signer.publicKey,
    private_key_enc: signer.pem !== null && box ? box.seal(signer.pem) : null,
    not_before: from,
    not_after: null,
  });
  await retireOtherKeys(tx, signer.kid, from);
  return from;
}

/**
 * Before a command signs anything: a key the store does not know, while another is active, comes into use only as an
 * administrator's act, recorded in the audit trail as a rotation (`signing_key.rotated`) in a transaction of its own.
 * Anyone else is refused here, before any write. The store's own keys, and its first key, pass unchanged.
 */
export async function admitSigner(ctx: ServiceContext, signer: Signer): Promise<void> {
  if (await findSigningKey(ctx.store.db, signer.kid)) return;
  const active = (await listKeyRows(ctx.store.db)).find((k) => k.not_after === null);
  if (!active) return;
  try {
    await authorise(ctx, 'admin', `bringing signing key ${signer.kid} of ${SIGNING_KEY_VARIABLE} into use`);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    throw new ServiceError('refused', `${unknownKeyMessage(signer.kid, active.kid)} (${error.message})`);
  }
  await introduceKey(ctx, signer, ctx.box);
}

/** Makes `signer` the active key and retires the others, recorded as a rotation by the acting operator. */
async function introduceKey(ctx: ServiceContext, signer: Signer, box: SecretBox | undefined) {
  return ctx.store.db.transaction().execute(async (tx) => {
    await lockAuditHead(tx);
    if (await findSigningKey(tx, signer.kid))
      throw new ServiceError('refused', `signing key ${signer.kid} is already this store's`);
    // Key lifetimes are on the machine's clock, as the statements' signed_at (services/statements/statements.ts).
    const retired = (await listKeyRows(tx)).filter((k) => k.not_after === null).map((k) => k.kid);
    const from = await startKey(tx, signer, new Date().toISOString(), box);
    const held: SigningKeySummary['held'] = signer.pem === null ? 'environment' : 'store';
    await recordAudit(ctx, tx, [
      { action: 'signing_key.rotated', subject: { type: 'signing_key', id: signer.kid }, details: { retired, held } },
    ]);
    return { kid: signer.kid, status: 'active' as const, not_before: from, not_after: null, held };
  });
}

/**
 * The key a process signs with: SVC_SIGNING_KEY when set; otherwise the store's active key, opened with the master
 * key box; otherwise a new key, generated, sealed and recorded as the active one (the first signing of a store).
 */
export async function resolveSigner(
  store: Store,
  input: { configured: string | null; box: SecretBox },
): Promise<Signer> {
  if (input.configured) return signerFromText(input.configured);
  const active = async (db: Kysely<Database>) => (await listKeyRows(db)).find((k) => k.not_after === null);
  const found = await active(store.db);
  if (found) return signerOfStored(found, input.box);
  return store.db.transaction().execute(async (tx) => {
    // One first key, however many processes start signing at once.
    await lockAuditHead(tx);
    const again = await active(tx);
    if (again) return signerOfStored(again, input.box);
    const signer = generateSigner();
    await registerSigner(tx, signer, new Date().toISOString(), input.box);
    return signer;
  });
}

function signerOfStored(row: SigningKeyRow, box: SecretBox): Signer {
  if (row.private_key_enc === null) {
    throw new ServiceError(
      'refused',
      `the active signing key ${row.kid} was given in ${SIGNING_KEY_VARIABLE}, which is not set here: set it to that key, or rotate to a key the store keeps (svc signing-key rotate)`,
    );
  }
  let pem: string;
  try {
    pem = box.open(row.private_key_enc);
  } catch (error) {
    throw new ServiceError(
      'refused',
      `the active signing key ${row.kid} cannot be opened with this master key: ${(error as Error).message}`,
    );
  }
  return signerOfKey(createPrivateKey(pem), true);
}

export interface SigningKeySummary {
  kid: string;
  status: 'active' | 'retired';
  not_before: string;
  not_after: string | null;
  /** Where its private half is: sealed in the store, or given in SVC_SIGNING_KEY. */
  held: 'store' | 'environment';
}

export async function listSigningKeys(ctx: ServiceContext): Promise<SigningKeySummary[]> {
  return (await listKeyRows(ctx.store.db)).map((k) => ({
    kid: k.kid,
    status: k.not_after === null ? 'active' : 'retired',
    not_before: k.not_before,
    not_after: k.not_after,
    held: k.private_key_enc === null ? 'environment' : 'store',
  }));
}

/** One key of the JWKS (RFC 7517, RFC 8037). */
export interface SigningJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
  status: 'active' | 'retired';
  not_before: string;
  not_after?: string;
}

/** The public keys, oldest first: what `/.well-known/svc-signing-keys.json` serves. */
export async function signingJwks(ctx: { store: Store }): Promise<{ keys: SigningJwk[] }> {
  return {
    keys: (await listKeyRows(ctx.store.db)).map((k) => ({
      kty: 'OKP',
      crv: 'Ed25519',
      x: k.public_key,
      kid: k.kid,
      use: 'sig',
      alg: 'EdDSA',
      status: k.not_after === null ? 'active' : 'retired',
      not_before: k.not_before,
      ...(k.not_after === null ? {} : { not_after: k.not_after }),
    })),
  };
}

/**
 * Brings a new signing key into use, an administrator's act recorded in the audit trail (`signing_key.rotated`): the
 * key of SVC_SIGNING_KEY when it is set and new to the store, otherwise a key generated here and sealed under the
 * master key. The previous key retires now and stays published, so what it signed keeps verifying.
 */
export async function rotateSigningKey(
  ctx: ServiceContext,
  input: { configured: string | null },
): Promise<SigningKeySummary> {
  if (input.configured !== null) {
    const signer = signerFromText(input.configured);
    await authorise(ctx, 'admin', 'rotating the signing key');
    const row = await findSigningKey(ctx.store.db, signer.kid);
    if (row) {
      throw new ServiceError(
        'refused',
        row.not_after === null
          ? `${SIGNING_KEY_VARIABLE} holds signing key ${signer.kid}, which is already the active key: rotate by setting it to a new key (openssl genpkey -algorithm ed25519)`
          : `${SIGNING_KEY_VARIABLE} holds signing key ${signer.kid}, which was retired at ${row.not_after} and signs no more: set it to a new key`,
      );
    }
    return introduceKey(ctx, signer, undefined);
  }
  const box = boxOf(ctx);
  await authorise(ctx, 'admin', 'rotating the signing key');
  return introduceKey(ctx, generateSigner(), box);
}
