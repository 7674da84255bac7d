import type { NextBandPath } from '@svc/methodology';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { backfillNextBand } from '../../src/services/publishing/packaged.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { migrate } from '../../src/store/migrate.js';
import { insertCoverageRequest } from '../../src/store/repositories/coverage-requests.js';
import { findInForce } from '../../src/store/repositories/providers.js';
import { insertWorkspace } from '../../src/store/repositories/workspaces.js';
import { openStore, type Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework, WORKED_ID } from '../support/documents.js';
import { engines, freshLocation, freshStore, migrateBesideOtherTests, type TestLocation } from '../support/stores.js';
import { undo0012, undo0013 } from '../support/undo-migrations.js';

/** Every migration, in order: a fresh store runs them all. */
const MIGRATIONS = [
  '0001-initial',
  '0002-framework-releases',
  '0003-webhooks',
  '0004-history-framework',
  '0005-path-to-next-band',
  '0006-list-indexes',
  '0007-record-history',
  '0008-keys-and-best-band-paths',
  '0009-operators-and-audit',
  '0010-signed-statements',
  '0011-as-of-index',
  '0012-rating-actions',
  '0013-audit-time-and-name-keys',
];

const TABLES = [
  'api_keys',
  'approved_inputs',
  'audit_head',
  'audit_log',
  'changelog',
  'coverage_requests',
  'framework_releases',
  'indicator_history',
  'issuances',
  'operators',
  'providers',
  'rating_actions',
  'risk_indicators',
  'signing_keys',
  'statements',
  'store_meta',
  'terms_acceptances',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_events',
  'withdrawals',
  'workspaces',
];

/** Takes the store back to before 0009, so before 0010 (migrations run in order: a store before 0007 or 0008 had neither). */
async function undo0009(store: Store): Promise<void> {
  await undo0010(store);
  for (const table of ['audit_head', 'audit_log', 'terms_acceptances', 'operators']) {
    await store.db.schema.dropTable(table).execute();
  }
  await store.db.schema.alterTable('approved_inputs').dropColumn('submitted_by_id').execute();
  await store.db.schema.alterTable('approved_inputs').dropColumn('approved_by_id').execute();
  await sql`delete from kysely_migration where name = '0009-operators-and-audit'`.execute(store.db);
}

/** Takes the store back to before 0010 (so before 0012): no statements, no signing keys, nothing signed after the fact. */
async function undo0010(store: Store): Promise<void> {
  await undo0011(store, null);
  for (const table of ['statements', 'signing_keys']) await store.db.schema.dropTable(table).execute();
  await sql`delete from store_meta where key = 'statements_backfilled'`.execute(store.db);
  await sql`delete from kysely_migration where name = '0010-signed-statements'`.execute(store.db);
}

/** Takes the store back to before 0011 (so before 0012): no index of publications by the time they count from. */
async function undo0011(store: Store, signer?: Parameters<typeof undo0012>[1]): Promise<void> {
  await undo0012(store, signer);
  await store.db.schema.dropIndex('indicator_history_in_force').execute();
  await sql`delete from kysely_migration where name = '0011-as-of-index'`.execute(store.db);
}

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

  it.runIf(engine === 'postgres')(
    'migrate is not disturbed by other schemas of the database being created, migrated and dropped meanwhile',
    async () => {
      // What the CLI's tests do beside each other (each command migrates first), and what CI saw fail: Kysely's
      // look over every schema, failing on another session's tables (42703, 42P01). migrate itself, not retried.
      const ours = await place();
      await migrate(open(ours));
      let churning = true;
      const churn = async () => {
        while (churning) {
          const other = await freshLocation(engine);
          const store = openStore(other.location);
          try {
            await migrateBesideOtherTests(store);
          } finally {
            await store.close();
            await other.cleanup();
          }
        }
      };
      const churners = [churn(), churn(), churn()];
      const migrated = async () => {
        for (let i = 0; i < 40; i++) expect(await migrate(open(ours))).toEqual([]);
      };
      const fresh = async () => {
        for (let i = 0; i < 5; i++) expect(await migrate(open(await place()))).toEqual(MIGRATIONS);
      };
      try {
        await Promise.all([migrated(), migrated(), fresh()]);
      } finally {
        churning = false;
        await Promise.all(churners);
      }
    },
    120_000,
  );

  it('migrating is safe from several processes: two stores migrating one fresh location at once both succeed', async () => {
    const p = await place();
    const a = open(p);
    const b = open(p);
    const ran = await Promise.all([migrateBesideOtherTests(a), migrateBesideOtherTests(b)]);
    expect(ran.flat()).toEqual(MIGRATIONS);
    expect(await tableNames(a)).toEqual(TABLES);
  });

  it('0007 keeps the data: past withdrawals enter the history, resolved coverage requests become COVERED or DECLINED, issuance ids take the iss_ scheme', async () => {
    const store = open(await place());
    await migrateBesideOtherTests(store);
    const clock = manualClock(AFTER_EXAMPLES);
    const publish = () =>
      publishIndicator(ctxOf(store, { clock }), {
        document: exampleDocument('worked-example'),
        framework,
        approvedAt: '2026-06-02T10:00:00.000Z',
      });
    await publish();
    clock.advance(60_000);
    await withdrawProvider(ctxOf(store, { clock }), { providerId: WORKED_ID, reason: 'ceased lending' });
    clock.advance(60_000);
    await publish();
    const request = (id: string, provider_name: string) =>
      insertCoverageRequest(store.db, {
        id,
        provider_name,
        website: null,
        contact_email: null,
        planner_type: null,
        message: null,
        fingerprint: id,
        status: 'RESOLVED',
        received_at: '2026-07-01T00:00:00.000Z',
        resolved_at: '2026-07-02T00:00:00.000Z',
        resolution: `note ${id}`,
      });
    await request('cr_covered', 'Example Sats Lending');
    await request('cr_declined', 'Nobody Lending');
    await request('cr_open', 'Someone Lending');
    await store.db
      .updateTable('coverage_requests')
      .set({ status: 'RECEIVED', resolved_at: null, resolution: null })
      .where('id', '=', 'cr_open')
      .execute();
    const issuance = (id: string) =>
      store.db
        .insertInto('issuances')
        .values({
          id,
          issuer_name: 'Demo Issuer',
          provider_id: null,
          instrument_name: 'Demo Note',
          ticker: null,
          type: 'bond',
          status: 'ANNOUNCED',
          currency: 'USD',
          target_amount: '1000.50',
          coupon_rate_pct: null,
          coupon_frequency: null,
          expected_pricing_date: null,
          announced_at: '2026-07-01T00:00:00.000Z',
          updated_at: '2026-07-01T00:00:00.000Z',
        })
        .execute();
    await issuance('217037c8-0cb4-4ee6-9ca3-2c6eabb3f290'); // a demo issuance of before: a UUID
    await issuance('iss_0123456789abcdef01234567');
    // The store as it was before 0007: no withdrawals table, and 0007 not recorded.
    await store.db.schema.dropTable('withdrawals').execute();
    await sql`delete from kysely_migration where name = '0007-record-history'`.execute(store.db);
    // Migrations run in order: the store as it was before 0007 had none of 0008 or 0009 either.
    await undo0009(store);
    await store.db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
    await store.db.schema.alterTable('api_keys').dropColumn('name').execute();
    await sql`delete from kysely_migration where name = '0008-keys-and-best-band-paths'`.execute(store.db);
    const history = await store.db
      .selectFrom('indicator_history')
      .select(['seq', 'risk_indicator_id'])
      .orderBy('seq')
      .execute();

    expect(await migrate(store)).toEqual([
      '0007-record-history',
      '0008-keys-and-best-band-paths',
      '0009-operators-and-audit',
      '0010-signed-statements',
      '0011-as-of-index',
      '0012-rating-actions',
      '0013-audit-time-and-name-keys',
    ]);
    expect(await store.db.selectFrom('withdrawals').selectAll().execute()).toEqual([
      {
        after_seq: history[0]?.seq,
        provider_id: WORKED_ID,
        risk_indicator_id: history[0]?.risk_indicator_id,
        framework_version: 'DCRF v1.0',
        previous_score: 78.46,
        previous_band: 'MEDIUM',
        reason: null,
        withdrawn_at: '2026-08-01T09:01:00.000Z',
      },
    ]);
    expect(await store.db.selectFrom('issuances').select(['id', 'target_amount']).orderBy('id').execute()).toEqual([
      { id: 'iss_0123456789abcdef01234567', target_amount: '1000.50' },
      { id: 'iss_217037c80cb44ee69ca32c6e', target_amount: '1000.50' },
    ]);
    const requests = await store.db
      .selectFrom('coverage_requests')
      .select(['id', 'status', 'resolution'])
      .orderBy('id')
      .execute();
    expect(requests).toEqual([
      { id: 'cr_covered', status: 'COVERED', resolution: 'note cr_covered' },
      { id: 'cr_declined', status: 'DECLINED', resolution: 'note cr_declined' },
      { id: 'cr_open', status: 'RECEIVED', resolution: null },
    ]);
  });

  it('0008 keeps the keys issued before it: no name, no expiry, still found by their hash', async () => {
    const p = await place();
    const store = open(p);
    await migrateBesideOtherTests(store);
    await addWorkspace(store, 'kept');
    // The store as it was before 0008 (so before 0009): the two columns gone and the migration not recorded, a key in it.
    await undo0009(store);
    await store.db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
    await store.db.schema.alterTable('api_keys').dropColumn('name').execute();
    await sql`delete from kysely_migration where name = '0008-keys-and-best-band-paths'`.execute(store.db);
    await sql`insert into api_keys (id, workspace_id, prefix, key_hash, tier, created_at, last_used_at, revoked_at)
      values ('key_old', 'ws_1', 'svc_live_abcdef', ${'ab'.repeat(32)}, 'PROFESSIONAL', '2026-07-01T00:00:00.000Z', null, null)`.execute(
      store.db,
    );
    expect(await migrateBesideOtherTests(store)).toEqual([
      '0008-keys-and-best-band-paths',
      '0009-operators-and-audit',
      '0010-signed-statements',
      '0011-as-of-index',
      '0012-rating-actions',
      '0013-audit-time-and-name-keys',
    ]);
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
        const outcome = await publishIndicator(ctxOf(store, { clock }), {
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
      await undo0009(store);
      await store.db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
      await store.db.schema.alterTable('api_keys').dropColumn('name').execute();
      await sql`delete from kysely_migration where name = '0008-keys-and-best-band-paths'`.execute(store.db);

      expect(await migrateBesideOtherTests(store)).toEqual([
        '0008-keys-and-best-band-paths',
        '0009-operators-and-audit',
        '0010-signed-statements',
        '0011-as-of-index',
        '0012-rating-actions',
        '0013-audit-time-and-name-keys',
      ]);
      expect(await paths()).toEqual({ LOW: null, MEDIUM: now.MEDIUM });
      expect(await backfillNextBand(store)).toBe(1);
      expect(await paths()).toEqual(now);
    } finally {
      await store.dispose();
    }
  });

  it('0013 dates the audit head, and keys each operator by its folded name; two that fold together keep their old keys', async () => {
    const store = open(await place());
    await migrateBesideOtherTests(store);
    await undo0013(store);
    // Operators as a store before 0013 keyed them: by their name's lower case alone.
    const operator = (id: string, name: string) => ({
      id,
      name,
      name_key: name.toLowerCase(),
      roles: 'admin',
      token_hash: `hash-${id}`,
      created_at: `2026-07-0${id.slice(-1)}T00:00:00.000Z`,
      token_issued_at: '2026-07-01T00:00:00.000Z',
      revoked_at: null,
    });
    await store.db
      .insertInto('operators')
      .values([operator('op_1', 'Straße'), operator('op_2', 'STRASSE'), operator('op_3', 'Ｄｅｅ')])
      .execute();
    expect(await migrateBesideOtherTests(store)).toEqual(['0013-audit-time-and-name-keys']);
    const keys = await store.db.selectFrom('operators').select(['id', 'name_key']).orderBy('id').execute();
    // Straße folds to STRASSE's key, which is taken: both keep their keys, neither renamed nor refused.
    expect(keys).toEqual([
      { id: 'op_1', name_key: 'straße' },
      { id: 'op_2', name_key: 'strasse' },
      { id: 'op_3', name_key: 'dee' },
    ]);
    const head = await store.db.selectFrom('audit_head').selectAll().executeTakeFirstOrThrow();
    const entry = await store.db
      .selectFrom('audit_log')
      .select('at')
      .where('seq', '=', head.seq)
      .executeTakeFirstOrThrow();
    expect(head.at).toBe(entry.at);
  });

  it('0011 indexes the publications of a store made before it: each as of an instant is found through the index', async () => {
    const store = open(await place());
    await migrateBesideOtherTests(store);
    const clock = manualClock(AFTER_EXAMPLES);
    const publish = () =>
      publishIndicator(ctxOf(store, { clock }), {
        document: exampleDocument('worked-example'),
        framework,
        approvedAt: '2026-06-02T10:00:00.000Z',
      });
    await publish();
    const published = clock.now().toISOString();
    clock.advance(60_000);
    await withdrawProvider(ctxOf(store, { clock }), { providerId: WORKED_ID, reason: 'ceased lending' });
    const withdrawn = clock.now().toISOString();
    await undo0011(store);

    expect(await migrateBesideOtherTests(store)).toEqual([
      '0011-as-of-index',
      '0012-rating-actions',
      '0013-audit-time-and-name-keys',
    ]);
    expect((await findInForce(store.db, WORKED_ID, published))?.published_at).toBe(published);
    expect(await findInForce(store.db, WORKED_ID, new Date(Date.parse(published) - 1).toISOString())).toBeUndefined();
    expect(
      (await findInForce(store.db, WORKED_ID, new Date(Date.parse(withdrawn) - 1).toISOString()))?.published_at,
    ).toBe(published);
    expect(await findInForce(store.db, WORKED_ID, withdrawn)).toBeUndefined();
    const plan =
      engine === 'sqlite'
        ? (
            await sql<{ detail: string }>`explain query plan select seq from indicator_history
            where provider_id = ${WORKED_ID} and published_at <= ${withdrawn}
            order by published_at desc, seq desc limit 1`.execute(store.db)
          ).rows.map((r) => r.detail)
        : (
            await sql<{ indexname: string }>`select indexname from pg_indexes
            where schemaname = current_schema() and tablename = 'indicator_history'`.execute(store.db)
          ).rows.map((r) => r.indexname);
    expect(plan.join('\n')).toContain('indicator_history_in_force');
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

  it.runIf(engine === 'sqlite')('SQLite runs in WAL mode, each commit synced, foreign keys enforced', async () => {
    const store = open(await place());
    await migrateBesideOtherTests(store);
    const { rows: mode } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
    expect(mode).toEqual([{ journal_mode: 'wal' }]);
    // FULL (2): the WAL is synced at every commit, not only at a checkpoint (decision 0044).
    const { rows: synchronous } = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
    expect(synchronous).toEqual([{ synchronous: 2 }]);
    const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
    expect(fk).toEqual([{ foreign_keys: 1 }]);
  });
});
