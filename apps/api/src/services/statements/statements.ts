import { canonicalJson, readJson, sha256Hex } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { increment, PUBLICATION_VERSION, readMeta, setMeta } from '../../store/repositories/meta.js';
import { PUBLICATION_ACTION_TYPES } from '../../store/repositories/providers.js';
import {
  findSigningKey,
  insertStatement,
  latestStatementOf,
  latestStatementsOf,
  publicationStatementsOf,
  type StatementRow,
  statementsByHash,
} from '../../store/repositories/statements.js';
import type { Database, RatingActionsTable } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { actionFormOf, type RatingActionForm } from '../rating-actions/rating-action-form.js';
import { standaloneContext } from '../services.js';
import type { SecretBox } from '../shared/secrets.js';
import { registerSigner, resolveSigner, signatureVerifies, signerOf } from '../shared/signing.js';

/**
 * Signed statements (decision 0026): every publication and withdrawal is stated, signed and chained per provider in
 * the transaction that makes it, naming the audit entry written with it. Statements are never rewritten.
 */

/** What a publication states: the figures as the public form has them, and the hashes that pin the package. */
export interface PublicationFacts {
  risk_indicator_id: string;
  provider_id: string;
  provider_name: string;
  final_score: number;
  risk_band: string;
  confidence: number;
  framework_version: string;
  framework_sha256: string;
  inputs_sha256: string;
  result_sha256: string;
  /** SHA-256 of the package's canonical bytes: exactly what GET /api/v1/computation/{id} answers. */
  package_sha256: string;
  evaluation_date: string;
  published_at: string;
}

/** What a withdrawal states. */
export interface WithdrawalFacts {
  risk_indicator_id: string;
  provider_id: string;
  provider_name: string;
  framework_version: string;
  previous_score: number;
  previous_band: string;
  reason: string | null;
  withdrawn_at: string;
}

/** What a rating action states: its provider and indicator, and the action as it took effect (decision 0030). */
export interface RatingActionFacts {
  provider_id: string;
  risk_indicator_id: string;
  action: RatingActionForm;
}

/** What a statement states, before its chain fields. */
export type StatementFacts =
  | ({ type: 'publication' } & PublicationFacts)
  | ({ type: 'withdrawal' } & WithdrawalFacts)
  | ({ type: 'rating_action' } & RatingActionFacts);

export type Statement = StatementFacts & StatementChain;

interface StatementChain {
  /** The statement_sha256 of the provider's previous statement; null for its first. */
  prev_statement_sha256: string | null;
  /** The audit trail's entry written with it: a trail cut short is visible to anyone holding a later statement. */
  audit_head: { seq: number; hash: string };
  signed_at: string;
}

/** A statement as served: the statement, its signature (base64url, Ed25519 over its RFC 8785 bytes) and the key. */
export interface SignedStatement {
  statement: Statement;
  signature: string;
  kid: string;
  alg: 'EdDSA';
  statement_sha256: string;
}

/**
 * Set once every publication, withdrawal and derived rating action recorded before statements (or before rating
 * actions, migration 0012) existed has its statement.
 */
const STATEMENTS_BACKFILLED = 'statements_backfilled';

/** The backfill is an upgrade step, whoever's act brought it about: recorded as the system's. */
const BACKFILL_ACTOR = { kind: 'system', name: 'migration 0010' } as const;

/**
 * Signs what was published before statements existed, once, before a process first signs (a chain must start with
 * the oldest statement): a read of one flag when it is done.
 */
export async function ensureStatements(ctx: ServiceContext): Promise<void> {
  if ((await readMeta(ctx.store.db, STATEMENTS_BACKFILLED)) === '1') return;
  await backfillStatements({ ...ctx, actor: BACKFILL_ACTOR });
}

/**
 * At a process's start (`svc serve`, `svc db migrate`): signs what was published before statements existed, when
 * that is still to do, as the system ("migration 0010"), with the key the process would sign with. A process that
 * cannot sign (no usable master key, the active key held elsewhere) answers why and goes on: the next one that can
 * will. Answers how many statements were signed, or why none could be.
 */
export async function signPastPublications(
  store: Store,
  options: { configured: string | null; box: () => SecretBox },
): Promise<{ signed: number; kid: string | null } | { error: string }> {
  if ((await readMeta(store.db, STATEMENTS_BACKFILLED)) === '1') return { signed: 0, kid: null };
  try {
    const box = options.box();
    const signer = await resolveSigner(store, { configured: options.configured, box });
    const signed = await backfillStatements(standaloneContext(store, { actor: BACKFILL_ACTOR, box, signer }));
    return { signed, kid: signer.kid };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

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

/** A publication's statement as the verification page shows it: checked here against the key that signed it. */
export interface CheckedStatement {
  signed: SignedStatement;
  /** Whether the signature verifies under the key named, as the store publishes it. */
  verifies: boolean;
  keyStatus: 'active' | 'retired' | 'unknown';
}

/**
 * The first of `rows` whose signed text states what it was looked up as (its type, and its indicator or action), so a
 * row whose columns were changed is never served as another record's statement; undefined when none does.
 */
export function statingRow(
  rows: readonly StatementRow[],
  expected: { type: Statement['type']; riskIndicatorId?: string; ratingActionId?: string },
): StatementRow | undefined {
  return rows.find((row) => {
    let statement: Statement;
    try {
      statement = readJson(row.statement) as Statement;
    } catch {
      return false;
    }
    if (statement?.type !== expected.type) return false;
    if (expected.riskIndicatorId !== undefined && statement.risk_indicator_id !== expected.riskIndicatorId)
      return false;
    return (
      expected.ratingActionId === undefined ||
      (statement.type === 'rating_action' && statement.action?.id === expected.ratingActionId)
    );
  });
}

/** The latest publication statement of an indicator, its signature checked; null when it has none. */
export async function checkedPublicationStatement(
  ctx: ServiceContext,
  input: { riskIndicatorId: string },
): Promise<CheckedStatement | null> {
  const row = await latestPublicationStatement(ctx.store.db, input.riskIndicatorId);
  if (!row) return null;
  const key = await findSigningKey(ctx.store.db, row.kid);
  return {
    signed: signedOf(row),
    verifies:
      key !== undefined &&
      sha256Hex(row.statement) === row.statement_sha256 &&
      signatureVerifies(Buffer.from(row.statement, 'utf8'), row.signature, key.public_key),
    keyStatus: !key ? 'unknown' : key.not_after === null ? 'active' : 'retired',
  };
}

/** An indicator's latest publication statement, by what it signed. */
async function latestPublicationStatement(db: Kysely<Database>, riskIndicatorId: string) {
  return statingRow(await publicationStatementsOf(db, riskIndicatorId), { type: 'publication', riskIndicatorId });
}

/** The signed statement of an indicator's publication (its latest, when it was published again after a withdrawal). */
export async function publicationStatement(
  ctx: ServiceContext,
  input: { riskIndicatorId: string },
): Promise<SignedStatement> {
  const row = await latestPublicationStatement(ctx.store.db, input.riskIndicatorId);
  if (!row) throw new ServiceError('not_found', `no published indicator ${input.riskIndicatorId}`);
  return signedOf(row);
}

/**
 * Any statement, by the SHA-256 of its bytes (GET /api/public/statements/{statement_sha256}): the one whose text has
 * that hash, whatever its type, so a provider's chain can be walked back through `prev_statement_sha256`.
 */
export async function statementByHash(
  ctx: ServiceContext,
  input: { statementSha256: string },
): Promise<SignedStatement> {
  const rows = await statementsByHash(ctx.store.db, input.statementSha256);
  const row = rows.find((r) => sha256Hex(r.statement) === input.statementSha256);
  if (!row) throw new ServiceError('not_found', `no statement with SHA-256 ${input.statementSha256}`);
  return signedOf(row);
}

/**
 * Signs the statements of every publication and withdrawal made before statements existed, provider by provider in
 * the order they happened, chained as they would have been: each keeps its `published_at` / `withdrawn_at` and says
 * when it was signed. One `statements.signed_at_migration` audit entry is appended, and every statement signed here
 * names it. Nothing is signed twice: a publication that has its statement is skipped. Returns how many were signed.
 */
export async function backfillStatements(ctx: ServiceContext): Promise<number> {
  const { db } = ctx.store;
  if ((await readMeta(db, STATEMENTS_BACKFILLED)) === '1') return 0;
  return db.transaction().execute(async (tx) => {
    // The publishers' lock: nothing is published or withdrawn meanwhile, and a second process backfilling waits.
    await increment(tx, PUBLICATION_VERSION);
    if ((await readMeta(tx, STATEMENTS_BACKFILLED)) === '1') return 0;
    await setMeta(tx, STATEMENTS_BACKFILLED, '1');
    const history = await tx
      .selectFrom('indicator_history as h')
      .innerJoin('risk_indicators as r', 'r.risk_indicator_id', 'h.risk_indicator_id')
      .innerJoin('providers as p', 'p.id', 'h.provider_id')
      .leftJoin('statements as s', (j) => j.onRef('s.publication_seq', '=', 'h.seq').on('s.type', '=', 'publication'))
      .select([
        'h.seq',
        'h.provider_id',
        'h.published_at',
        'r.risk_indicator_id',
        'r.final_score',
        'r.risk_band',
        'r.confidence',
        'r.framework_version',
        'r.framework_sha256',
        'r.inputs_sha256',
        'r.result_sha256',
        'r.package',
        'r.indicator',
        'p.name as provider_name',
        's.id as statement_id',
      ])
      .orderBy('h.seq')
      .execute();
    const withdrawals = await tx
      .selectFrom('withdrawals as w')
      .innerJoin('providers as p', 'p.id', 'w.provider_id')
      .leftJoin('statements as s', (j) =>
        j.onRef('s.publication_seq', '=', 'w.after_seq').on('s.type', '=', 'withdrawal'),
      )
      .select([
        'w.after_seq',
        'w.provider_id',
        'w.risk_indicator_id',
        'w.framework_version',
        'w.previous_score',
        'w.previous_band',
        'w.reason',
        'w.withdrawn_at',
        'p.name as provider_name',
        's.id as statement_id',
      ])
      .execute();
    // The actions of publications and withdrawals derived by migration 0012 (live ones are signed as they are made).
    const actions = await tx
      .selectFrom('rating_actions as a')
      .leftJoin('statements as s', 's.rating_action_id', 'a.id')
      .selectAll('a')
      .where('s.id', 'is', null)
      .where('a.status', '=', 'EFFECTIVE')
      .where('a.type', 'in', [...PUBLICATION_ACTION_TYPES, 'WITHDRAW'])
      .execute();
    const actionAfter = new Map(
      actions.map((a) => [`${a.type === 'WITHDRAW' ? 'withdrawal' : 'publication'} ${Number(a.publication_seq)}`, a]),
    );
    const actionOf = (kind: 'publication' | 'withdrawal', seq: number) => actionAfter.get(`${kind} ${seq}`);
    const pastUnsigned =
      history.filter((h) => h.statement_id === null).length + withdrawals.filter((w) => w.statement_id === null).length;
    const unsigned = pastUnsigned + actions.length;
    if (unsigned === 0) return 0;
    // Publications before 0010 make this 0010's step; only actions to sign, 0012's.
    const actor = pastUnsigned > 0 ? ctx.actor : { kind: 'system' as const, name: 'migration 0012' };
    const [entry] = await recordAudit({ ...ctx, actor }, tx, [
      {
        action: 'statements.signed_at_migration',
        subject: { type: 'store', id: 'store' },
        details: { statements: unsigned, kid: signerOf(ctx).kid },
      },
    ]);
    if (!entry) throw new Error('the audit entry of the backfill was not written');
    const auditHead = { seq: entry.seq, hash: entry.hash };
    // Each withdrawal comes right after the publication it ended, as the provider's history lists them.
    const withdrawalAfter = new Map(withdrawals.map((w) => [Number(w.after_seq), w]));
    let signed = 0;
    const signAction = async (row: (typeof actions)[number] | undefined): Promise<number> => {
      if (!row) return 0;
      await signActionStatement(ctx, tx, row, auditHead);
      return 1;
    };
    for (const h of history) {
      const seq = Number(h.seq);
      if (h.statement_id === null) {
        const indicator = readJson(h.indicator) as { provider_id: string; name: string };
        const pkg = readJson(h.package) as { evaluation_date: string };
        await signStatement(ctx, tx, {
          facts: {
            type: 'publication',
            risk_indicator_id: h.risk_indicator_id,
            provider_id: indicator.provider_id,
            provider_name: indicator.name,
            final_score: Number(h.final_score),
            risk_band: h.risk_band,
            confidence: Number(h.confidence),
            framework_version: h.framework_version,
            framework_sha256: h.framework_sha256,
            inputs_sha256: h.inputs_sha256,
            result_sha256: h.result_sha256,
            package_sha256: packageSha256(h.package),
            evaluation_date: pkg.evaluation_date,
            published_at: h.published_at,
          },
          publicationSeq: seq,
          auditHead,
        });
        signed++;
      }
      signed += await signAction(actionOf('publication', seq));
      const w = withdrawalAfter.get(seq);
      if (w && w.statement_id === null) {
        await signStatement(ctx, tx, {
          facts: {
            type: 'withdrawal',
            risk_indicator_id: w.risk_indicator_id,
            provider_id: w.provider_id,
            provider_name: w.provider_name,
            framework_version: w.framework_version,
            previous_score: Number(w.previous_score),
            previous_band: w.previous_band,
            reason: w.reason,
            withdrawn_at: w.withdrawn_at,
          },
          publicationSeq: seq,
          auditHead,
        });
        signed++;
      }
      if (w) signed += await signAction(actionOf('withdrawal', seq));
    }
    return signed;
  });
}
