import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, SigningKeysTable, StatementsTable } from '../schema.js';

export type SigningKeyRow = SigningKeysTable;
export type StatementRow = Selectable<StatementsTable>;

export async function insertSigningKey(db: Kysely<Database>, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

export async function findSigningKey(db: Kysely<Database>, kid: string): Promise<SigningKeyRow | undefined> {
  return db.selectFrom('signing_keys').selectAll().where('kid', '=', kid).executeTakeFirst();
}

/** Every key, oldest first. */
export async function listSigningKeys(db: Kysely<Database>): Promise<SigningKeyRow[]> {
  return db.selectFrom('signing_keys').selectAll().orderBy('not_before').orderBy('kid').execute();
}

/** Retires every active key but `kid` at `at`; returns how many. */
export async function retireOtherKeys(db: Kysely<Database>, kid: string, at: string): Promise<number> {
  const result = await db
    .updateTable('signing_keys')
    .set({ not_after: at })
    .where('not_after', 'is', null)
    .where('kid', '!=', kid)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** When the latest statement was signed (null before the first). */
export async function latestSignedAt(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('statements')
    .select((eb) => eb.fn.max('signed_at').as('latest'))
    .executeTakeFirst();
  return row?.latest ?? null;
}

export async function insertStatement(db: Kysely<Database>, row: Insertable<StatementsTable>): Promise<void> {
  await db.insertInto('statements').values(row).execute();
}

/** The provider's latest statement: the one the next names as its previous. */
export async function latestStatementOf(db: Kysely<Database>, providerId: string): Promise<StatementRow | undefined> {
  return db
    .selectFrom('statements')
    .selectAll()
    .where('provider_id', '=', providerId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The SHA-256 of each provider's latest statement, by provider id, for the providers that have one. */
export async function latestStatementsOf(
  db: Kysely<Database>,
  providerIds: readonly string[],
): Promise<Map<string, string>> {
  if (providerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('statements')
    .select(['provider_id', 'statement_sha256'])
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('statements')
        .select((inner) => inner.fn.max('id').as('id'))
        .where('provider_id', 'in', [...providerIds])
        .groupBy('provider_id'),
    )
    .execute();
  return new Map(rows.map((r) => [r.provider_id, r.statement_sha256]));
}

/**
 * The publication statements stored under an indicator, newest first (an indicator published again after a withdrawal
 * has several): the caller takes the first whose signed text states that indicator (services/statements/statements.ts).
 */
export async function publicationStatementsOf(db: Kysely<Database>, riskIndicatorId: string): Promise<StatementRow[]> {
  return db
    .selectFrom('statements')
    .selectAll()
    .where('risk_indicator_id', '=', riskIndicatorId)
    .where('type', '=', 'publication')
    .orderBy('id', 'desc')
    .execute();
}

/** Statements after `afterId`, in the order signed, up to `limit` (a reader of every statement pages through them). */
export async function statementsAfter(db: Kysely<Database>, afterId: number, limit: number): Promise<StatementRow[]> {
  return db.selectFrom('statements').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

/** The statements stored under a rating action id: the caller takes the one whose signed text states that action. */
export async function actionStatementsOf(db: Kysely<Database>, ratingActionId: string): Promise<StatementRow[]> {
  return db
    .selectFrom('statements')
    .selectAll()
    .where('rating_action_id', '=', ratingActionId)
    .orderBy('id', 'desc')
    .execute();
}

/** The statements stored under a statement_sha256 (one, unless the store was tampered with). */
export async function statementsByHash(db: Kysely<Database>, statementSha256: string): Promise<StatementRow[]> {
  return db
    .selectFrom('statements')
    .selectAll()
    .where('statement_sha256', '=', statementSha256)
    .orderBy('id')
    .execute();
}
