import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresDialect,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from 'kysely';
import pg from 'pg';
import { deferringWrites } from './deferred-writes.js';
import type { Dialect } from './dialect.js';
import * as initial from './migrations/0001-initial.js';
import * as frameworkReleases from './migrations/0002-framework-releases.js';
import * as webhooks from './migrations/0003-webhooks.js';
import * as historyFramework from './migrations/0004-history-framework.js';
import * as pathToNextBand from './migrations/0005-path-to-next-band.js';
import * as listIndexes from './migrations/0006-list-indexes.js';
import * as recordHistory from './migrations/0007-record-history.js';
import * as keysAndBestBandPaths from './migrations/0008-keys-and-best-band-paths.js';
import * as operatorsAndAudit from './migrations/0009-operators-and-audit.js';
import * as signedStatements from './migrations/0010-signed-statements.js';
import * as asOfIndex from './migrations/0011-as-of-index.js';
import * as ratingActions from './migrations/0012-rating-actions.js';
import * as auditTimeAndNameKeys from './migrations/0013-audit-time-and-name-keys.js';
import { readAtOnceWith } from './prepared.js';
import type { Database } from './schema.js';

export type { Dialect } from './dialect.js';

export type StoreLocation = { kind: 'postgres'; url: string; schema?: string } | { kind: 'sqlite'; file: string };

export interface StoreOptions {
  /** How long a query may wait for a connection or run before the store counts as down. */
  timeoutMs?: number;
  /** Largest PostgreSQL pool. */
  poolSize?: number;
}

/** The database behind the service: one query builder over SQLite or PostgreSQL. */
export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** A cheap round trip: resolves when the store answers within the timeout. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not be reached or did not answer in time: a 503, never a 500. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * Settles as `work` does, or rejects with StoreUnavailableError when `work` has not settled within `timeoutMs`
 * (a PostgreSQL query may otherwise wait up to five times the store timeout). A late failure of `work` is dropped.
 */
export function withinStoreTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(`the store did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function openStore(location: StoreLocation, options: StoreOptions = {}): Store {
  const timeoutMs = options.timeoutMs ?? 2000;
  if (location.kind === 'sqlite') {
    if (location.file !== ':memory:') mkdirSync(dirname(location.file), { recursive: true });
    // SQLite's own busy wait blocks the event loop (better-sqlite3 is synchronous): a few milliseconds at most, then
    // the driver waits for the lock with timers, up to the store timeout (AsyncBusyConnection below).
    const database = new SQLite(location.file, { timeout: SYNCHRONOUS_BUSY_MS });
    database.pragma('journal_mode = WAL');
    // A commit returns once the WAL is on disk (decision 0044): under NORMAL a power loss could take publications,
    // audit entries and outbox rows that were committed, and whose events may already have been delivered.
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    // The one connection's page cache: 64 MiB instead of SQLite's 2 MiB, so the index pages of a large store
    // (10,000 providers, 1,000,000 history rows, 100,000 keys) stay in memory rather than being read again.
    database.pragma('cache_size = -65536');
    const statements = keepingStatements(database);
    const dialect = new ImmediateSqliteDialect({ database: statements }, timeoutMs);
    const db = new Kysely<Database>({ dialect });
    readAtOnceWith(db, (query) => {
      if (dialect.connectionHeld()) return null;
      try {
        return statements.prepare(query.sql).all(query.parameters as unknown[]) as unknown[];
      } catch (error) {
        // The file locked (a checkpoint, a recovery): Kysely's path waits for it without holding the event loop.
        if (isBusy(error)) return null;
        throw error;
      }
    });
    return {
      db,
      dialect: 'sqlite',
      ping: async () => {
        // A read of the file, not `select 1`: that one never takes a lock, so it answers while the file is locked.
        await sql`select 1 from sqlite_master limit 1`.execute(db);
      },
      close: () => db.destroy(),
    };
  }
  const pool = new pg.Pool({
    connectionString: location.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs * 5,
    idleTimeoutMillis: 30_000,
    ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}),
  });
  // A client losing its server must not crash the process: idle ones report through the pool, busy ones
  // through their own 'error' event; the query in flight is rejected either way and answers 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  // Whatever stops a connection from being opened (refused, terminated, a database not accepting connections, too
  // many connections, a wrong password after a rotation) is an outage for the request that needed it, never its fault.
  const connecting = {
    connect: () =>
      pool.connect().catch((error: unknown) => {
        throw new StoreUnavailableError(`could not connect to the store: ${(error as Error)?.message ?? error}`, {
          cause: error,
        });
      }),
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: connecting,
      // Every connection can hold a transaction's writes until its next read (deferWrites, decision 0038).
      onCreateConnection: async (connection) => deferringWrites(connection),
    }),
  });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/** How many prepared statements a SQLite store keeps: every query the service issues, with room to spare. */
const STATEMENTS_KEPT = 500;

/**
 * better-sqlite3 as Kysely sees it, with its prepared statements kept by SQL text (least recently used
 * dropped first): Kysely prepares every query it runs, and preparing a join costs more than running it.
 * A statement still iterating a result (a streamed query) is never handed out twice.
 */
function keepingStatements(database: SQLite.Database): SqliteDatabase {
  const kept = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      const found = kept.get(text);
      if (found && !found.busy) {
        kept.delete(text);
        kept.set(text, found);
        return found;
      }
      const statement = database.prepare(text);
      if (!found) {
        kept.set(text, statement);
        if (kept.size > STATEMENTS_KEPT) kept.delete(kept.keys().next().value as string);
      }
      return statement;
    },
  };
}

/** How long SQLite itself may wait for a lock, holding the event loop: then the driver's timers take over. */
const SYNCHRONOUS_BUSY_MS = 5;
/** The longest pause between two attempts to take a lock another process holds. */
const BUSY_PAUSE_MAX_MS = 50;

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * SQLite transactions that take the write lock at BEGIN. A deferred one that reads, then writes after
 * another process committed (a CLI command next to a dispatching `svc serve`), fails at once with
 * SQLITE_BUSY_SNAPSHOT instead of waiting out the busy timeout.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  private driver: ImmediateSqliteDriver | null = null;

  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly timeoutMs: number,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    this.driver = new ImmediateSqliteDriver(this.settings, this.timeoutMs);
    return this.driver;
  }

  /** Whether Kysely holds the one connection (a transaction open, a query in flight): true before the first query. */
  connectionHeld(): boolean {
    return this.driver?.held ?? true;
  }
}

/**
 * Also knows whether the connection is held, so a read may run at once when it is not (see store/prepared.ts), and
 * waits for a lock another process holds with timers, never by blocking the event loop (AsyncBusyConnection).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  held = true;
  private connection: AsyncBusyConnection | null = null;

  constructor(
    config: SqliteDialectConfig,
    private readonly timeoutMs: number,
  ) {
    super(config);
  }

  override async init(): Promise<void> {
    await super.init();
    this.held = false;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    this.connection ??= new AsyncBusyConnection(connection, this.timeoutMs);
    return this.connection;
  }

  override async releaseConnection(): Promise<void> {
    this.held = false;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    (connection as AsyncBusyConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    (connection as AsyncBusyConnection).inTransaction = false;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as AsyncBusyConnection).inTransaction = false;
    await super.rollbackTransaction(connection);
  }
}

/**
 * The one SQLite connection, waiting for a lock another process holds (a `BEGIN IMMEDIATE`, a write outside a
 * transaction) by trying again after a pause on a timer, up to the store timeout, then failing with SQLITE_BUSY (a
 * 503). SQLite's own busy wait is a few milliseconds: nothing else on the event loop (`/livez`, other requests, the
 * webhook dispatcher's timers) waits behind a lock. Inside a transaction, which holds the write lock from its BEGIN,
 * a statement is not tried again.
 */
class AsyncBusyConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private readonly inner: DatabaseConnection,
    private readonly timeoutMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + this.timeoutMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, BUSY_PAUSE_MAX_MS)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (this.inTransaction || !isBusy(error) || Date.now() + pause > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const migrations: Record<string, { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> }> = {
  '0001-initial': initial,
  '0002-framework-releases': frameworkReleases,
  '0003-webhooks': webhooks,
  '0004-history-framework': historyFramework,
  '0005-path-to-next-band': pathToNextBand,
  '0006-list-indexes': listIndexes,
  '0007-record-history': recordHistory,
  '0008-keys-and-best-band-paths': keysAndBestBandPaths,
  '0009-operators-and-audit': operatorsAndAudit,
  '0010-signed-statements': signedStatements,
  '0011-as-of-index': asOfIndex,
  '0012-rating-actions': ratingActions,
  '0013-audit-time-and-name-keys': auditTimeAndNameKeys,
};

/** The migrations this code knows, oldest first. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);

/**
 * The migrations this code knows that the store has not applied, oldest first (all of them in an empty store).
 * Migrations the store has applied that this code does not know (a newer instance ran them) are not pending.
 */
export async function pendingMigrations(store: Store): Promise<string[]> {
  const applied = await appliedMigrations(store);
  return MIGRATION_NAMES.filter((name) => !applied.has(name));
}

/** The migrations the store records as applied (none in an empty store). */
async function appliedMigrations(store: Store): Promise<Set<string>> {
  try {
    // Kysely's own table, in the connection's default schema as migrate() makes it.
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(store.db);
    return new Set(rows.map((r) => r.name));
  } catch (error) {
    if (!isMissingTable(error)) throw error;
    return new Set();
  }
}

/** PostgreSQL's undefined_table, SQLite's "no such table". */
function isMissingTable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === '42P01' || (e?.code === 'SQLITE_ERROR' && /no such table/i.test(String(e.message)));
}

/** Brings the schema up to date; safe to run again and from several processes at once. */
export async function migrate(store: Store): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(store);
    } catch (error) {
      // Kysely takes no lock on SQLite: a second process starting at the same moment finds the first one's tables.
      // Each migration is one transaction, so waiting and looking again sees them recorded as applied.
      // Before it runs a migration, Kysely looks for its tables through a catalog query over every schema of the
      // database (with pg_get_serial_sequence on each column), which fails when another session creates, alters or
      // drops a table or a schema meanwhile: 3F000, 42P01 or 42703 about another schema's objects, not ours. That
      // look changes nothing, so it is made again.
      const cause = error instanceof BeforeMigrating ? error.cause : error;
      const code = (cause as { code?: unknown })?.code;
      const retry =
        /already exists/i.test((cause as Error)?.message) ||
        code === '3F000' ||
        (error instanceof BeforeMigrating && CATALOG_RACES.has(String(code)));
      if (attempt >= 10 || !retry) throw cause;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** What a catalog query reading objects another session is changing can fail with (see migrate). */
const CATALOG_RACES = new Set(['3F000', '42P01', '42703', 'XX000']);

/** Kysely's migrator failed before it ran any migration (looking for, or making, its own tables). */
class BeforeMigrating extends Error {
  constructor(override readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
  }
}

async function migrateOnce(store: Store): Promise<string[]> {
  // A store with exactly the migrations this code knows applied has nothing to do: no need for Kysely's look over
  // the whole database. (One with others too, a newer instance's, is Kysely's to judge, as it always was.)
  const applied = await appliedMigrations(store);
  if (applied.size === MIGRATION_NAMES.length && MIGRATION_NAMES.every((name) => applied.has(name))) return [];
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(migrations)) out[name] = { up: (db) => m.up(db, store.dialect) };
      return out;
    },
  };
  // Kysely would otherwise take a migration table in any schema of the database for its own.
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const { error, results } = await new Migrator({
    db: store.db,
    provider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  }).migrateToLatest();
  // No results at all: the migrator failed before running any migration (see migrate).
  if (error) throw results === undefined ? new BeforeMigrating(error) : error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Node's network errors and SQLite's, by code: the store could not be reached or was busy. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
]);

/**
 * PostgreSQL SQLSTATE classes that describe the server, not the statement: 08 connection exception, 53 insufficient
 * resources (too many connections, disk full, out of memory), 57 operator intervention (shutdown, terminated session,
 * cannot connect now, query canceled by the statement timeout), 58 system error (I/O).
 */
const UNAVAILABLE_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58']);
/** 25006 read_only_sql_transaction: a write reached a read-only standby or a database set read-only. */
const UNAVAILABLE_SQLSTATES = new Set(['25006']);

/**
 * Whether an error means the store is down or overloaded (try again), not that the request was wrong. Decided by
 * where it happened (opening a connection: StoreUnavailableError), by PostgreSQL's SQLSTATE class, by Node's and
 * SQLite's error codes, and, for the pg driver's errors that carry no code, by the connection having been lost.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreUnavailableError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
      // SQLite's extended codes (SQLITE_BUSY_RECOVERY while another process recovers the log, SQLITE_IOERR_READ…)
      // by their primary code.
      const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
      if (primary !== undefined && primary !== code && UNAVAILABLE_CODES.has(primary)) return true;
      if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
    }
    if (
      /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end/i.test(
        e.message,
      )
    ) {
      return true;
    }
  }
  return false;
}
