import type { NextBandPath } from '@svc/methodology';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { backfillNextBand } from '../../src/services/packaged.js';
import { publishIndicator } from '../../src/services/publishing.js';
import { insertWorkspace } from '../../src/store/repositories/workspaces.js';
import { openStore, type Store } from '../../src/store/store.js';
import { manualClock } from '../support/clock.js';
import { exampleDocument, framework } from '../support/documents.js';
import { engines, freshLocation, freshStore, migrateBesideOtherTests, type TestLocation } from '../support/stores.js';

/** Every migration, in order: a fresh store runs them all. */
const MIGRATIONS = [
  '0001-initial',
  '0002-framework-releases',
  '0003-webhooks',
  '0004-history-framework',
  '0005-path-to-next-band',
  '0006-list-indexes',
  '0008-keys-and-best-band-paths',
];

const TABLES = [
  'api_keys',
  'approved_inputs',
  'changelog',
  'coverage_requests',
  'framework_releases',
  'indicator_history',
  'issuances',
  'providers',
  'risk_indicators',
  'store_meta',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_events',
  'workspaces',
];

/** The tables of the store's own schema (a PostgreSQL database holds other tests' schemas too). */
/** Writes one workspace: data that a later migration must keep. */
function addWorkspace(store: Store, name: string, mcpEnabled = 0): Promise<void> {
  return insertWorkspace(store.db, {
    id: 'ws_1',
    name,
    webhook_secret_enc: 'x',
    previous_webhook_secret_enc: null,
    previous_secret_expires_at: null,
    mcp_enabled: mcpEnabled,
    created_at: '2026-07-01T00:00:00.000Z',
  });
}

async function tableNames(store: Store): Promise<string[]> {
  const query =
    store.dialect === 'postgres'
      ? sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  const { rows } = await query.execute(store.db);
  return rows
    .map((r) => r.name)
    .filter((n) => !n.startsWith('kysely_'))
    .sort();
}

describe.each(engines)('migrations on %s', (engine) => {
  const opened: Store[] = [];
  const places: TestLocation[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    for (const p of places.splice(0)) await p.cleanup();
  });

  async function place(): Promise<TestLocation> {
    const p = await freshLocation(engine);
    places.push(p);
    return p;
  }
  function open(p: TestLocation): Store {
    const s = openStore(p.location);
    opened.push(s);
    return s;
  }

  it('creates every table on a fresh store', async () => {
    const p = await place();
    const store = open(p);
    expect(await migrateBesideOtherTests(store)).toEqual(MIGRATIONS);
    expect(await tableNames(store)).toEqual(TABLES);
  });

  it('is idempotent: migrating twice runs nothing the second time and keeps the data', async () => {
    const p = await place();
    const store = open(p);
    await migrateBesideOtherTests(store);
    await addWorkspace(store, 'kept');
    expect(await migrateBesideOtherTests(store)).toEqual([]);
    expect(await tableNames(store)).toEqual(TABLES);
    expect(await store.db.selectFrom('workspaces').select('name').execute()).toEqual([{ name: 'kept' }]);
  });

  it('a second store opened on the same location (as another process would) sees the schema and the data', async () => {
    const p = await place();
    const first = open(p);
    await migrateBesideOtherTests(first);
    await addWorkspace(first, 'from the first', 1);
    const second = open(p);
    expect(await migrateBesideOtherTests(second)).toEqual([]);
    expect(await tableNames(second)).toEqual(TABLES);
    expect(await second.db.selectFrom('workspaces').select(['name', 'mcp_enabled']).execute()).toEqual([
      { name: 'from the first', mcp_enabled: 1 },
    ]);
  });

  it('migrating is safe from several processes: two stores migrating one fresh location at once both succeed', async () => {
    const p = await place();
    const a = open(p);
    const b = open(p);
    const ran = await Promise.all([migrateBesideOtherTests(a), migrateBesideOtherTests(b)]);
    expect(ran.flat()).toEqual(MIGRATIONS);
    expect(await tableNames(a)).toEqual(TABLES);
  });

  it('0008 keeps the keys issued before it: no name, no expiry, still found by their hash', async () => {
    const p = await place();
    const store = open(p);
    await migrateBesideOtherTests(store);
    await addWorkspace(store, 'kept');
    // The store as it was before 0008: the two columns gone and the migration not recorded, a key in it.
    await store.db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
    await store.db.schema.alterTable('api_keys').dropColumn('name').execute();
    await sql`delete from kysely_migration where name = '0008-keys-and-best-band-paths'`.execute(store.db);
    await sql`insert into api_keys (id, workspace_id, prefix, key_hash, tier, created_at, last_used_at, revoked_at)
      values ('key_old', 'ws_1', 'svc_live_abcdef', ${'ab'.repeat(32)}, 'PROFESSIONAL', '2026-07-01T00:00:00.000Z', null, null)`.execute(
      store.db,
    );
    expect(await migrateBesideOtherTests(store)).toEqual(['0008-keys-and-best-band-paths']);
    expect(await store.db.selectFrom('api_keys').selectAll().execute()).toEqual([
      {
        id: 'key_old',
        workspace_id: 'ws_1',
        prefix: 'svc_live_abcdef',
        key_hash: 'ab'.repeat(32),
        tier: 'PROFESSIONAL',
        created_at: '2026-07-01T00:00:00.000Z',
        last_used_at: null,
        revoked_at: null,
        name: null,
        expires_at: null,
      },
    ]);
  });

  it('0008 clears the stored best-band paths of the old engine (a step per criterion) and only those; the backfill says it once', async () => {
    const store = await freshStore(engine);
    try {
      const clock = manualClock('2026-07-20T09:00:00.000Z');
      for (const name of ['low-band', 'worked-example'] as const) {
        const outcome = await publishIndicator(store, clock, {
          document: exampleDocument(name),
          framework,
          approvedAt: '2026-07-16T10:00:00.000Z',
        });
        expect(outcome.status).toBe('published');
      }
      const paths = async () =>
        Object.fromEntries(
          (await store.db.selectFrom('risk_indicators').select(['risk_band', 'path_to_next_band']).execute()).map(
            (r) => [r.risk_band, r.path_to_next_band],
          ),
        );
      const now = await paths();
      const low = JSON.parse(now.LOW ?? '') as NextBandPath;
      expect(low.steps).toEqual([]);
      // What the engine before 0008 stored in the best band: the same path with one step per criterion.
      const oldSteps = framework.definition.criteria.map((c) => ({
        criterion_id: c.id,
        input_key: c.input_key,
        label: c.label,
        current_value: null,
        suggested_value: null,
        suggested_as_of: null,
        resulting_score: null,
        resulting_band: null,
        reachable: false,
        reason: 'LOW is already the best band; there is no next band to reach',
      }));
      await store.db
        .updateTable('risk_indicators')
        .set({ path_to_next_band: JSON.stringify({ ...low, steps: oldSteps }) })
        .where('risk_band', '=', 'LOW')
        .execute();
      await store.db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
      await store.db.schema.alterTable('api_keys').dropColumn('name').execute();
      await sql`delete from kysely_migration where name = '0008-keys-and-best-band-paths'`.execute(store.db);

      expect(await migrateBesideOtherTests(store)).toEqual(['0008-keys-and-best-band-paths']);
      expect(await paths()).toEqual({ LOW: null, MEDIUM: now.MEDIUM });
      expect(await backfillNextBand(store)).toBe(1);
      expect(await paths()).toEqual(now);
    } finally {
      await store.dispose();
    }
  });

  it('ping answers on an open store and fails once it is closed', async () => {
    const store = await freshStore(engine);
    await expect(store.ping()).resolves.toBeUndefined();
    await store.dispose();
    await expect(store.ping()).rejects.toThrow();
  });

  it.runIf(engine === 'postgres')(
    'migrating a PostgreSQL schema is not disturbed by another schema of the database holding a migrated store',
    async () => {
      const other = await freshLocation(engine);
      places.push(other);
      await migrateBesideOtherTests(open(other));
      const mine = await freshLocation(engine);
      places.push(mine);
      const store = open(mine);
      expect(await migrateBesideOtherTests(store)).toEqual(MIGRATIONS);
      expect(await tableNames(store)).toEqual(TABLES);
    },
  );

  it.runIf(engine === 'sqlite')('SQLite runs in WAL mode with foreign keys enforced', async () => {
    const store = open(await place());
    await migrateBesideOtherTests(store);
    const { rows: mode } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
    expect(mode).toEqual([{ journal_mode: 'wal' }]);
    const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
    expect(fk).toEqual([{ foreign_keys: 1 }]);
  });
});
