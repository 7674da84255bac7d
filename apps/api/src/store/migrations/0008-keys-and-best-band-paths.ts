import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Two changes of decision 0018.
 *
 * API keys get a name for people (which integration holds it) and an optional expiry: a key past its
 * `expires_at` is refused like a revoked one. Both columns are nullable, so keys issued before keep working
 * as they did: no name, no expiry.
 *
 * In the best band the path to the next band now says so once (no steps) instead of once per criterion. The
 * stored paths of indicators in the best band (`"next_band":null`, as JSON.stringify writes it) are cleared, and
 * the start-up backfill (services/publishing/packaged.ts) computes them again with this engine. No other path changes.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await sql`update risk_indicators set path_to_next_band = null where path_to_next_band like ${'%"next_band":null,%'}`.execute(
    db,
  );
}
