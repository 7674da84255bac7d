import { randomUUID } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A query built and compiled once per Kysely instance, then run with each call's arguments in place of the
 * first call's: for the lookups every request makes, where building and compiling the query with Kysely costs
 * more than running it. The builder must use each argument as a bound value (never in the SQL text).
 */
export function prepared<A extends string[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<Kysely<Database>, { query: CompiledQuery<R>; slots: (number | null)[] }>();
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (!entry) {
      // Marks no caller passes, so each bound value can be told to be an argument (and which) or a constant.
      const marks = args.map((_, i) => `${randomUUID()} argument ${i}`) as A;
      const query = build(db, ...marks).compile();
      const slots = query.parameters.map((value) => {
        const at = marks.indexOf(value as string);
        return at >= 0 ? at : null;
      });
      entry = { query, slots };
      compiled.set(db, entry);
    }
    const { query, slots } = entry;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : args[slot]));
    const compiledQuery = { ...query, parameters };
    const rows = atOnce.get(db)?.(compiledQuery);
    return rows ? (rows as R[]) : (await db.executeQuery<R>(compiledQuery)).rows;
  };
}

/** A store's way to run a read at once, or null when it cannot now (see `readAtOnceWith`). */
type ReadAtOnce = (query: CompiledQuery) => unknown[] | null;

const atOnce = new WeakMap<Kysely<Database>, ReadAtOnce>();

/**
 * Lets prepared queries on `db` (not on its transactions, which are other objects) run through `read` instead of
 * Kysely's executor: SQLite's one connection, when Kysely does not hold it, runs a statement synchronously, so
 * the read is what Kysely would do, without its connection lock and promise chain around a few microseconds of
 * SQL. `read` answers null when it cannot (the connection held: a transaction open), and Kysely runs the query.
 */
export function readAtOnceWith(db: Kysely<Database>, read: ReadAtOnce): void {
  atOnce.set(db, read);
}
