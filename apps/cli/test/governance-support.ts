import type { AuditEntry, Store } from '@svc/api';
import { TABLES } from '@svc/api';
import { afterAll, expect } from 'vitest';
import { type Env, embedded, freshSchema, postgresAvailable, storeOf, svcIn } from './operations.js';
import { type Run, STACK_FRAME } from './svc.js';

/**
 * Issue 13 (governance of the record): what governance.test.ts and audit.test.ts share. They run `svc` as
 * people do and read the store directly, to check that a refusal wrote nothing and to tamper with the trail.
 */

export const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
export const LOW_ID = '6102dd70-63e8-440e-9dd8-904f07489671';

const schemas: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const schema of schemas) await schema.drop();
});

/** A fresh store of each engine: SVC_DATA_DIR (SQLite), and a new PostgreSQL schema when PostgreSQL answers here. */
export const ENGINES: [string, () => Promise<Env>][] = [
  ['SQLite', embedded],
  ...(postgresAvailable
    ? ([
        [
          'PostgreSQL',
          async () => {
            const schema = await freshSchema();
            schemas.push(schema);
            // SVC_DATA_DIR still holds the master key file that seals workspace secrets.
            return { ...(await embedded()), DATABASE_URL: schema.url };
          },
        ],
      ] as [string, () => Promise<Env>][])
    : []),
];

/** The configuration acting as the holder of `token`. */
export function withToken(vars: Env, token: string): Env {
  return { ...vars, SVC_OPERATOR_TOKEN: token };
}

export async function withStoreOf<T>(vars: Env, work: (store: Store) => Promise<T>): Promise<T> {
  const store = storeOf(vars);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Every row of every table (each table's rows in a stable order): two dumps are equal when nothing was written. */
export function dumpOf(vars: Env): Promise<Record<string, string[]>> {
  return withStoreOf(vars, async (store) => {
    const dump: Record<string, string[]> = {};
    for (const table of TABLES) {
      const rows = await store.db.selectFrom(table).selectAll().execute();
      dump[table] = rows.map((row) => JSON.stringify(row)).sort();
    }
    return dump;
  });
}

/** The recorded head of the trail, read from the store. */
export function headOf(vars: Env): Promise<{ seq: number; hash: string }> {
  return withStoreOf(vars, async (store) => {
    const row = await store.db.selectFrom('audit_head').select(['seq', 'hash']).executeTakeFirstOrThrow();
    return { seq: Number(row.seq), hash: row.hash };
  });
}

/** The trail's entries after `seq`, as stored, in seq order. */
export function entriesAfter(vars: Env, seq: number): Promise<Pick<AuditEntry, 'seq' | 'actor' | 'action'>[]> {
  return withStoreOf(vars, async (store) => {
    const rows = await store.db
      .selectFrom('audit_log')
      .select(['seq', 'actor_type', 'actor_id', 'actor_name', 'action'])
      .where('seq', '>', seq)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      actor: { type: r.actor_type as AuditEntry['actor']['type'], id: r.actor_id, name: r.actor_name },
      action: r.action,
    }));
  });
}

/** A run that must end with this exit status and message on stderr, and no stack trace. */
export function expectFailed(run: Run, exit: number, message: RegExp | string, what = ''): void {
  expect(run.status, `${what}\n${run.stderr}${run.stdout}`).toBe(exit);
  if (typeof message === 'string') expect(run.stderr, what).toContain(message);
  else expect(run.stderr, what).toMatch(message);
  expect(run.stderr, what).not.toMatch(STACK_FRAME);
}

/** Runs a command that must be refused with this exit status and message, and checks that it wrote nothing. */
export async function refusedUnchanged(
  vars: Env,
  args: readonly string[],
  exit: number,
  message: RegExp | string,
): Promise<Run> {
  const before = await dumpOf(vars);
  const run = await svcIn(vars, ...args);
  expectFailed(run, exit, message, args.join(' '));
  expect(await dumpOf(vars), `${args.join(' ')} wrote to the store`).toEqual(before);
  return run;
}
