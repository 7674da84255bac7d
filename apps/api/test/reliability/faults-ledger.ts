import { randomUUID } from 'node:crypto';
import { systemClock } from '../../src/clock.js';
import { createKey, createWorkspace } from '../../src/services/access/access.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { registerWebhook } from '../../src/services/webhooks/endpoints.js';
import type { Store } from '../../src/store/store.js';
import { ctxOf } from '../support/context.js';
import { example, vary } from '../support/documents.js';
import { POSTGRES_URL } from '../support/environment.js';
import { TEST_MASTER_KEY } from '../support/server.js';
import { type FreshStore, freshStore, retryOnSchemaRace } from '../support/stores.js';
import { acceptTestTerms } from '../support/terms.js';

/** The store side of the fault suites: what they set up, and what they read back to judge it. */

export const box = secretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));

/** A fresh PostgreSQL schema, migrated, read and written here directly (never through a proxy). */
export interface FaultStore {
  store: FreshStore;
  schema: string;
  /** DATABASE_URL for a child process: the server at `serverUrl` (a proxy, or PostgreSQL itself), this schema. */
  databaseUrl(serverUrl?: string): string;
}

export async function faultStore(): Promise<FaultStore> {
  const store = await retryOnSchemaRace(() => freshStore('postgres'));
  const { location } = store;
  if (location.kind !== 'postgres' || !location.schema) throw new Error('expected a PostgreSQL schema');
  const schema = location.schema;
  return {
    store,
    schema,
    databaseUrl(serverUrl = POSTGRES_URL) {
      const url = new URL(serverUrl);
      url.search = `?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      return url.toString();
    },
  };
}

/** `n` providers with approved inputs (submitted by alice, approved by bob), each publishable; returns their ids. */
export async function approvedProviders(store: Store, n: number): Promise<string[]> {
  const base = example('worked-example');
  const documents = Array.from({ length: n }, (_, i) => ({
    source: `generated-${i}.json`,
    document: vary(base, {
      provider: { id: randomUUID(), name: `Fault Lender ${String(i).padStart(4, '0')}` },
      values: { collateral_coverage_ratio: (110 + (i % 50)) / 100, operating_history_years: 2 + (i % 9) },
    }),
  }));
  const submitted = await submitInputs(ctxOf(store, { clock: systemClock, by: 'alice' }), { documents });
  const ids = submitted.map((s) => s.provider_id);
  await approveInputs(ctxOf(store, { clock: systemClock, by: 'bob' }), { providerIds: ids });
  return ids;
}

/** A workspace with a key of the tier. */
export async function keyOf(store: Store, tier: 'FREE' | 'ENTERPRISE' = 'ENTERPRISE') {
  const ws = await createWorkspace(ctxOf(store, { clock: systemClock, box }), { name: `faults ${tier}` });
  await acceptTestTerms(ctxOf(store, { clock: systemClock }), ws.workspace_id);
  const key = await createKey(ctxOf(store, { clock: systemClock }), { workspaceId: ws.workspace_id, tier });
  return { key: key.key, keyId: key.key_id, workspaceId: ws.workspace_id };
}

/** A workspace whose endpoint at `url` subscribes to every publication event. */
export async function subscriber(store: Store, url: string) {
  const ws = await createWorkspace(ctxOf(store, { clock: systemClock, box }), { name: 'faults subscriber' });
  const endpoint = await registerWebhook(
    ctxOf(store, { clock: systemClock, policy: { allowLoopback: true }, workspaceId: ws.workspace_id }),
    {
      url,
      events: ['risk_indicator.published', 'risk_indicator.band_changed'],
    },
  );
  await acceptTestTerms(ctxOf(store, { clock: systemClock }), ws.workspace_id);
  const key = await createKey(ctxOf(store, { clock: systemClock }), {
    workspaceId: ws.workspace_id,
    tier: 'ENTERPRISE',
  });
  return { workspaceId: ws.workspace_id, endpointId: endpoint.id, key: key.key };
}

/** What the store holds for one provider: its publication and the outbox entries it caused. */
export interface ProviderLedger {
  id: string;
  current: boolean;
  history: number;
  indicators: number;
  news: number;
  /** `risk_indicator.published` events naming the provider. */
  events: number;
  /** Deliveries of those events. */
  deliveries: number;
}

export const FULLY_PUBLISHED = { current: true, history: 1, indicators: 1, news: 1, events: 1, deliveries: 1 };
export const UNTOUCHED = { current: false, history: 0, indicators: 0, news: 0, events: 0, deliveries: 0 };

/** Every provider's ledger, for a store with one subscribed endpoint. */
export async function ledger(store: Store): Promise<ProviderLedger[]> {
  const { db } = store;
  const providers = await db.selectFrom('providers').select(['id', 'current_seq']).orderBy('id').execute();
  const byProvider = async (table: 'indicator_history' | 'risk_indicators') => {
    const rows = await db
      .selectFrom(table)
      .select(['provider_id', (eb) => eb.fn.countAll().as('n')])
      .groupBy('provider_id')
      .execute();
    return new Map(rows.map((r) => [r.provider_id, Number(r.n)]));
  };
  const history = await byProvider('indicator_history');
  const indicators = await byProvider('risk_indicators');
  const newRows = await db
    .selectFrom('changelog')
    .select(['provider_id', (eb) => eb.fn.countAll().as('n')])
    .where('change_type', '=', 'NEW')
    .groupBy('provider_id')
    .execute();
  const news = new Map(newRows.map((r) => [r.provider_id, Number(r.n)]));
  const events = await db
    .selectFrom('webhook_events as e')
    .leftJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select(['e.id', 'e.body', (eb) => eb.fn.count('d.id').as('n')])
    .where('e.type', '=', 'risk_indicator.published')
    .groupBy(['e.id', 'e.body'])
    .execute();
  const eventCount = new Map<string, number>();
  const deliveryCount = new Map<string, number>();
  for (const e of events) {
    const provider = (JSON.parse(e.body) as { data: { provider_id: string } }).data.provider_id;
    eventCount.set(provider, (eventCount.get(provider) ?? 0) + 1);
    deliveryCount.set(provider, (deliveryCount.get(provider) ?? 0) + Number(e.n));
  }
  return providers.map((p) => ({
    id: p.id,
    current: p.current_seq !== null,
    history: history.get(p.id) ?? 0,
    indicators: indicators.get(p.id) ?? 0,
    news: news.get(p.id) ?? 0,
    events: eventCount.get(p.id) ?? 0,
    deliveries: deliveryCount.get(p.id) ?? 0,
  }));
}

/** The providers whose ledger is neither fully published nor untouched: a half-written publication. */
export function halfWritten(rows: readonly ProviderLedger[]): ProviderLedger[] {
  const same = (row: ProviderLedger, want: Omit<ProviderLedger, 'id'>) =>
    (Object.keys(want) as (keyof typeof want)[]).every((k) => row[k] === want[k]);
  return rows.filter((row) => !same(row, FULLY_PUBLISHED) && !same(row, UNTOUCHED));
}

/** Every delivery with its event and its attempt log, oldest first. */
export async function deliveries(store: Store) {
  const rows = await store.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.event_id', 'e.type', 'd.status', 'd.attempts', 'd.lease_owner', 'd.lease_until'])
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
  const attempts = await store.db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempt', 'status_code', 'error'])
    .orderBy('attempt')
    .execute();
  return rows.map((d) => ({ ...d, log: attempts.filter((a) => a.delivery_id === d.id) }));
}

/** Events with no delivery at all: an outbox write cut in two. */
export async function eventsWithoutDeliveries(store: Store): Promise<string[]> {
  const rows = await store.db
    .selectFrom('webhook_events as e')
    .leftJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select('e.id')
    .where('d.id', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}
