import type { RatingAction } from '@svc/contracts';
import type { Kysely } from 'kysely';
import { derivedActionId, type PublicationActionType, publicationActionType } from '../../store/rating-action-rules.js';
import { approvedAtInstant } from '../../store/repositories/approved-inputs.js';
import { increment } from '../../store/repositories/meta.js';
import { type ProviderRow, setStanding } from '../../store/repositories/providers.js';
import { insertRatingAction, RATING_ACTION_SEQ } from '../../store/repositories/rating-actions.js';
import type { Database, RatingActionsTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { auditActorOf } from '../operators/audit.js';
import { signActionStatement } from '../statements/statements.js';
import { emitEvent } from '../webhooks/events.js';
import { standingOf } from './model.js';

/** Actions derived from publications and withdrawals, made and signed in their own transaction. */

/** An effective action's row: numbered next, effective now. */
async function effectiveRow(
  tx: Kysely<Database>,
  row: Omit<RatingActionsTable, 'seq' | 'status' | 'proposal' | 'proposed_by_id' | 'proposed_at' | 'approved_by_id'>,
): Promise<RatingActionsTable> {
  const full: RatingActionsTable = {
    ...row,
    seq: await increment(tx, RATING_ACTION_SEQ),
    status: 'EFFECTIVE',
    proposal: null,
    proposed_by_id: null,
    proposed_at: null,
    approved_by_id: null,
  };
  await insertRatingAction(tx, full);
  return full;
}

/** What a publication's action is derived from. */
export interface PublishedAction {
  /** The provider's row before this publication (undefined for a provider not stored before). */
  provider: ProviderRow | undefined;
  providerName: string;
  publicationSeq: number;
  indicator: {
    risk_indicator_id: string;
    provider_id: string;
    final_score: number;
    risk_band: string;
    framework_version: string;
  };
  /** The indicator in force before, if any. */
  previous: { risk_band: string; final_score: number } | undefined;
  now: string;
}

/**
 * The row of the action a publication is, numbered `seq`: NEW for the provider's first publication, REINSTATE for
 * the first after a withdrawal, else UPGRADE, DOWNGRADE or AFFIRM by the band of the indicator it replaced; the
 * outlook and watch in force carry on (a publication does not end a watch). Built here for the verb and for bulk
 * loads (the bench data set).
 */
export function publicationActionRow(
  p: PublishedAction,
  seq: number,
  maker: { submitted_by: string; approved_by: string | null } | undefined,
): RatingActionsTable {
  const { provider, indicator, previous } = p;
  const type: PublicationActionType = publicationActionType(
    provider?.withdrawn_at != null
      ? { published: true, withdrawn: true }
      : previous
        ? { published: true, band: previous.risk_band }
        : { published: false },
    indicator.risk_band,
  );
  return {
    id: derivedActionId('publication', {
      seq: p.publicationSeq,
      providerId: indicator.provider_id,
      riskIndicatorId: indicator.risk_indicator_id,
      at: p.now,
    }),
    seq,
    status: 'EFFECTIVE',
    type,
    provider_id: indicator.provider_id,
    provider_name: p.providerName,
    previous_band: previous?.risk_band ?? null,
    new_band: indicator.risk_band,
    previous_score: previous?.final_score ?? null,
    new_score: indicator.final_score,
    ...standingOf(type === 'REINSTATE' ? undefined : provider),
    rationale: null,
    risk_indicator_id: indicator.risk_indicator_id,
    framework_version: indicator.framework_version,
    publication_seq: p.publicationSeq,
    proposal: null,
    proposed_by: maker?.submitted_by ?? null,
    proposed_by_id: null,
    proposed_at: null,
    approved_by: maker?.approved_by ?? null,
    approved_by_id: null,
    effective_at: p.now,
  };
}

/** Who made and checked a publication: the inputs approved at its score_verified_at (`approvedAt`). */
export const publicationMaker = (tx: Kysely<Database>, providerId: string, approvedAt: string) =>
  approvedAtInstant(tx, providerId, approvedAt);
export type PublicationMaker = Awaited<ReturnType<typeof approvedAtInstant>>;

/**
 * Records the action a publication is (publicationActionRow), in its transaction, before its audit entry. Its maker
 * and checker are the submission's (`maker`: publicationMaker), its sequence number taken with the publication's
 * counters: both read before the transaction writes anything (decision 0038).
 */
export async function recordPublicationAction(
  tx: Kysely<Database>,
  p: PublishedAction & { actionSeq: number; maker: PublicationMaker },
): Promise<RatingActionsTable> {
  const row = publicationActionRow(p, p.actionSeq, p.maker);
  await insertRatingAction(tx, row);
  return row;
}

/**
 * Records the WITHDRAW action of a withdrawal, in its transaction, before its audit entry: the indicator withdrawn,
 * the reason as its rationale, the person withdrawing as its approver. The outlook and watch end with the rating.
 */
export async function recordWithdrawalAction(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  w: {
    provider: ProviderRow;
    publicationSeq: number;
    withdrawn: { risk_indicator_id: string; final_score: number; risk_band: string; framework_version: string };
    reason: string | null;
    now: string;
  },
): Promise<RatingActionsTable> {
  const { provider, withdrawn } = w;
  await setStanding(tx, provider.id, standingOf(undefined));
  return effectiveRow(tx, {
    id: derivedActionId('withdrawal', {
      seq: w.publicationSeq,
      providerId: provider.id,
      riskIndicatorId: withdrawn.risk_indicator_id,
      at: w.now,
    }),
    type: 'WITHDRAW',
    provider_id: provider.id,
    provider_name: provider.name,
    previous_band: withdrawn.risk_band,
    new_band: null,
    previous_score: withdrawn.final_score,
    new_score: null,
    ...standingOf(undefined),
    rationale: w.reason,
    risk_indicator_id: withdrawn.risk_indicator_id,
    framework_version: withdrawn.framework_version,
    publication_seq: w.publicationSeq,
    proposed_by: null,
    approved_by: auditActorOf(ctx).name,
    effective_at: w.now,
  });
}

/**
 * What follows an effective action's audit entry, in its transaction: its signed statement (chained after its
 * provider's latest, naming that entry) and its `rating_action.created` event, which carries the signature.
 */
export async function completeAction(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  row: RatingActionsTable,
  auditHead: { seq: number; hash: string },
  /** The endpoints subscribed to `rating_action.created`, when the transaction has read them already. */
  subscribed?: readonly { id: string }[],
): Promise<RatingAction> {
  const { action, ...signed } = await signActionStatement(ctx, tx, row, auditHead);
  const served: RatingAction = {
    ...action,
    signature: { kid: signed.kid, value: signed.signature, statement_sha256: signed.statement_sha256 },
  };
  await emitEvent(tx, { type: 'rating_action.created', at: action.effective_at, data: served }, subscribed);
  return served;
}
