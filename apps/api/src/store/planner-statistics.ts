import { sql } from 'kysely';
import type { Store } from './store.js';

/**
 * The tables a publication grows that other rows point to. PostgreSQL checks each foreign key with a plan that it
 * makes once per connection. That plan comes from the table's statistics at that moment. If the table was analyzed
 * while nearly empty, the check is a sequential scan. It stays one as the table grows, so each publication costs
 * more than the last (decision 0042).
 */
export const GROWN_TABLES = ['providers', 'risk_indicators', 'webhook_events', 'webhook_deliveries'] as const;

/** Publications between two looks at the statistics, per store. */
export const LOOK_EVERY = 1000;

const counted = new WeakMap<Store, number>();

/**
 * After `published` publications on a PostgreSQL store: every LOOK_EVERY, reads how many rows each of GROWN_TABLES
 * holds against how many its statistics say, and ANALYZEs those that have more than doubled (and grown by at least
 * LOOK_EVERY rows) since. ANALYZE also makes the server plan the foreign-key checks again, on the new figures.
 * A table never analyzed is left to autovacuum: the planner then reads the table's current size itself; so is one this
 * role does not own (ANALYZE would only warn). A store that does not answer here, or a table whose lock is not had
 * within a second, is left as it is: the publications are already committed, and the next look tries again.
 * SQLite plans from the schema and its indexes alone: nothing to do.
 */
export async function keepPlannerStatistics(store: Store, published: number): Promise<string[]> {
  if (store.dialect !== 'postgres' || published <= 0) return [];
  const since = (counted.get(store) ?? 0) + published;
  if (since < LOOK_EVERY) {
    counted.set(store, since);
    return [];
  }
  counted.set(store, 0);
  try {
    // The tables as the store's statements name them (through search_path), and only those this role may analyze.
    const { rows } = await sql<{ table: string; known: number; live: number }>`
      select c.relname as "table", c.reltuples::float8 as known, s.n_live_tup::float8 as live
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid
      where c.oid in (select to_regclass(t) from unnest(array[${sql.join([...GROWN_TABLES])}]::text[]) as t)
        and pg_has_role(c.relowner, 'USAGE')`.execute(store.db);
    const stale = rows
      .filter((r) => r.known >= 0 && r.live > 2 * r.known && r.live - r.known >= LOOK_EVERY)
      .map((r) => r.table)
      .sort();
    if (stale.length > 0) {
      // A VACUUM or another instance's ANALYZE of the same table holds its lock: this look gives up after a second
      // rather than hold the run back; the next look tries again.
      await store.db.transaction().execute(async (tx) => {
        await sql`set local lock_timeout = '1s'`.execute(tx);
        await sql`analyze ${sql.join(stale.map((t) => sql.table(t)))}`.execute(tx);
      });
    }
    return stale;
  } catch {
    return [];
  }
}
