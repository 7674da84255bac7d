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
