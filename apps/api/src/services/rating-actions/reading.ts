import type { RatingAction, Watch } from '@svc/contracts';
import { listEffectiveActions, type SignedActionRow } from '../../store/repositories/rating-actions.js';
import { actionStatementsOf } from '../../store/repositories/statements.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { decodeCursor, NumberPosition, pageOf } from '../shared/paging.js';
import { type SignedStatement, signedOf, statingRow } from '../statements/statements.js';
import { actionFormOf } from './rating-action-form.js';
import { compare, today } from './rules.js';

/** Reading the record of rating actions: the feed, a statement, the watches in force. */

// ---- reading the record ----

/**
 * A page of effective actions, newest first, after the `cursor` of the previous page, optionally one provider's, one
 * type's, at or after `since` (a date or a timestamp); with the cursor of the next page (null on the last).
 */
export async function ratingActionsPage(
  ctx: ServiceContext,
  input: {
    provider_id?: string | undefined;
    type?: string | undefined;
    since?: string | undefined;
    cursor?: string | undefined;
    limit: number;
  },
): Promise<{ data: RatingAction[]; nextCursor: string | null }> {
  const before = decodeCursor(input.cursor, NumberPosition);
  const since = input.since === undefined ? undefined : new Date(Date.parse(input.since)).toISOString();
  const rows = await listEffectiveActions(ctx.store.db, {
    providerId: input.provider_id?.toLowerCase(),
    type: input.type,
    since,
    beforeSeq: before?.n,
    limit: input.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ n: Number(r.seq) }));
  return { data: page.map(servedAction), nextCursor };
}

/** An effective action as the feed serves it: its form and its signature (null until it is signed). */
function servedAction(row: SignedActionRow): RatingAction {
  const signature =
    row.statement_kid === null || row.statement_signature === null || row.statement_sha256 === null
      ? null
      : { kid: row.statement_kid, value: row.statement_signature, statement_sha256: row.statement_sha256 };
  return { ...actionFormOf(row), signature };
}

/** The signed statement of an effective action; not_found for an unknown id or a pending proposal. */
export async function ratingActionStatement(
  ctx: ServiceContext,
  input: { ratingActionId: string },
): Promise<SignedStatement> {
  const rows = await actionStatementsOf(ctx.store.db, input.ratingActionId);
  const row = statingRow(rows, { type: 'rating_action', ratingActionId: input.ratingActionId });
  if (!row) throw new ServiceError('not_found', `no effective rating action ${input.ratingActionId}`);
  return signedOf(row);
}

/** Every provider on watch now, soonest review first, and whether its review is overdue (before today, UTC). */
export async function watchesInForce(
  ctx: ServiceContext,
): Promise<{ provider_id: string; name: string; watch: NonNullable<Watch>; overdue: boolean }[]> {
  const day = today(ctx);
  const on = [];
  for (const h of await ctx.snapshot.headlines()) {
    if (h.watch !== null)
      on.push({ provider_id: h.id, name: h.name, watch: h.watch, overdue: h.watch.review_by < day });
  }
  return on.sort((a, b) => compare(a.watch.review_by, b.watch.review_by) || compare(a.provider_id, b.provider_id));
}
