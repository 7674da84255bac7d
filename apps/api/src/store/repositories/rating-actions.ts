import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, RatingActionsTable } from '../schema.js';

export type RatingActionRow = Selectable<RatingActionsTable>;

/** The last rating action seq handed out (store_meta). */
export const RATING_ACTION_SEQ = 'rating_action_seq';

/** An action with its statement's signature, as the feed serves it (the statement columns null until it is signed). */
export type SignedActionRow = RatingActionRow & {
  statement_kid: string | null;
  statement_signature: string | null;
  statement_sha256: string | null;
};

export async function insertRatingAction(db: Kysely<Database>, row: RatingActionsTable): Promise<void> {
  await db.insertInto('rating_actions').values(row).execute();
}

export async function findRatingAction(db: Kysely<Database>, id: string): Promise<RatingActionRow | undefined> {
  return db.selectFrom('rating_actions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Makes a pending action effective with what it became; only while it is still pending (returns whether it was). */
export async function makeEffective(
  db: Kysely<Database>,
  id: string,
  fields: Updateable<RatingActionsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('rating_actions')
    .set({ ...fields, status: 'EFFECTIVE' })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Pending proposals, oldest first. */
export async function listPendingActions(db: Kysely<Database>): Promise<RatingActionRow[]> {
  return db
    .selectFrom('rating_actions')
    .selectAll()
    .where('status', '=', 'PENDING')
    .orderBy('proposed_at')
    .orderBy('id')
    .execute();
}

/**
 * Effective actions newest first (in the order they took effect), with their statements' signatures: optionally one
 * provider's, one type's, at or after a time, before a seq (keyset pagination).
 */
export async function listEffectiveActions(
  db: Kysely<Database>,
  options: {
    providerId?: string | undefined;
    type?: string | undefined;
    since?: string | undefined;
    beforeSeq?: number | undefined;
    limit: number;
  },
): Promise<SignedActionRow[]> {
  let query = db
    .selectFrom('rating_actions')
    .leftJoin('statements', 'statements.rating_action_id', 'rating_actions.id')
    .selectAll('rating_actions')
    .select([
      'statements.kid as statement_kid',
      'statements.signature as statement_signature',
      'statements.statement_sha256',
    ])
    .where('rating_actions.seq', 'is not', null);
  if (options.providerId !== undefined) query = query.where('rating_actions.provider_id', '=', options.providerId);
  if (options.type !== undefined) query = query.where('rating_actions.type', '=', options.type);
  if (options.since !== undefined) query = query.where('rating_actions.effective_at', '>=', options.since);
  if (options.beforeSeq !== undefined) query = query.where('rating_actions.seq', '<', options.beforeSeq);
  return query.orderBy('rating_actions.seq', 'desc').limit(options.limit).execute();
}

/**
 * A provider's latest effective action at or before an instant: the outlook and watch it names were in force then
 * (undefined when it had none yet).
 */
export async function latestActionAt(
  db: Kysely<Database>,
  providerId: string,
  at: string,
): Promise<RatingActionRow | undefined> {
  return db
    .selectFrom('rating_actions')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('effective_at', '<=', at)
    .orderBy('effective_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}
