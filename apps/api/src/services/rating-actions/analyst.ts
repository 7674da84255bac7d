import { type AnalystActionType, OUTLOOKS, type RatingAction, WATCH_DIRECTIONS } from '@svc/contracts';
import { canonicalJson, readJson } from '@svc/methodology';
import { isoNow } from '../../clock.js';
import { increment, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import { findIndicator, setStanding } from '../../store/repositories/providers.js';
import {
  findRatingAction,
  insertRatingAction,
  listEffectiveActions,
  listPendingActions,
  makeEffective,
  RATING_ACTION_SEQ,
  type RatingActionRow,
} from '../../store/repositories/rating-actions.js';
import type { RatingActionsTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { type AuditNote, recordAudit } from '../operators/audit.js';
import { actingPerson, samePerson } from '../operators/operators.js';
import { watchOf } from '../scores/served.js';
import { newId } from '../shared/ids.js';
import { ensureStatements } from '../statements/statements.js';
import { completeAction } from './derived.js';
import type { Proposal, RatingActionRecord } from './model.js';
import { compare, inForce, oneOf, rationaleOf, recordOf, reviewDate, standingAfter, today } from './rules.js';

/** Analyst actions: proposed by one person, approved by another. */

// ---- analyst actions: proposed by one person, approved by another ----

/** A watch on the provider, in a direction, reviewed by a date (default: 90 days after it takes effect). */
export async function proposeWatch(
  ctx: ServiceContext,
  input: { providerId: string; direction: string; reviewBy?: string | undefined; rationale: string },
): Promise<RatingActionRecord> {
  const direction = oneOf(input.direction, WATCH_DIRECTIONS, 'direction');
  const reviewBy = input.reviewBy === undefined ? null : reviewDate(input.reviewBy, today(ctx));
  return propose(ctx, {
    type: 'WATCH_PLACED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: { direction, review_by: reviewBy },
  });
}

/** The end of the provider's watch. */
export async function proposeWatchRemoval(
  ctx: ServiceContext,
  input: { providerId: string; rationale: string },
): Promise<RatingActionRecord> {
  return propose(ctx, {
    type: 'WATCH_REMOVED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: {},
  });
}

/** A new outlook for the provider. */
export async function proposeOutlook(
  ctx: ServiceContext,
  input: { providerId: string; outlook: string; rationale: string },
): Promise<RatingActionRecord> {
  const outlook = oneOf(input.outlook, OUTLOOKS, 'outlook');
  return propose(ctx, {
    type: 'OUTLOOK_CHANGED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: { outlook },
  });
}

/**
 * Records a proposal (PENDING) by an analyst: refused, with nothing written, on a provider with no indicator in
 * force or when it would change nothing (a watch already on, no watch to remove, the outlook in force).
 */
export async function propose(
  ctx: ServiceContext,
  p: { type: AnalystActionType; providerId: string; rationale: string; proposal: Proposal },
): Promise<RatingActionRecord> {
  const rationale = rationaleOf(p.rationale);
  const providerId = p.providerId.trim().toLowerCase();
  const by = await actingPerson(ctx, 'analyst', 'proposing a rating action', 'proposer');
  return ctx.store.db.transaction().execute(async (tx) => {
    const provider = await inForce(tx, providerId);
    standingAfter(p.type, provider, p.proposal, isoNow(ctx.clock));
    const now = isoNow(ctx.clock);
    const row: RatingActionsTable = {
      id: newId('ra'),
      seq: null,
      status: 'PENDING',
      type: p.type,
      provider_id: provider.id,
      provider_name: provider.name,
      previous_band: null,
      new_band: null,
      previous_score: null,
      new_score: null,
      outlook: null,
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
      rationale,
      risk_indicator_id: null,
      framework_version: null,
      publication_seq: null,
      proposal: canonicalJson(p.proposal),
      proposed_by: by.name,
      proposed_by_id: by.id,
      proposed_at: now,
      approved_by: null,
      approved_by_id: null,
      effective_at: null,
    };
    await insertRatingAction(tx, row);
    await recordAudit(ctx, tx, [
      {
        action: 'rating_action.proposed',
        subject: { type: 'rating_action', id: row.id },
        details: { provider_id: provider.id, type: p.type, proposal: p.proposal, rationale },
      },
    ]);
    return recordOf(row);
  });
}

/**
 * Makes pending actions effective, all or none, in one transaction: each approved by a person with the approver
 * role who did not propose it, applied in the order proposed (so a watch placed and removed in one approval ends
 * removed), each checked again against the provider as it then stands, numbered, signed and sent. The publication
 * version moves, so every instance rebuilds its public list with the new outlook and watch.
 */
export async function approveRatingActions(
  ctx: ServiceContext,
  input: { ids: readonly string[] },
): Promise<RatingAction[]> {
  const ids = [...new Set(input.ids.map((id) => id.trim()))];
  if (ids.length === 0) throw new ServiceError('invalid_value', 'name at least one rating action to approve');
  const malformed = ids.filter((id) => !/^ra_[0-9a-f]{24}$/.test(id));
  if (malformed.length > 0) {
    const message = `is not a rating action id (ra_ and 24 lower-case hex digits): ${malformed.map((id) => JSON.stringify(id)).join(', ')}`;
    throw new ServiceError('invalid_value', `id ${message}`, [{ path: 'id', message }]);
  }
  const by = await actingPerson(ctx, 'approver', 'approving rating actions', 'approver');
  await ensureStatements(ctx);
  const approved = await ctx.store.db.transaction().execute(async (tx) => {
    // Taken first, as publishing does: approvals, publications and withdrawals write one at a time.
    await increment(tx, PUBLICATION_VERSION);
    const rows: RatingActionRow[] = [];
    for (const id of ids) {
      const row = await findRatingAction(tx, id);
      if (!row) throw new ServiceError('not_found', `no rating action ${id}`);
      if (row.status !== 'PENDING') {
        throw new ServiceError('refused', `rating action ${id} is not pending: it took effect at ${row.effective_at}`);
      }
      if (samePerson({ id: row.proposed_by_id, name: row.proposed_by ?? '' }, by)) {
        throw new ServiceError(
          'refused',
          `rating action ${id}: ${by.name} proposed it and cannot approve it; another person with the approver role must`,
        );
      }
      rows.push(row);
    }
    rows.sort((a, b) => compare(a.proposed_at ?? '', b.proposed_at ?? '') || compare(a.id, b.id));
    const now = isoNow(ctx.clock);
    const effective: RatingActionsTable[] = [];
    for (const row of rows) {
      const provider = await inForce(tx, row.provider_id, row.id);
      const proposal = (row.proposal === null ? {} : readJson(row.proposal)) as Proposal;
      const standing = standingAfter(row.type as AnalystActionType, provider, proposal, now);
      const indicator = await findIndicator(tx, provider.current_indicator_id as string);
      if (!indicator) throw new Error(`provider ${provider.id} points at no stored indicator`);
      await setStanding(tx, provider.id, standing);
      const done: RatingActionsTable = {
        ...row,
        seq: await increment(tx, RATING_ACTION_SEQ),
        status: 'EFFECTIVE',
        provider_name: provider.name,
        previous_band: indicator.risk_band,
        new_band: indicator.risk_band,
        previous_score: indicator.final_score,
        new_score: indicator.final_score,
        ...standing,
        risk_indicator_id: indicator.risk_indicator_id,
        framework_version: indicator.framework_version,
        publication_seq: provider.current_seq,
        approved_by: by.name,
        approved_by_id: by.id,
        effective_at: now,
      };
      if (!(await makeEffective(tx, row.id, done))) {
        throw new ServiceError('refused', `rating action ${row.id} was approved meanwhile`);
      }
      effective.push(done);
    }
    const entries = await recordAudit(ctx, tx, effective.map(approvedNote));
    const served: RatingAction[] = [];
    for (const [i, row] of effective.entries()) {
      const entry = entries[i];
      if (!entry) throw new Error('the audit entry of an approval was not written');
      served.push(await completeAction(ctx, tx, row, { seq: entry.seq, hash: entry.hash }));
    }
    return served;
  });
  ctx.wake?.();
  return approved;
}

function approvedNote(row: RatingActionsTable): AuditNote {
  return {
    action: 'rating_action.approved',
    subject: { type: 'rating_action', id: row.id },
    details: {
      provider_id: row.provider_id,
      type: row.type,
      seq: row.seq,
      proposed_by: row.proposed_by,
      outlook: row.outlook,
      watch: watchOf(row),
    },
  };
}

/** Pending proposals (oldest first), or those then the latest `limit` effective actions (newest first). */
export async function listRatingActions(
  ctx: ServiceContext,
  input: { pendingOnly?: boolean | undefined; limit?: number | undefined } = {},
): Promise<RatingActionRecord[]> {
  const limit = input.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
    throw new ServiceError('invalid_value', 'the limit is a whole number from 1 to 10000', [
      { path: 'limit', message: 'must be a whole number from 1 to 10000' },
    ]);
  }
  const pending = (await listPendingActions(ctx.store.db)).map(recordOf);
  if (input.pendingOnly) return pending;
  const effective = await listEffectiveActions(ctx.store.db, { limit });
  return [...pending, ...effective.map(recordOf)];
}
