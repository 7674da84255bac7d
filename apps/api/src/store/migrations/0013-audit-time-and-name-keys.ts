import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';
import { nameKey } from '../name-key.js';

/**
 * Two things of issue 31:
 *
 * - The audit head knows when its entry was written (`at`), so an append dates its entries no earlier than the entry
 *   before without reading it: the trail's time never goes backwards (`svc audit verify` checks it), even when a
 *   verb runs on another machine's clock, or replays history as the demo does. Filled from the head's entry.
 * - Operators are unique by a compatibility- and case-folded key of their name (store/name-key.ts), not by
 *   its lower case alone: each operator's key is recomputed. Operators whose names fold to one key (added before
 *   this rule) keep the keys they had: neither is renamed or refused here.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('audit_head')
    .addColumn('at', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update audit_head set at = coalesce((select at from audit_log where audit_log.seq = audit_head.seq), '')`.execute(
    db,
  );
  const { rows } = await sql<{ id: string; name: string; name_key: string }>`
    select id, name, name_key from operators order by created_at, id`.execute(db);
  const taken = new Set(rows.map((r) => r.name_key));
  for (const row of rows) {
    const key = nameKey(row.name);
    if (key === row.name_key || taken.has(key)) continue;
    taken.delete(row.name_key);
    taken.add(key);
    await sql`update operators set name_key = ${key} where id = ${row.id}`.execute(db);
  }
}
