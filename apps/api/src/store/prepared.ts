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
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
