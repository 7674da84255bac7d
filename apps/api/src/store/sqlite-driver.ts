import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';

/** How many prepared statements a SQLite store keeps: every query the service issues, with room to spare. */
const STATEMENTS_KEPT = 500;

/**
 * better-sqlite3 as Kysely sees it, with its prepared statements kept by SQL text (least recently used
 * dropped first): Kysely prepares every query it runs, and preparing a join costs more than running it.
 * A statement still iterating a result (a streamed query) is never handed out twice.
 */
export function keepingStatements(database: SQLite.Database): SqliteDatabase {
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
export const SYNCHRONOUS_BUSY_MS = 5;
/** The longest pause between two attempts to take a lock another process holds. */
const BUSY_PAUSE_MAX_MS = 50;

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * SQLite transactions that take the write lock at BEGIN. A deferred one that reads, then writes after
 * another process committed (a CLI command next to a dispatching `svc serve`), fails at once with
 * SQLITE_BUSY_SNAPSHOT instead of waiting out the busy timeout.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
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
