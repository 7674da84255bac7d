import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Two lists no index served (test/store/indexes.test.ts explains every repository query): the pending
 * submissions, oldest first, read every submission and sorted them; the coverage requests of every status,
 * newest first, sorted the whole table.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('approved_inputs_status')
    .on('approved_inputs')
    .columns(['status', 'submitted_at', 'id'])
    .execute();
  await db.schema
    .createIndex('coverage_requests_received')
    .on('coverage_requests')
    .columns(['received_at', 'id'])
    .execute();
}
