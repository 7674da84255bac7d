// A data set built through the store, for the HTTP and scale benches: providers published by the publishing
// service (engine, package, history, change feed, outbox), webhook events delivered by the dispatcher, API keys,
// and publication history, the last two added in large batches through Kysely in transactions.
//
// As a command, from apps/api after the build, to keep a store to look at or profile against:
//   node bench/dataset.mjs sqlite|postgres [providers=10000] [history=1000000] [keys=100000]
// prints where the store is and how long each part took, and leaves it there.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pino from 'pino';
import { adminQuery, POSTGRES_URL, startBare } from './harness.mjs';

const api = await import(new URL('../dist/index.js', import.meta.url).href);
const { registerWebhook } = await import(new URL('../dist/services/webhooks/endpoints.js', import.meta.url).href);
const { newDeliveryId, newEventId } = await import(
  new URL('../dist/services/webhooks/events.js', import.meta.url).href
);
const { subscribedEndpoints } = await import(new URL('../dist/store/repositories/webhooks.js', import.meta.url).href);
const { increment } = await import(new URL('../dist/store/repositories/meta.js', import.meta.url).href);
const { PublicSnapshot } = await import(new URL('../dist/services/public-snapshot.js', import.meta.url).href);
const methodology = await import('@svc/methodology');

const example = JSON.parse(
  readFileSync(new URL('../../../examples/dcrf-1.0/worked-example.json', import.meta.url), 'utf8'),
);
const framework = methodology.currentFramework();
const clock = api.systemClock;
const box = api.secretBox(Buffer.alloc(32, 5));
/** The keys the load uses: ENTERPRISE, 50,000 requests an hour each; requests rotate over them. */
const BENCH_KEYS = 40;
const KEYS_PER_WORKSPACE = 1000;
const BATCH_ROWS = 1000;

/** Provider n (from 1): the worked example under its own id and name. */
export const providerId = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const providerName = (n) => `Bench Provider ${n}`;

function documentFor(n) {
  const doc = structuredClone(example);
  doc.provider.id = providerId(n);
  doc.provider.name = providerName(n);
  const v = methodology.validateInputs(doc, framework);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.document;
}

/** Scored once per process and shared by both engines: what publishing stores for provider n, without the transaction. */
const scored = new Map();
function scoredFor(n) {
  let s = scored.get(n);
  if (!s) {
    const document = documentFor(n);
    const { indicator, package: pkg } = methodology.scoreWithPackage(document, framework);
    s = { indicator, pkg, packageText: methodology.serializePackage(pkg) };
    scored.set(n, s);
  }
  return s;
}

const elapsed = async (work) => {
  const t = performance.now();
  await work();
  return performance.now() - t;
};

/** A fresh SQLite file in a new folder, or a fresh PostgreSQL schema; `cleanup` removes it. */
async function freshPlace(engine) {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    return {
      location: { kind: 'sqlite', file: join(dir, 'svc.db') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  return {
    location: { kind: 'postgres', url: POSTGRES_URL, schema },
    cleanup: () => adminQuery(`drop schema if exists ${schema} cascade`),
  };
}

export class Dataset {
  /** Providers published so far (1..published), history rows and keys in the store. */
  published = 0;
  keys = [];

  constructor(engine, place, store, workspaceId) {
    this.engine = engine;
    this.place = place;
    this.location = place.location;
    this.store = store;
    this.workspaceId = workspaceId;
  }

  /** A migrated store with one workspace (agent tools on) holding the bench keys. */
  static async create(engine) {
    const place = await freshPlace(engine);
    const store = api.openStore(place.location, { poolSize: 20 });
    await api.migrate(store);
    const ws = await api.createWorkspace(store, box, clock, 'bench');
    await api.enableMcp(store, ws.workspace_id, true);
    const dataset = new Dataset(engine, place, store, ws.workspace_id);
    for (let i = 0; i < BENCH_KEYS; i++) {
      dataset.keys.push((await api.createKey(store, clock, ws.workspace_id, 'ENTERPRISE')).key);
    }
    return dataset;
  }

  /** Registers a webhook endpoint for `risk_indicator.published` at `url`: every publication queues a delivery. */
  async subscribe(url) {
    await registerWebhook(this.store, clock, { allowLoopback: true }, this.workspaceId, {
      url: `${url}/hook`,
      events: ['risk_indicator.published'],
    });
  }

  /** Publishes providers up to `total` (one transaction each); returns the milliseconds the publications took. */
  async publishTo(total) {
    const documents = [];
    for (let n = this.published + 1; n <= total; n++) documents.push(documentFor(n));
    const took = await elapsed(async () => {
      for (const document of documents) {
        const outcome = await api.publishIndicator(this.store, clock, {
          document,
          framework,
          approvedAt: '2026-06-02T10:00:00.000Z',
        });
        if (outcome.status !== 'published') throw new Error(outcome.status);
      }
    });
    this.published = total;
    return took;
  }

  /**
   * Adds providers up to `total` as publishing stores them (provider, indicator with its package, history row,
   * change-feed entry, outbox event and delivery), 500 providers per transaction and many rows per statement:
   * the engine's results are computed here, and the path to the next band, which depends on the inputs alone
   * (the same for every bench provider), is copied from provider 1. For large data sets built in seconds; the
   * publication bench times `publishTo`.
   */
  async fillTo(total) {
    const { db } = this.store;
    const template = await db
      .selectFrom('risk_indicators')
      .select('path_to_next_band')
      .where('provider_id', '=', providerId(1))
      .executeTakeFirstOrThrow();
    const approvedAt = '2026-06-02T10:00:00.000Z';
    const took = await elapsed(async () => {
      for (let from = this.published + 1; from <= total; from += 500) {
        const ns = [];
        for (let n = from; n <= Math.min(total, from + 499); n++) ns.push(n);
        const items = ns.map((n) => ({ n, ...scoredFor(n) }));
        await db.transaction().execute(async (tx) => {
          await increment(tx, 'publication_version');
          const base = Number(
            (await tx.selectFrom('store_meta').select('value').where('key', '=', 'publication_seq').executeTakeFirst())
              ?.value ?? 0,
          );
          const now = new Date().toISOString();
          await tx
            .insertInto('providers')
            .values(
              items.map(({ indicator, n }, i) => ({
                ...example.provider,
                id: providerId(n),
                name: providerName(n),
                current_indicator_id: indicator.risk_indicator_id,
                current_seq: base + i + 1,
                created_at: now,
                updated_at: now,
                withdrawn_at: null,
              })),
            )
            .execute();
          await tx
            .insertInto('risk_indicators')
            .values(
              items.map(({ indicator, pkg, packageText }) => ({
                risk_indicator_id: indicator.risk_indicator_id,
                provider_id: indicator.provider_id,
                framework_version: indicator.framework_version,
                final_score: indicator.final_score,
                risk_band: indicator.risk_band,
                confidence: indicator.confidence,
                publishable: 1,
                scored_at: indicator.scored_at,
                score_verified_at: approvedAt,
                published_at: now,
                indicator: JSON.stringify(indicator),
                package: packageText,
                path_to_next_band: template.path_to_next_band,
                inputs_sha256: pkg.inputs_sha256,
                framework_sha256: pkg.framework.sha256,
                result_sha256: pkg.result_sha256,
              })),
            )
            .execute();
          await tx
            .insertInto('indicator_history')
            .values(
              items.map(({ indicator }, i) => ({
                seq: base + i + 1,
                provider_id: indicator.provider_id,
                risk_indicator_id: indicator.risk_indicator_id,
                framework_version: indicator.framework_version,
                score_verified_at: approvedAt,
                published_at: now,
              })),
            )
            .execute();
          await tx
            .insertInto('changelog')
            .values(
              items.map(({ indicator, n }) => ({
                provider_id: indicator.provider_id,
                provider_name: providerName(n),
                change_type: 'NEW',
                previous_score: null,
                new_score: indicator.final_score,
                previous_band: null,
                new_band: indicator.risk_band,
                framework_version: indicator.framework_version,
                risk_indicator_id: indicator.risk_indicator_id,
                changed_at: now,
              })),
            )
            .execute();
          // The outbox as emitEvent writes it: one event per publication, one delivery per subscribed endpoint.
          const endpoints = await subscribedEndpoints(tx, 'risk_indicator.published');
          const events = items.map(({ indicator, n }) => {
            const id = newEventId();
            const data = {
              provider_id: indicator.provider_id,
              provider_name: providerName(n),
              risk_indicator_id: indicator.risk_indicator_id,
              final_score: indicator.final_score,
              risk_band: indicator.risk_band,
              confidence: indicator.confidence,
              framework_version: indicator.framework_version,
              scored_at: indicator.scored_at,
              score_verified_at: approvedAt,
              published_at: now,
              change_type: 'NEW',
              previous_score: null,
              previous_band: null,
            };
            const type = 'risk_indicator.published';
            return { id, type, created_at: now, body: JSON.stringify({ id, type, created_at: now, data }) };
          });
          if (endpoints.length > 0) {
            await tx.insertInto('webhook_events').values(events).execute();
            const deliveries = events.flatMap((event) =>
              endpoints.map((endpoint) => ({
                id: newDeliveryId(),
                event_id: event.id,
                endpoint_id: endpoint.id,
                event_type: event.type,
                status: 'pending',
                attempts: 0,
                next_attempt_at: now,
                lease_owner: null,
                lease_until: null,
                delivered_at: null,
                created_at: now,
                redelivery_of: null,
              })),
            );
            await tx.insertInto('webhook_deliveries').values(deliveries).execute();
          }
          await tx
            .updateTable('store_meta')
            .set({ value: String(base + items.length) })
            .where('key', '=', 'publication_seq')
            .execute();
        });
      }
    });
    this.published = total;
    return took;
  }

  /** The public scores bytes the service serves from its snapshot (after the first request: `cached: true`). */
  async publicBytes() {
    const snapshot = new PublicSnapshot(this.store, clock);
    await snapshot.get();
    snapshot.invalidate();
    return (await snapshot.get()).body.bytes;
  }

  /** Drains the outbox with one dispatcher (16 attempts in flight); returns the milliseconds and the attempts. */
  async deliver() {
    const dispatcher = new api.WebhookDispatcher({
      store: this.store,
      box,
      logger: pino({ level: 'silent' }),
      policy: { allowLoopback: true },
      schedule: [5000],
      timeoutMs: 15_000,
      pollMs: 1000,
      concurrency: 16,
    });
    let attempts = 0;
    const took = await elapsed(async () => {
      attempts = await dispatcher.drain();
    });
    await dispatcher.stop();
    return { ms: took, attempts };
  }

  /** Adds API keys (random hashes, ENTERPRISE) in workspaces of 1,000 until the store holds `total`. */
  async addKeysTo(total) {
    const { db } = this.store;
    const have = Number(
      (
        await db
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      ).n,
    );
    const now = new Date().toISOString();
    return elapsed(async () => {
      for (let from = have; from < total; from += KEYS_PER_WORKSPACE) {
        const ws = await api.createWorkspace(this.store, box, clock, `bench keys ${from}`);
        const rows = [];
        for (let i = from; i < Math.min(total, from + KEYS_PER_WORKSPACE); i++) {
          const key = `svc_live_${randomBytes(32).toString('base64url')}`;
          rows.push({
            id: `key_${randomBytes(12).toString('hex')}`,
            workspace_id: ws.workspace_id,
            prefix: key.slice(0, 15),
            key_hash: createHash('sha256').update(key).digest('hex'),
            tier: 'ENTERPRISE',
            created_at: now,
            last_used_at: null,
            revoked_at: null,
          });
        }
        await db.transaction().execute((tx) => tx.insertInto('api_keys').values(rows).execute());
      }
    });
  }

  /**
   * Adds publications until the history holds `total` rows: each provider in turn gets a run of rows for the
   * indicator it has (content-addressed, so re-publishing the same inputs stores no new indicator), provider by
   * provider in id order so the (provider_id, seq) index grows at its end, 100,000 rows per transaction; then
   * every provider points at its newest row, as publishing would leave it.
   */
  async addHistoryTo(total) {
    const { db } = this.store;
    const providers = await db
      .selectFrom('providers')
      .select(['id', 'current_indicator_id'])
      .where('current_indicator_id', 'is not', null)
      .orderBy('id')
      .execute();
    const count = async (select) =>
      Number((await db.selectFrom('indicator_history').select(select).executeTakeFirst()).n ?? 0);
    const have = await count((eb) => eb.fn.countAll().as('n'));
    const top = await count((eb) => eb.fn.max('seq').as('n'));
    const adding = Math.max(0, total - have);
    const perProvider = Math.ceil(adding / providers.length);
    const rowAt = (i) => {
      const p = providers[Math.floor(i / perProvider)];
      const day = new Date(Date.UTC(2020, 0, 1) + (i % perProvider) * 86_400_000).toISOString();
      return {
        seq: top + i + 1,
        provider_id: p.id,
        risk_indicator_id: p.current_indicator_id,
        framework_version: framework.definition.framework_version,
        score_verified_at: day,
        published_at: day,
      };
    };
    const perTransaction = 100 * BATCH_ROWS;
    return elapsed(async () => {
      for (let from = 0; from < adding; from += perTransaction) {
        await db.transaction().execute(async (tx) => {
          for (let at = from; at < Math.min(adding, from + perTransaction); at += BATCH_ROWS) {
            const rows = [];
            for (let i = at; i < Math.min(adding, at + BATCH_ROWS); i++) rows.push(rowAt(i));
            await tx.insertInto('indicator_history').values(rows).execute();
          }
        });
      }
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable('providers')
          .set({
            current_seq: (eb) =>
              eb
                .selectFrom('indicator_history')
                .select((e) => e.fn.max('seq').as('seq'))
                .whereRef('indicator_history.provider_id', '=', 'providers.id'),
          })
          .where('current_indicator_id', 'is not', null)
          .execute();
        await tx
          .updateTable('store_meta')
          .set({ value: String(top + adding) })
          .where('key', '=', 'publication_seq')
          .execute();
      });
      // What autovacuum would do after such a load; SQLite's planner works from the schema alone.
      if (this.engine === 'postgres') await sql`analyze`.execute(db);
    });
  }

  async close() {
    await this.store.close();
    await this.place.cleanup();
  }
}

/** A receiver for webhook deliveries in its own process. */
export const startReceiver = () => startBare('receiver');

if (import.meta.url === `file://${process.argv[1]}`) {
  const [engine = 'sqlite', providers = '10000', history = '1000000', keys = '100000'] = process.argv.slice(2);
  const dataset = await Dataset.create(engine);
  const publishMs = await dataset.publishTo(Number(providers));
  const historyMs = await dataset.addHistoryTo(Number(history));
  const keysMs = await dataset.addKeysTo(Number(keys));
  await dataset.store.close();
  console.log(
    JSON.stringify({ location: dataset.location, publishMs, historyMs, keysMs, keys: dataset.keys.slice(0, 3) }),
  );
}
