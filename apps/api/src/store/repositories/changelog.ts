import type { Insertable, Kysely } from 'kysely';
import type { ChangelogTable, Database } from '../schema.js';

export async function insertChange(db: Kysely<Database>, row: Insertable<ChangelogTable>): Promise<void> {
  await db.insertInto('changelog').values(row).execute();
}

/** Changes newest first (by id), optionally since a time, before an id (keyset pagination). */
export async function listChanges(
  db: Kysely<Database>,
  options: { since?: string | undefined; beforeId?: number | undefined; limit: number },
) {
  let query = db.selectFrom('changelog').selectAll();
  if (options.since !== undefined) query = query.where('changed_at', '>=', options.since);
  if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}
