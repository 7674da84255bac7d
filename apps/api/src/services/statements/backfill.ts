import { readJson } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { increment, PUBLICATION_VERSION, readMeta, setMeta } from '../../store/repositories/meta.js';
import { PUBLICATION_ACTION_TYPES } from '../../store/repositories/providers.js';
import type { Database } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { recordAudit } from '../operators/audit.js';
import { standaloneContext } from '../services.js';
import type { SecretBox } from '../shared/secrets.js';
import { resolveSigner, signerOf } from '../shared/signing.js';
import { packageSha256, signActionStatement, signStatement } from './chain.js';

/** Statements for what was recorded before statements existed: signed once, in order, at start-up. */

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
    const { history, withdrawals, actions } = await unsignedRecord(tx);
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
    const signAction = async (row: UnsignedAction | undefined): Promise<number> => {
      if (!row) return 0;
      await signActionStatement(ctx, tx, row, auditHead);
      return 1;
    };
    for (const h of history) {
      const seq = Number(h.seq);
      if (h.statement_id === null) signed += await signPastPublication(ctx, tx, h, auditHead);
      signed += await signAction(actionOf('publication', seq));
      const w = withdrawalAfter.get(seq);
      if (w && w.statement_id === null) signed += await signPastWithdrawal(ctx, tx, w, auditHead);
      if (w) signed += await signAction(actionOf('withdrawal', seq));
    }
    return signed;
  });
}

type Unsigned = Awaited<ReturnType<typeof unsignedRecord>>;
type UnsignedAction = Unsigned['actions'][number];
type AuditHead = { seq: number; hash: string };

/**
 * Every publication and withdrawal in the order they happened, each with its statement's id (null when it has none),
 * and the effective actions of publications and withdrawals that have no statement.
 */
async function unsignedRecord(tx: Kysely<Database>) {
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
  return { history, withdrawals, actions };
}

/** Signs the statement of a publication made before statements existed; its `published_at` kept. */
async function signPastPublication(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  h: Unsigned['history'][number],
  auditHead: AuditHead,
): Promise<number> {
  const seq = Number(h.seq);
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
  return 1;
}

/** Signs the statement of a withdrawal made before statements existed, chained after the publication it ended. */
async function signPastWithdrawal(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  w: Unsigned['withdrawals'][number],
  auditHead: AuditHead,
): Promise<number> {
  const seq = Number(w.after_seq);
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
  return 1;
}
