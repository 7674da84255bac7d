import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
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

import type { Store } from './store.js';

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
