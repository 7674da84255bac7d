import type { Kysely } from 'kysely';
import type { Database, FrameworkReleasesTable } from '../schema.js';

export type FrameworkReleaseRow = FrameworkReleasesTable;

/** Records a release; a version released before is left as it was. Returns whether this call recorded it. */
export async function insertRelease(db: Kysely<Database>, row: FrameworkReleaseRow): Promise<boolean> {
  const inserted = await db
    .insertInto('framework_releases')
    .values(row)
    .onConflict((oc) => oc.column('version').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export function findRelease(db: Kysely<Database>, version: string): Promise<FrameworkReleaseRow | undefined> {
  return db.selectFrom('framework_releases').selectAll().where('version', '=', version).executeTakeFirst();
}

export function listReleases(db: Kysely<Database>): Promise<FrameworkReleaseRow[]> {
  return db.selectFrom('framework_releases').selectAll().orderBy('effective_date').orderBy('version').execute();
}
