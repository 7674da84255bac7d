// A data set built through the store, for the HTTP and scale benches: providers published by the publishing
// verb (engine, package, history, change feed, outbox), webhook events delivered by the dispatcher, API keys,
// and publication history. The large parts are added in batches, many rows per statement, with the rows the
// verbs write built by the verbs' own row builders (`@svc/api/bench`; see docs/decisions/0023-bench-dataset.md).
//
// As a command, from apps/api after the build, to keep a store to look at or profile against:
//   tsx bench/dataset.ts sqlite|postgres [providers=10000] [history=1000000] [keys=100000]
// prints where the store is and how long each part took, and leaves it there.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { migrate, openStore, type Store, type StoreLocation, WebhookDispatcher } from '@svc/api';
import {
  changeOf,
  changeRowOf,
  deliveryRowOf,
  eventRowOf,
  historyRowOf,
  increment,
  indicatorRowOf,
  newKeyRow,
  PUBLICATION_SEQ,
  PUBLICATION_VERSION,
  PublicSnapshot,
  providerRowOf,
  publicationActionRow,
  publishedEventData,
  RATING_ACTION_SEQ,
  readMeta,
  subscribedEndpoints,
} from '@svc/api/bench';
import {
  type ComputationPackage,
  currentFramework,
  type InputsDocument,
  type RiskIndicator,
  scoreWithPackage,
  serializePackage,
  validateInputs,
} from '@svc/methodology';
import { sql } from 'kysely';
import { pino } from 'pino';
import { adminQuery, type Child, POSTGRES_URL, startBare } from './harness.js';
import { APPROVED_AT, type Bench, benchOver, key, publish, publishAll, subscribe, workspace } from './verbs.js';

const example: unknown = JSON.parse(
  readFileSync(new URL('../../../examples/dcrf-1.0/worked-example.json', import.meta.url), 'utf8'),
);
const framework = currentFramework();
const MASTER_KEY = Buffer.alloc(32, 5);
/** The keys the load uses: ENTERPRISE, 50,000 requests an hour each; requests rotate over them. */
const BENCH_KEYS = 40;
const KEYS_PER_WORKSPACE = 1000;
const BATCH_ROWS = 1000;
/** When the history rows addHistoryTo adds start: the earliest instant as_of may name. */
const HISTORY_FROM = Date.parse('2026-04-01T00:00:00.000Z');
/** A bench key has no name and no expiry. */
const NO_NAME = { name: null, expiresAt: null };

export type Engine = 'sqlite' | 'postgres';

/** Provider n (from 1): the worked example under its own id and name. */
export const providerId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const providerName = (n: number) => `Bench Provider ${n}`;

function documentFor(n: number): InputsDocument {
  const doc = structuredClone(example) as { provider: { id: string; name: string } };
  doc.provider.id = providerId(n);
  doc.provider.name = providerName(n);
  const v = validateInputs(doc, framework);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.document;
}

interface Scored {
  provider: InputsDocument['provider'];
  indicator: RiskIndicator;
  pkg: ComputationPackage;
  packageText: string;
}

/** Scored once per process and shared by both engines: what publishing stores for provider n, without the transaction. */
const scored = new Map<number, Scored>();
function scoredFor(n: number): Scored {
  let s = scored.get(n);
  if (!s) {
    const document = documentFor(n);
    const { indicator, package: pkg } = scoreWithPackage(document, framework);
    s = { provider: document.provider, indicator, pkg, packageText: serializePackage(pkg) };
    scored.set(n, s);
  }
  return s;
}

const elapsed = async (work: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await work();
  return performance.now() - t;
};

interface Place {
  location: StoreLocation;
  cleanup: () => Promise<unknown>;
}

/** A fresh SQLite file in a new folder, or a fresh PostgreSQL schema; `cleanup` removes it. */
async function freshPlace(engine: Engine): Promise<Place> {
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
  readonly keys: string[] = [];
  readonly location: StoreLocation;
  readonly store: Store;
  private readonly bench: Bench;

  private constructor(
    readonly engine: Engine,
    private readonly place: Place,
    store: Store,
    readonly workspaceId: string,
  ) {
    this.location = place.location;
    this.store = store;
    this.bench = benchOver(store, MASTER_KEY);
  }

  /** A migrated store with one workspace (agent tools on) holding the bench keys. */
  static async create(engine: Engine): Promise<Dataset> {
    const place = await freshPlace(engine);
    const store = openStore(place.location, { poolSize: 20 });
    await migrate(store);
    const ws = await workspace(benchOver(store, MASTER_KEY), 'bench', true);
    const dataset = new Dataset(engine, place, store, ws);
    for (let i = 0; i < BENCH_KEYS; i++) dataset.keys.push((await key(dataset.bench, ws, 'ENTERPRISE')).key);
    return dataset;
  }

  /**
   * Starts the timed part from a settled server: on PostgreSQL, a CHECKPOINT writes out the dirty pages earlier
   * benches left in the shared buffers, and restarts the server's `checkpoint_timeout` clock, so that neither a
   * checkpoint nor the eviction of another store's pages falls inside the measured run (in `pnpm bench`, the
   * HTTP benches' stores come first). SQLite's store is a new file: nothing to settle.
   */
  async settle(): Promise<void> {
    if (this.engine === 'postgres') await adminQuery('checkpoint');
  }

  /** Registers a webhook endpoint for `risk_indicator.published` at `url`: every publication queues a delivery. */
  async subscribe(url: string): Promise<void> {
    await subscribe(this.bench, this.workspaceId, `${url}/hook`);
  }

  /**
   * Publishes providers up to `total` as a publishing run does (a batch per transaction, decision 0039), or with
   * `alone`, one transaction each (as POST .../publish does); returns the milliseconds the publications took.
   */
  async publishTo(total: number, options: { alone?: boolean } = {}): Promise<number> {
    const documents: InputsDocument[] = [];
    for (let n = this.published + 1; n <= total; n++) documents.push(documentFor(n));
    const took = await elapsed(async () => {
      if (!options.alone) return publishAll(this.bench, documents, framework);
      for (const document of documents) await publish(this.bench, document, framework);
    });
    this.published = total;
    return took;
  }

  /**
   * Adds providers up to `total` as the publishing verb stores them (provider, indicator with its package,
   * history row, change-feed entry, outbox event and delivery), 500 providers per transaction and many rows per
   * statement, each row from the verb's own row builder: the engine's results are computed here, and the path to
   * the next band, which depends on the inputs alone (the same for every bench provider), is copied from
   * provider 1. For large data sets built in seconds; the publication bench times `publishTo`.
   */
  async fillTo(total: number): Promise<number> {
    const { db } = this.store;
    const template = await db
      .selectFrom('risk_indicators')
      .select('path_to_next_band')
      .where('provider_id', '=', providerId(1))
      .executeTakeFirstOrThrow();
    const nextBand = template.path_to_next_band;
    if (nextBand === null) throw new Error(`${providerId(1)} has no path to the next band`);
    const took = await elapsed(async () => {
      for (let from = this.published + 1; from <= total; from += 500) {
        const items: (Scored & { n: number })[] = [];
        for (let n = from; n <= Math.min(total, from + 499); n++) items.push({ n, ...scoredFor(n) });
        await db.transaction().execute(async (tx) => {
          await increment(tx, PUBLICATION_VERSION);
          const base = Number((await readMeta(tx, PUBLICATION_SEQ)) ?? 0);
          const actionBase = Number((await readMeta(tx, RATING_ACTION_SEQ)) ?? 0);
          const now = this.bench.clock.now().toISOString();
          const facts = items.map(({ indicator, n }) => ({
            indicator,
            providerName: providerName(n),
            approvedAt: APPROVED_AT,
            now,
            change: changeOf(undefined, indicator),
            previous: undefined,
          }));
          await tx
            .insertInto('providers')
            .values(
              items.map(({ provider, indicator }, i) => ({
                ...providerRowOf(provider, now),
                current_indicator_id: indicator.risk_indicator_id,
                current_seq: base + i + 1,
              })),
            )
            .execute();
          await tx
            .insertInto('risk_indicators')
            .values(
              items.map(({ indicator, pkg, packageText }) =>
                indicatorRowOf({
                  indicator,
                  pkg,
                  packageText,
                  nextBand,
                  approvedAt: APPROVED_AT,
                  now,
                }),
              ),
            )
            .execute();
          await tx
            .insertInto('indicator_history')
            .values(items.map(({ indicator }, i) => historyRowOf(base + i + 1, indicator, APPROVED_AT, now)))
            .execute();
          // Each a NEW rating action (a first publication, inputs approved by nobody recorded), the feed naming it.
          const actions = facts.map((f, i) =>
            publicationActionRow(
              {
                provider: undefined,
                providerName: f.providerName,
                publicationSeq: base + i + 1,
                indicator: f.indicator,
                previous: undefined,
                now,
              },
              actionBase + i + 1,
              undefined,
            ),
          );
          await tx.insertInto('rating_actions').values(actions).execute();
          await tx
            .insertInto('changelog')
            .values(
              facts.map((f, i) => ({
                ...changeRowOf(f.providerName, f.change ?? 'NEW', f.previous, f.indicator, now),
                rating_action_id: actions[i]?.id ?? null,
              })),
            )
            .execute();
          // The outbox as the verb leaves it: one event per publication, one delivery per subscribed endpoint.
          const endpoints = await subscribedEndpoints(tx, 'risk_indicator.published');
          if (endpoints.length > 0) {
            const events = facts.map((f) => eventRowOf('risk_indicator.published', publishedEventData(f), now));
            await tx.insertInto('webhook_events').values(events).execute();
            const deliveries = events.flatMap((event) =>
              endpoints.map((endpoint) => deliveryRowOf(event, endpoint.id)),
            );
            await tx.insertInto('webhook_deliveries').values(deliveries).execute();
          }
          await setPublicationSeq(tx, base + items.length);
          await setMeta(tx, RATING_ACTION_SEQ, String(actionBase + items.length));
        });
      }
    });
    this.published = total;
    return took;
  }

  /** The public scores bytes the service serves from its snapshot (after the first request: `cached: true`). */
  async publicBytes(): Promise<Buffer> {
    const snapshot = new PublicSnapshot(this.store, this.bench.clock);
    await snapshot.get();
    snapshot.invalidate();
    return (await snapshot.get()).body.bytes;
  }

  /** Drains the outbox with one dispatcher (16 attempts in flight); returns the milliseconds and the attempts. */
  async deliver(): Promise<{ ms: number; attempts: number }> {
    const dispatcher = new WebhookDispatcher({
      store: this.store,
      box: this.bench.box,
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

  /** Adds API keys (ENTERPRISE, rows as the key verb makes them) in workspaces of 1,000 until the store holds `total`. */
  async addKeysTo(total: number): Promise<number> {
    const { db } = this.store;
    const counted = await db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const have = Number(counted.n);
    const now = this.bench.clock.now().toISOString();
    return elapsed(async () => {
      for (let from = have; from < total; from += KEYS_PER_WORKSPACE) {
        const ws = await workspace(this.bench, `bench keys ${from}`);
        const count = Math.min(total, from + KEYS_PER_WORKSPACE) - from;
        const rows = Array.from({ length: count }, () => newKeyRow(ws, 'ENTERPRISE', now, NO_NAME).row);
        await db.transaction().execute((tx) => tx.insertInto('api_keys').values(rows).execute());
      }
    });
  }

  /**
   * Adds publications until the history holds `total` rows: each provider in turn gets a run of rows for the
   * indicator it has (content-addressed, so re-publishing the same inputs stores no new indicator), an hour apart
   * from 2026-04-01 (so an `as_of` in those days finds a row in the middle of each provider's run), provider by
   * provider in id order so the (provider_id, seq) index grows at its end, 100,000 rows per transaction; then
   * every provider points at its newest row, as publishing would leave it.
   */
  async addHistoryTo(total: number): Promise<number> {
    const { db } = this.store;
    const providers = await db
      .selectFrom('providers')
      .select(['id', 'current_indicator_id'])
      .where('current_indicator_id', 'is not', null)
      .orderBy('id')
      .execute();
    const counts = await db
      .selectFrom('indicator_history')
      .select((eb) => [eb.fn.countAll().as('have'), eb.fn.max('seq').as('top')])
      .executeTakeFirstOrThrow();
    const have = Number(counts.have);
    const top = Number(counts.top ?? 0);
    const adding = Math.max(0, total - have);
    const perProvider = Math.ceil(adding / providers.length);
    const frameworkVersion = framework.definition.framework_version;
    const rowAt = (i: number) => {
      const p = providers[Math.floor(i / perProvider)];
      if (!p?.current_indicator_id) throw new Error(`no provider for history row ${i}`);
      // An hour apart from the start of the record (2026-04-01), so a past instant (as_of) falls inside each run.
      const day = new Date(HISTORY_FROM + (i % perProvider) * 3_600_000).toISOString();
      const indicator = {
        provider_id: p.id,
        risk_indicator_id: p.current_indicator_id,
        framework_version: frameworkVersion,
      };
      return historyRowOf(top + i + 1, indicator, day, day);
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
        await setPublicationSeq(tx, top + adding);
      });
      // What autovacuum would do after such a load, on this store's tables only (a bare `analyze` would also take
      // another store's empty tables as they are: decision 0042). SQLite's planner works from the schema alone.
      if (this.engine === 'postgres') {
        const { rows } = await sql<{ name: string }>`
          select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
        if (rows.length > 0) await sql`analyze ${sql.join(rows.map((r) => sql.table(r.name)))}`.execute(db);
      }
    });
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.place.cleanup();
  }
}

/**
 * Sets the publication sequence after a batch: the verb adds one per publication (`increment`); a batch of
 * thousands sets the total once.
 */
async function setPublicationSeq(tx: Store['db'], value: number): Promise<void> {
  await setMeta(tx, PUBLICATION_SEQ, String(value));
}

/** Sets a store_meta value, inserting its key when new (the first batch of a store with nothing published). */
async function setMeta(tx: Store['db'], key: string, value: string): Promise<void> {
  await tx
    .insertInto('store_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** A receiver for webhook deliveries in its own process. */
export const startReceiver = (): Promise<Child> => startBare('receiver');

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [engine = 'sqlite', providers = '10000', history = '1000000', keys = '100000'] = process.argv.slice(2);
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
  const dataset = await Dataset.create(engine);
  const publishMs = await dataset.publishTo(Number(providers));
  const historyMs = await dataset.addHistoryTo(Number(history));
  const keysMs = await dataset.addKeysTo(Number(keys));
  await dataset.store.close();
  console.log(
    JSON.stringify({ location: dataset.location, publishMs, historyMs, keysMs, keys: dataset.keys.slice(0, 3) }),
  );
}
