import type { Kysely } from 'kysely';
import type { ApprovedInputsTable, Database } from '../schema.js';

export type ApprovedInputsRow = ApprovedInputsTable;

export async function insertApprovedInputs(db: Kysely<Database>, row: ApprovedInputsRow): Promise<void> {
  await db.insertInto('approved_inputs').values(row).execute();
}

/** The newest approved submission of a provider. */
export async function latestApproved(db: Kysely<Database>, providerId: string): Promise<ApprovedInputsRow | undefined> {
  return db
    .selectFrom('approved_inputs')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('status', '=', 'APPROVED')
    .orderBy('approved_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** The newest pending submission of a provider. */
export async function latestPending(db: Kysely<Database>, providerId: string): Promise<ApprovedInputsRow | undefined> {
  return db
    .selectFrom('approved_inputs')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('status', '=', 'PENDING')
    .orderBy('submitted_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Marks a provider's submissions in one status SUPERSEDED (a newer one took their place); returns how many. */
export async function supersede(db: Kysely<Database>, providerId: string, status: 'PENDING' | 'APPROVED') {
  const result = await db
    .updateTable('approved_inputs')
    .set({ status: 'SUPERSEDED' })
    .where('provider_id', '=', providerId)
    .where('status', '=', status)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Records an approval of a pending submission; false when it was no longer pending (replaced or approved meanwhile). */
export async function markApproved(
  db: Kysely<Database>,
  id: string,
  approvedBy: { id: string | null; name: string },
  approvedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('approved_inputs')
    .set({ status: 'APPROVED', approved_by: approvedBy.name, approved_by_id: approvedBy.id, approved_at: approvedAt })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Submissions without their documents, oldest first; only the pending ones when asked. */
export async function listSubmissions(db: Kysely<Database>, options: { pendingOnly?: boolean } = {}) {
  let query = db
    .selectFrom('approved_inputs')
    .select([
      'id',
      'provider_id',
      'document',
      'inputs_sha256',
      'status',
      'submitted_by',
      'submitted_at',
      'approved_by',
      'approved_at',
      'submitted_by_id',
      'approved_by_id',
    ]);
  if (options.pendingOnly) query = query.where('status', '=', 'PENDING');
  return query.orderBy('submitted_at').orderBy('id').execute();
}

/** Providers with an approved submission, by id: what `publish --all` publishes. */
export async function providersWithApproved(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('approved_inputs')
    .select('provider_id')
    .distinct()
    .where('status', '=', 'APPROVED')
    .orderBy('provider_id')
    .execute();
  return rows.map((r) => r.provider_id);
}

/** The newest approved submission of a provider whose document has this SHA-256 (one an indicator was scored from). */
export async function approvedWithSha(
  db: Kysely<Database>,
  providerId: string,
  inputsSha256: string,
): Promise<ApprovedInputsRow | undefined> {
  return db
    .selectFrom('approved_inputs')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('inputs_sha256', '=', inputsSha256)
    .where('approved_at', 'is not', null)
    .orderBy('approved_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/**
 * The submission approved at each provider's instant (a publication's score_verified_at), for several providers in
 * one query: by provider id, who made and who checked its inputs; absent when there is none. One in practice (a
 * provider's approvals are one at a time); the first by id if ever not, as migration 0012 takes.
 */
export async function approvedAtInstants(
  db: Kysely<Database>,
  wanted: readonly { providerId: string; approvedAt: string }[],
): Promise<Map<string, Pick<ApprovedInputsRow, 'submitted_by' | 'approved_by'>>> {
  const found = new Map<string, Pick<ApprovedInputsRow, 'submitted_by' | 'approved_by'>>();
  if (wanted.length === 0) return found;
  const instants = new Map(wanted.map((w) => [w.providerId, w.approvedAt]));
  const rows = await db
    .selectFrom('approved_inputs')
    .select(['id', 'provider_id', 'approved_at', 'submitted_by', 'approved_by'])
    .where('provider_id', 'in', [...instants.keys()])
    .where('approved_at', 'in', [...new Set(instants.values())])
    .execute();
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const row of rows) {
    if (instants.get(row.provider_id) === row.approved_at && !found.has(row.provider_id)) {
      found.set(row.provider_id, { submitted_by: row.submitted_by, approved_by: row.approved_by });
    }
  }
  return found;
}

/** The submission approved at an instant (a publication's score_verified_at): who made and who checked its inputs. */
export async function approvedAtInstant(
  db: Kysely<Database>,
  providerId: string,
  approvedAt: string,
): Promise<Pick<ApprovedInputsRow, 'submitted_by' | 'approved_by'> | undefined> {
  return (await approvedAtInstants(db, [{ providerId, approvedAt }])).get(providerId);
}
