import { canonicalJson, readJson, sha256Hex } from '@svc/methodology';
import type { Kysely } from 'kysely';
import {
  insertStatement,
  latestStatementOf,
  latestStatementsOf,
  type StatementRow,
} from '../../store/repositories/statements.js';
import type { Database, RatingActionsTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { actionFormOf, type RatingActionForm } from '../rating-actions/rating-action-form.js';
import { registerSigner, signerOf } from '../shared/signing.js';
import type { SignedStatement, Statement, StatementFacts } from './model.js';

/** Stating and signing: each statement chained per provider in the transaction that makes it. */

/** The package's hash the statements carry: SHA-256 of its stored canonical bytes. */
export const packageSha256 = (packageText: string) => sha256Hex(packageText);

/**
 * Signs and stores a statement, in the caller's transaction, after its audit entry: chained to the provider's latest
 * statement. The publication writers are serialised (the publication version's lock), so a provider's chain never
 * forks.
 */
export async function signStatement(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  input: {
    facts: StatementFacts;
    publicationSeq: number;
    auditHead: { seq: number; hash: string };
    signedAt?: string;
  },
): Promise<SignedStatement> {
  const signer = signerOf(ctx);
  // The moment of signing, by the machine's clock (the context's clock may replay history, the demo, or be a test's),
  // and never before the key's start (another machine's clock may run ahead: see registerSigner).
  const now = input.signedAt ?? new Date().toISOString();
  const memo = memoOf(tx);
  const { keyFrom, previous } = await signingState(ctx, tx, input.facts.provider_id, now);
  const signedAt = new Date(Math.max(Date.parse(keyFrom), Date.parse(now))).toISOString();
  const statement = {
    ...input.facts,
    prev_statement_sha256: previous,
    audit_head: input.auditHead,
    signed_at: signedAt,
  } as Statement;
  const text = canonicalJson(statement);
  const statementSha256 = sha256Hex(text);
  const signature = signer.sign(Buffer.from(text, 'utf8'));
  await insertStatement(tx, {
    type: statement.type,
    provider_id: statement.provider_id,
    risk_indicator_id: statement.risk_indicator_id,
    publication_seq: input.publicationSeq,
    statement: text,
    statement_sha256: statementSha256,
    signature,
    kid: signer.kid,
    signed_at: signedAt,
    rating_action_id: statement.type === 'rating_action' ? statement.action.id : null,
  });
  memo?.latest.set(statement.provider_id, statementSha256);
  return { statement, signature, kid: signer.kid, alg: 'EdDSA', statement_sha256: statementSha256 };
}

/**
 * What signing a statement for a provider needs to know, read once per transaction: when the signing key's validity
 * starts (registering it when new) and the provider's latest statement (null before its first).
 */
async function signingState(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  providerId: string,
  now: string,
): Promise<{ keyFrom: string; previous: string | null }> {
  const signer = signerOf(ctx);
  const memo = memoOf(tx);
  let keyFrom = memo?.keyFrom.get(signer.kid);
  if (keyFrom === undefined) {
    keyFrom = await registerSigner(tx, signer, now, ctx.box);
    memo?.keyFrom.set(signer.kid, keyFrom);
  }
  return { keyFrom, previous: await previousStatement(tx, memo, providerId) };
}

/** The hash of the provider's latest statement (null before its first), read once per transaction into its memo. */
async function previousStatement(
  tx: Kysely<Database>,
  memo: SigningMemo | undefined,
  providerId: string,
): Promise<string | null> {
  let previous = memo?.latest.get(providerId);
  if (previous === undefined) {
    previous = (await latestStatementOf(tx, providerId))?.statement_sha256 ?? null;
    memo?.latest.set(providerId, previous);
  }
  return previous;
}

/**
 * Reads, before a transaction writes, the provider's latest statement, which its next statement is chained to, so
 * that signing reads nothing but the key after the writes and they can go together (deferWrites, decision 0038).
 * The key itself is read when signing, after the audit head is taken: a rotation that retired it before is seen.
 * Safe this early because whoever signs for a provider first takes the publication version's lock, as the caller has.
 */
export async function prepareSigning(tx: Kysely<Database>, providerId: string): Promise<void> {
  const memo = memoOf(tx);
  if (!memo) throw new Error('signing is prepared inside the transaction that signs');
  await previousStatement(tx, memo, providerId);
}

/**
 * prepareSigning for several providers at once, in one query (a publishing batch's read ahead, decision 0040): each
 * provider's latest statement, or none, into the transaction's memo.
 */
export async function prepareSigningAll(tx: Kysely<Database>, providerIds: readonly string[]): Promise<void> {
  const memo = memoOf(tx);
  if (!memo) throw new Error('signing is prepared inside the transaction that signs');
  const unknown = providerIds.filter((id) => !memo.latest.has(id));
  const latest = await latestStatementsOf(tx, unknown);
  for (const id of unknown) memo.latest.set(id, latest.get(id) ?? null);
}

/**
 * What a transaction has learnt by signing, so its next statement need not read it again: the start of each key it
 * registered, and each provider's latest statement (null before its first; the one it signed: statements follow the
 * audit entry, so another transaction signing for the provider waits on the audit head until this one ends).
 */
interface SigningMemo {
  keyFrom: Map<string, string>;
  latest: Map<string, string | null>;
}

const signingMemos = new WeakMap<Kysely<Database>, SigningMemo>();

/** The transaction's memo; none outside a transaction, where nothing holds what was read. */
function memoOf(tx: Kysely<Database>): SigningMemo | undefined {
  if (!tx.isTransaction) return undefined;
  let memo = signingMemos.get(tx);
  if (!memo) {
    memo = { keyFrom: new Map(), latest: new Map() };
    signingMemos.set(tx, memo);
  }
  return memo;
}

/** Signs an effective rating action's statement (signStatement): the action as it took effect, in its chain. */
export async function signActionStatement(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  row: RatingActionsTable,
  auditHead: { seq: number; hash: string },
): Promise<SignedStatement & { action: RatingActionForm }> {
  const action = actionFormOf(row);
  const signed = await signStatement(ctx, tx, {
    facts: {
      type: 'rating_action',
      provider_id: action.provider_id,
      risk_indicator_id: action.risk_indicator_id,
      action,
    },
    publicationSeq: Number(row.publication_seq),
    auditHead,
  });
  return { ...signed, action };
}

export function signedOf(row: StatementRow): SignedStatement {
  return {
    statement: readJson(row.statement) as Statement,
    signature: row.signature,
    kid: row.kid,
    alg: 'EdDSA',
    statement_sha256: row.statement_sha256,
  };
}
