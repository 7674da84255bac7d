import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Each publication records the framework version it was scored under on its own row, so the history
 * says which version every past score came from without reading the indicator (and a re-score under
 * a new version is visible as such). Rows written before are filled from their indicators.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('indicator_history')
    .addColumn('framework_version', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update indicator_history set framework_version = (
    select r.framework_version from risk_indicators r where r.risk_indicator_id = indicator_history.risk_indicator_id
  )`.execute(db);
}
