import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeEach } from 'vitest';
import { migrate } from '../../src/store/migrate.js';
import { TABLES } from '../../src/store/schema.js';
import { openStore, type Store, type StoreLocation } from '../../src/store/store.js';
import { POSTGRES_URL, postgresAvailable, STORE_ENGINES } from './environment.js';

export type Engine = 'sqlite' | 'postgres';

/** The engines the store-backed suites run on here: SQLite always (when selected), PostgreSQL when it answers. */
export const engines: Engine[] = STORE_ENGINES.filter((e) => e === 'sqlite' || postgresAvailable);

export interface TestLocation {
  location: StoreLocation;
  /** Drops the PostgreSQL schema or removes the SQLite folder. */
  cleanup(): Promise<void>;
}

/**
 * A fresh, empty place for a store: a SQLite file in a new temporary folder, or a new PostgreSQL schema (in the test
 * database, or in the database at `postgresUrl`).
 */
export async function freshLocation(engine: Engine, postgresUrl = POSTGRES_URL): Promise<TestLocation> {
  if (engine === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'svc-store-'));
    return {
      location: { kind: 'sqlite', file: join(dir, 'svc.db') },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBytes(8).toString('hex')}`;
  await adminQuery(`create schema ${schema}`, postgresUrl);
  return {
    location: { kind: 'postgres', url: postgresUrl, schema },
    cleanup: () => adminQuery(`drop schema if exists ${schema} cascade`, postgresUrl),
  };
}

/** Runs one statement on its own connection to the PostgreSQL test server (the test database, or `url`). */
export async function adminQuery(text: string, url = POSTGRES_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Whether an error is the one race between parallel test files: Kysely's migrator introspects every
 * schema of the PostgreSQL database, and a schema another file drops at that moment fails it with
 * `schema "t_…" does not exist` (3F000) or `relation … does not exist` (42P01).
 */
export function isSchemaRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42P01' || code === '3F000' || /does not exist/i.test((error as Error | null)?.message ?? '');
}

/** Runs a migration or a server start, again (at most three attempts in all) when it lost the race above. */
export async function retryOnSchemaRace<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= 3 || !isSchemaRace(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * n));
    }
  }
}

/** `migrate`, retried when another test file's schema vanished under it (see isSchemaRace). */
export function migrateBesideOtherTests(store: Store): Promise<string[]> {
  return retryOnSchemaRace(() => migrate(store));
}

export type FreshStore = Store & { location: StoreLocation; dispose(): Promise<void> };

/** A migrated store in a fresh location; dispose() closes it and removes the location. */
export async function freshStore(engine: Engine): Promise<FreshStore> {
  const place = await freshLocation(engine);
  const store = openStore(place.location);
  const dispose = async () => {
    await store.close();
    await place.cleanup();
  };
  try {
    await migrateBesideOtherTests(store);
  } catch (error) {
    await dispose();
    throw error;
  }
  return Object.assign(store, { location: place.location, dispose });
}

/**
 * The store of the running test: a fresh one for each test of the enclosing block. A migration is paid once per
 * block: before each test after the first, the block's store is put back as the migrations left it (every table
 * emptied and the rows they wrote written again, the sequences from 1), which is the fresh store the test would
 * otherwise build. A test that changed the schema (undid a migration, added a trigger or an index) leaves a store
 * that cannot be put back that way: the next test gets a newly migrated one. The returned store stands for whichever
 * is open, so the block can name it once.
 */
export function useFreshStore(engine: Engine): Store {
  let current: FreshStore | undefined;
  let migrated: MigratedState | undefined;
  beforeEach(async () => {
    if (current && migrated && (await schemaOf(current)) === migrated.schema) {
      await restore(current, migrated);
      return;
    }
    await current?.dispose();
    current = undefined;
    current = await freshStore(engine);
    migrated = await migratedState(current);
  });
  afterAll(async () => {
    await current?.dispose();
    current = undefined;
  });
  const open = () => {
    if (!current) throw new Error('the test store is not open');
    return current;
  };
  return {
    get db() {
      return open().db;
    },
    get dialect() {
      return open().dialect;
    },
    ping: () => open().ping(),
    close: () => open().close(),
  };
}

/** What a store holds right after its migrations: the rows they wrote, and its schema (see schemaOf). */
interface MigratedState {
  rows: Map<(typeof TABLES)[number], Record<string, unknown>[]>;
  schema: string;
}

async function migratedState(store: Store): Promise<MigratedState> {
  const rows = new Map<(typeof TABLES)[number], Record<string, unknown>[]>();
  for (const table of TABLES) {
    const found = await store.db.selectFrom(table).selectAll().execute();
    if (found.length > 0) rows.set(table, found as Record<string, unknown>[]);
  }
  return { rows, schema: await schemaOf(store) };
}

/** The store's schema as text: every table, column, index, trigger and (PostgreSQL) function of it. */
async function schemaOf(store: Store): Promise<string> {
  if (store.dialect === 'sqlite') {
    const { rows } = await sql<{ sql: string | null }>`select sql from sqlite_master order by type, name`.execute(
      store.db,
    );
    return rows.map((r) => r.sql ?? '').join('\n');
  }
  const { rows } = await sql<{ line: string }>`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable as line
      from information_schema.columns where table_schema = current_schema()
    union all select 'index ' || indexdef from pg_indexes where schemaname = current_schema()
    union all select 'trigger ' || trigger_name || ' ' || event_object_table from information_schema.triggers
      where trigger_schema = current_schema()
    union all select 'function ' || routine_name from information_schema.routines where routine_schema = current_schema()
    order by line`.execute(store.db);
  return rows.map((r) => r.line).join('\n');
}

/** Puts the store back as its migrations left it: every table emptied, their rows written again, sequences reset. */
async function restore(store: Store, migrated: MigratedState): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    if (store.dialect === 'postgres') {
      await sql`truncate table ${sql.join(TABLES.map((t) => sql.table(t)))} restart identity cascade`.execute(tx);
    } else {
      await sql`pragma defer_foreign_keys = on`.execute(tx);
      for (const table of [...TABLES].reverse()) await tx.deleteFrom(table).execute();
      await sql`delete from sqlite_sequence`.execute(tx).catch(() => undefined);
    }
    for (const [table, rows] of migrated.rows)
      await tx
        .insertInto(table)
        .values(rows as never)
        .execute();
  });
}
