import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Each published indicator keeps its path to the next band (JSON text), computed by the engine when it
 * is published; indicators stored before this migration get theirs from the backfill the service runs
 * at start (see services/backfill.ts).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('risk_indicators').addColumn('path_to_next_band', 'text').execute();
}
