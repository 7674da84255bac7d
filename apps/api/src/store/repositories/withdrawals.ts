import type { Kysely } from 'kysely';
import type { Database, WithdrawalsTable } from '../schema.js';

export async function insertWithdrawal(db: Kysely<Database>, row: WithdrawalsTable): Promise<void> {
  await db.insertInto('withdrawals').values(row).execute();
}

/** A provider's withdrawals, newest first: those after publications before `beforeSeq` when given. */
export async function listWithdrawals(
  db: Kysely<Database>,
  providerId: string,
  options: { beforeSeq?: number | undefined; limit: number },
): Promise<WithdrawalsTable[]> {
  let query = db.selectFrom('withdrawals').selectAll().where('provider_id', '=', providerId);
  if (options.beforeSeq !== undefined) query = query.where('after_seq', '<', options.beforeSeq);
  return query.orderBy('after_seq', 'desc').limit(options.limit).execute();
}
