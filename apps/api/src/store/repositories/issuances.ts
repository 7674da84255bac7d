import { ISSUANCE_STATUSES } from '@svc/contracts';
import type { Kysely } from 'kysely';
import type { Database, IssuancesTable } from '../schema.js';

export type IssuanceRow = IssuancesTable;

export async function upsertIssuance(db: Kysely<Database>, row: IssuanceRow): Promise<void> {
  const { id: _id, announced_at: _announced, ...changes } = row;
  await db
    .insertInto('issuances')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet(changes))
    .execute();
}

export async function findIssuance(db: Kysely<Database>, id: string): Promise<IssuanceRow | undefined> {
  return db.selectFrom('issuances').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface AnnouncedPosition {
  announced_at: string;
  id: string;
}

/** Issuances newest announced first, filtered, after a position (keyset pagination). */
export async function listIssuances(
  db: Kysely<Database>,
  options: {
    status?: string | undefined;
    type?: string | undefined;
    /** Without it, only the upcoming issuances (status ANNOUNCED or PRICING). */
    includeClosed?: boolean | undefined;
    after?: AnnouncedPosition | undefined;
    limit: number;
  },
): Promise<IssuanceRow[]> {
  let query = db.selectFrom('issuances').selectAll();
  if (options.status) query = query.where('status', '=', options.status);
  else if (!options.includeClosed) query = query.where('status', 'in', [...ISSUANCE_STATUSES]);
  if (options.type) query = query.where('type', '=', options.type);
  const after = options.after;
  if (after) {
    // Before (announced_at, id): the time bounds the index range, so a page far down starts where it is.
    query = query
      .where('announced_at', '<=', after.announced_at)
      .where((eb) => eb.or([eb('announced_at', '<', after.announced_at), eb('id', '<', after.id)]));
  }
  return query.orderBy('announced_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}
