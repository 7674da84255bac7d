import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * API keys get a name for people (which integration holds it) and an optional expiry: a key past its
 * `expires_at` is refused like a revoked one. Both columns are nullable, so keys issued before keep working
 * as they did: no name, no expiry.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
}
