import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The audit head knows when its entry was written (`at`), so an append dates its entries no earlier than the entry
 * before without reading it: the trail's time never goes backwards (issue 31; `svc audit verify` checks it), even
 * when a verb runs on another machine's clock, or replays history as the demo does. Filled from the head's entry.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('audit_head')
    .addColumn('at', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update audit_head set at = coalesce((select at from audit_log where audit_log.seq = audit_head.seq), '')`.execute(
    db,
  );
}
