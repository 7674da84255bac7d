import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';

/** The publication version: bumped in every publishing transaction, so every instance can tell its snapshot is stale. */
export const PUBLICATION_VERSION = 'publication_version';
/** The last publication sequence number handed out. */
export const PUBLICATION_SEQ = 'publication_seq';

export async function readMeta(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('store_meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Sets a value, inserting its key when new. */
export async function setMeta(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('store_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * Adds one to a counter and returns the new value, in one statement (a new key starts at 1); call inside the writing
 * transaction. On PostgreSQL it holds the row's lock until commit.
 */
export async function increment(db: Kysely<Database>, key: string): Promise<number> {
  // The 1s are literals: better-sqlite3 binds JS numbers as REAL, which would store "2.0".
  const row = await db
    .insertInto('store_meta')
    .values({ key, value: sql<string>`cast(${sql.lit(1)} as text)` })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ value: sql<string>`cast(cast(store_meta.value as integer) + ${sql.lit(1)} as text)` }),
    )
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Adds one (or `by`: that many numbers taken at once, the last returned) to each counter, in the order given and in
 * one statement, and returns their new values in that order (a new key starts at 1, or `by`); call inside the
 * writing transaction. On PostgreSQL it takes the rows' locks in that order (the publication version first, as
 * every writer that bumps it does) and holds them until commit.
 */
export async function incrementAll(db: Kysely<Database>, keys: readonly string[], by = 1): Promise<number[]> {
  if (new Set(keys).size !== keys.length) throw new Error(`a counter named twice: ${keys.join(', ')}`);
  if (!Number.isSafeInteger(by) || by < 1) throw new Error(`a counter moves by a whole number of 1 or more, not ${by}`);
  const rows = await db
    .insertInto('store_meta')
    .values(keys.map((key) => ({ key, value: sql<string>`cast(${sql.lit(by)} as text)` })))
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ value: sql<string>`cast(cast(store_meta.value as integer) + ${sql.lit(by)} as text)` }),
    )
    .returning(['key', 'value'])
    .execute();
  const values = new Map(rows.map((row) => [row.key, Number(row.value)]));
  return keys.map((key) => {
    const value = values.get(key);
    if (value === undefined) throw new Error(`counter ${key} was not incremented`);
    return value;
  });
}
