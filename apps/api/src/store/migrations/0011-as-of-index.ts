import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The index behind `as_of` (decision 0029): a provider's publications by the time they count from, so the one in
 * force at an instant (its latest `published_at` at or before it, ties by `seq`) is one seek from the end of the
 * provider's range, however long its history. `published_at` is stored as ISO 8601 UTC text with milliseconds
 * (24 characters, from `toISOString`), which sorts as time on both engines.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('indicator_history_in_force')
    .on('indicator_history')
    .columns(['provider_id', 'published_at', 'seq'])
    .execute();
}
