import type { Kysely } from 'kysely';
import type { CoverageRequestsTable, Database } from '../schema.js';

export type CoverageRequestRow = CoverageRequestsTable;

export async function findByFingerprint(db: Kysely<Database>, fingerprint: string, since: string) {
  return db
    .selectFrom('coverage_requests')
    .select(['id', 'received_at', 'status'])
    .where('fingerprint', '=', fingerprint)
    .where('received_at', '>=', since)
    .orderBy('received_at')
    .executeTakeFirst();
}

export async function insertCoverageRequest(db: Kysely<Database>, row: CoverageRequestRow): Promise<void> {
  await db.insertInto('coverage_requests').values(row).execute();
}

export async function listCoverageRequests(
  db: Kysely<Database>,
  options: { status?: string | undefined; limit: number },
) {
  let query = db.selectFrom('coverage_requests').selectAll();
  if (options.status) query = query.where('status', '=', options.status);
  return query.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

/** Sets a request's status and note; `resolvedAt` is when it reached a final status (COVERED, DECLINED), else null. */
export async function updateCoverageRequest(
  db: Kysely<Database>,
  id: string,
  change: { status: string; resolution: string | null; resolvedAt: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('coverage_requests')
    .set({ status: change.status, resolution: change.resolution, resolved_at: change.resolvedAt })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findCoverageRequest(db: Kysely<Database>, id: string): Promise<CoverageRequestRow | undefined> {
  return db.selectFrom('coverage_requests').selectAll().where('id', '=', id).executeTakeFirst();
}
