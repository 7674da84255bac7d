import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { deferringWrites } from './deferred-writes.js';
import type { Dialect } from './dialect.js';
import { readAtOnceWith } from './prepared.js';
import type { Database } from './schema.js';
import { ImmediateSqliteDialect, isBusy, keepingStatements, SYNCHRONOUS_BUSY_MS } from './sqlite-driver.js';

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
