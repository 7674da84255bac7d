import type { RiskBand } from '@svc/contracts';
import { controlCharacterProblem } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { insertChange } from '../../store/repositories/changelog.js';
import { increment, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import {
  findIndicator,
  findProvider,
  type IndicatorRow,
  listProvidersWithIndicator,
  type ProviderRow,
} from '../../store/repositories/providers.js';
import { insertWithdrawal } from '../../store/repositories/withdrawals.js';
import type { Database } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { completeAction, recordWithdrawalAction } from '../rating-actions/rating-actions.js';
import { ensureStatements, signStatement } from '../statements/statements.js';
import { emitEvent } from '../webhooks/events.js';

/** How many providers the store holds, in any state: whether it holds any data yet (`svc db seed --if-empty`). */
export async function countProviders(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('providers')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Providers as operators see them: every one, published or not, and withdrawing one from coverage. */
export interface ProviderSummary {
  id: string;
  name: string;
  planner_type: string;
  final_score: number | null;
  risk_band: string | null;
  withdrawn: boolean;
  withdrawn_at: string | null;
}

/** Every provider by name: its indicator in force (none before publication or after withdrawal) and whether it is withdrawn. */
export async function listProviders(ctx: ServiceContext): Promise<ProviderSummary[]> {
  const rows = await listProvidersWithIndicator(ctx.store.db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    planner_type: r.planner_type,
    final_score: r.withdrawn_at === null ? (r.final_score ?? null) : null,
    risk_band: r.withdrawn_at === null ? (r.risk_band ?? null) : null,
    withdrawn: r.withdrawn_at !== null,
    withdrawn_at: r.withdrawn_at,
  }));
}

export interface Withdrawal {
  provider_id: string;
  provider_name: string;
  withdrawn_at: string;
  previous_score: number;
  previous_band: string;
  framework_version: string;
  reason: string | null;
}

/**
 * Withdraws a published provider in one transaction: marks it withdrawn, takes its indicator out of
 * force, records its WITHDRAW rating action (its outlook and watch end with it), writes the WITHDRAWN
 * change-feed entry and bumps the publication version, so every instance rebuilds its public snapshot
 * without it. Publishing it again reinstates it (a NEW entry, a REINSTATE action).
 */
export async function withdrawProvider(
  ctx: ServiceContext,
  input: { providerId: string; reason?: string | undefined },
): Promise<Withdrawal> {
  const { providerId } = input;
  const why = withdrawalReason(input.reason);
  await authorise(ctx, 'approver', 'withdrawing a provider');
  await ensureStatements(ctx);
  return ctx.store.db.transaction().execute(async (tx) => {
    // Taken first, as publishing does: it serialises writers on PostgreSQL.
    await increment(tx, PUBLICATION_VERSION);
    const { provider, current, seq } = await withdrawable(tx, providerId);
    const now = isoNow(ctx.clock);
    const { withdrawal, action } = await writeWithdrawal(ctx, tx, { provider, current, seq, why, now });
    const [entry] = await recordAudit(ctx, tx, [
      {
        action: 'provider.withdrawn',
        subject: { type: 'provider', id: providerId },
        details: {
          risk_indicator_id: current.risk_indicator_id,
          publication_seq: seq,
          reason: why,
          rating_action: { id: action.id, type: action.type },
        },
      },
    ]);
    if (!entry) throw new Error('the audit entry of a withdrawal was not written');
    const auditHead = { seq: entry.seq, hash: entry.hash };
    await signStatement(ctx, tx, {
      facts: {
        type: 'withdrawal',
        risk_indicator_id: current.risk_indicator_id,
        provider_id: providerId,
        provider_name: withdrawal.provider_name,
        framework_version: current.framework_version,
        previous_score: current.final_score,
        previous_band: current.risk_band,
        reason: why,
        withdrawn_at: withdrawal.withdrawn_at,
      },
      publicationSeq: seq,
      auditHead,
    });
    await completeAction(ctx, tx, action, auditHead);
    return withdrawal;
  });
}

/** A withdrawal's reason: none, or 1 to 2,000 characters once trimmed with no control character. */
function withdrawalReason(reason: string | undefined): string | null {
  const why = reason === undefined ? null : reason.trim();
  if (why !== null && (why.length < 1 || why.length > 2000)) {
    throw new ServiceError('invalid_value', 'a withdrawal reason is 1 to 2000 characters');
  }
  const unreadable = reason === undefined ? null : controlCharacterProblem(reason);
  if (unreadable) throw new ServiceError('invalid_value', `a withdrawal reason ${unreadable}`);
  return why;
}

/** The provider to withdraw, with its indicator in force and that publication's number; refused otherwise. */
async function withdrawable(tx: Kysely<Database>, providerId: string) {
  const provider = await findProvider(tx, providerId);
  if (!provider) throw new ServiceError('not_found', `no provider ${providerId}`);
  if (provider.withdrawn_at !== null) {
    throw new ServiceError('refused', `provider ${providerId} was already withdrawn at ${provider.withdrawn_at}`);
  }
  const current = provider.current_indicator_id ? await findIndicator(tx, provider.current_indicator_id) : undefined;
  if (!current || provider.current_seq === null)
    throw new ServiceError('refused', `provider ${providerId} has no published indicator to withdraw`);
  return { provider, current, seq: provider.current_seq };
}

/** A withdrawal's writes: its history row, the provider out of force, its rating action, change-feed entry, event. */
async function writeWithdrawal(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  w: { provider: ProviderRow; current: IndicatorRow; seq: number; why: string | null; now: string },
) {
  const { provider, current, seq, why, now } = w;
  const providerId = provider.id;
  // Kept in the provider's history, right after the publication it ends.
  await insertWithdrawal(tx, {
    after_seq: seq,
    provider_id: providerId,
    risk_indicator_id: current.risk_indicator_id,
    framework_version: current.framework_version,
    previous_score: current.final_score,
    previous_band: current.risk_band,
    reason: why,
    withdrawn_at: now,
  });
  await tx
    .updateTable('providers')
    .set({ withdrawn_at: now, current_indicator_id: null, current_seq: null, updated_at: now })
    .where('id', '=', providerId)
    .execute();
  const action = await recordWithdrawalAction(ctx, tx, {
    provider,
    publicationSeq: seq,
    withdrawn: current,
    reason: why,
    now,
  });
  await insertChange(tx, {
    provider_id: providerId,
    provider_name: provider.name,
    change_type: 'WITHDRAWN',
    previous_score: current.final_score,
    new_score: null,
    previous_band: current.risk_band,
    new_band: null,
    framework_version: current.framework_version,
    risk_indicator_id: null,
    changed_at: now,
    rating_action_id: action.id,
  });
  const withdrawal = {
    provider_id: providerId,
    provider_name: provider.name,
    withdrawn_at: now,
    previous_score: current.final_score,
    previous_band: current.risk_band,
    framework_version: current.framework_version,
    reason: why,
  };
  await emitEvent(tx, {
    type: 'risk_indicator.withdrawn',
    at: now,
    data: { ...withdrawal, previous_band: current.risk_band as RiskBand },
  });
  return { withdrawal, action };
}

/** Where a provider stands: its indicator in force (null when none) and when it was withdrawn; null when unknown. */
export async function providerStanding(
  ctx: ServiceContext,
  input: { providerId: string },
): Promise<{ current_indicator_id: string | null; withdrawn_at: string | null } | null> {
  const provider = await findProvider(ctx.store.db, input.providerId);
  return provider ? { current_indicator_id: provider.current_indicator_id, withdrawn_at: provider.withdrawn_at } : null;
}
