import { TABLES } from '../../src/store/schema.js';
import type { Store } from '../../src/store/store.js';

/** Row counts of every table plus the meta values: "nothing was written" compares two of these. */
export async function storeContents(store: Store): Promise<Record<string, string | number>> {
  const out: Record<string, string | number> = {};
  for (const table of TABLES) {
    const row = await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  for (const meta of await store.db.selectFrom('store_meta').selectAll().orderBy('key').execute()) {
    out[`meta:${meta.key}`] = meta.value;
  }
  return out;
}

/** Every row of every table, each table's rows sorted: "nothing was written" compares two of these. */
export async function everything(store: Store): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = await store.db.selectFrom(table).selectAll().execute();
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** Each publication's sequence number and provider, in publication order. */
export async function publicationOrder(store: Store): Promise<[number, string][]> {
  const rows = await store.db.selectFrom('indicator_history').select(['seq', 'provider_id']).orderBy('seq').execute();
  return rows.map((h) => [Number(h.seq), h.provider_id]);
}
