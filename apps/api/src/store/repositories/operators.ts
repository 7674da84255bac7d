import type { Kysely } from 'kysely';
import type { Database, OperatorsTable } from '../schema.js';

export type OperatorRow = OperatorsTable;

export async function insertOperator(db: Kysely<Database>, row: OperatorRow): Promise<void> {
  await db.insertInto('operators').values(row).execute();
}

/** The operator whose name has this key (store/name-key.ts: compatibility- and case-folded). */
export async function findOperatorByName(db: Kysely<Database>, key: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('name_key', '=', key).executeTakeFirst();
}

export async function findOperatorById(db: Kysely<Database>, id: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOperatorByTokenHash(db: Kysely<Database>, hash: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

/** Whether any operator was ever added (revoked ones count: a store leaves open mode once, for good). */
export async function anyOperator(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('operators').select('id').limit(1).executeTakeFirst()) !== undefined;
}

export async function listOperatorRows(db: Kysely<Database>): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updateOperator(
  db: Kysely<Database>,
  id: string,
  changes: Partial<Pick<OperatorRow, 'token_hash' | 'token_issued_at' | 'revoked_at'>>,
): Promise<void> {
  await db.updateTable('operators').set(changes).where('id', '=', id).execute();
}
