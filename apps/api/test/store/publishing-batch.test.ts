import { randomBytes } from 'node:crypto';
import type { InputsDocument } from '@svc/methodology';
import SQLite from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/services/operators/audit.js';
import {
  type PreparedPublication,
  preparePublication,
  publishIndicator,
  publishPrepared,
} from '../../src/services/publishing/publishing.js';
import { PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import { RATING_ACTION_SEQ } from '../../src/store/repositories/rating-actions.js';
import { isStoreUnavailable, openStore, type Store, type StoreLocation } from '../../src/store/store.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework, newProvider } from '../support/documents.js';
import { POSTGRES_URL } from '../support/environment.js';
import { chainFaults, statementFaults, storedStatements } from '../support/statements.js';
import { adminQuery, engines, freshStore, useFreshStore } from '../support/stores.js';
import { everything, publicationOrder, storeContents } from './contents.js';

// Decision 0039: a publishing run writes a batch of providers in one transaction; each provider is still fully
// published or untouched, and what one transaction per provider would have written is what is written.

const APPROVED_AT = '2026-06-02T10:00:00.000Z';
/** Same band (MEDIUM), another score. */
const LONGER_HISTORY = { operating_history_years: 5 };
/** The tables a publication writes whose rows are the same whichever transaction wrote them (no random id, no
 * signing time). */
const STABLE_TABLES = ['providers', 'risk_indicators', 'indicator_history', 'changelog', 'rating_actions'] as const;

describe.each(engines)('publications in batches on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });
  const ctx = () => ctxOf(store, { clock });
  const prepare = (document: InputsDocument): PreparedPublication => {
    const prepared = preparePublication(ctx(), { document, framework, approvedAt: APPROVED_AT });
    if ('status' in prepared) throw new Error(`refused: ${prepared.reason}`);
    return prepared;
  };
  const counters = async () => ({
    version: await readMeta(store.db, PUBLICATION_VERSION),
    seq: await readMeta(store.db, PUBLICATION_SEQ),
    actions: await readMeta(store.db, RATING_ACTION_SEQ),
  });
  /** The store's checks: the audit chain intact, every statement signed and chained. */
  const sound = async () => {
    expect(await verifyAudit(ctx())).toMatchObject({ intact: true });
    expect(await statementFaults(store)).toEqual([]);
    expect(chainFaults(await storedStatements(store))).toEqual([]);
  };

  it('writes what one transaction per provider writes, in the order given, with one version bump for the batch', async () => {
    const docs = [newProvider(), newProvider({ values: LONGER_HISTORY }), newProvider()];
    const outcomes = await publishPrepared(ctx(), docs.map(prepare));
    expect(outcomes.map((o) => [o.status, o.indicator.provider_id])).toEqual(
      docs.map((d) => ['published', d.provider.id]),
    );
    expect(await counters()).toEqual({ version: '1', seq: '3', actions: '3' });
    expect(await publicationOrder(store)).toEqual(docs.map((d, i) => [i + 1, d.provider.id]));
    await sound();

    // The same three, one transaction each, into another store: the same rows (but for the publication version,
    // bumped once per transaction) in every table whose rows hold no random id or the machine's time.
    const other = await freshStore(engine);
    try {
      const otherCtx = ctxOf(other, { clock });
      for (const doc of docs) await publishIndicator(otherCtx, { document: doc, framework, approvedAt: APPROVED_AT });
      const { 'meta:publication_version': batchVersion, ...batchCounts } = await storeContents(store);
      const { 'meta:publication_version': aloneVersion, ...aloneCounts } = await storeContents(other);
      expect(batchCounts).toEqual(aloneCounts);
      expect([batchVersion, aloneVersion]).toEqual(['1', '3']);
      const rows = async (s: Store) => {
        const all = await everything(s);
        return STABLE_TABLES.map((table) => all[table]);
      };
      expect(await rows(store)).toEqual(await rows(other));
    } finally {
      await other.dispose();
    }
  });

  it('a batch that changes nothing writes nothing, not even a version bump; a mixed one leaves no gap in the sequences', async () => {
    const first = newProvider();
    const second = newProvider();
    await publishPrepared(ctx(), [prepare(first), prepare(second)]);
    const before = await counters();
    const again = await publishPrepared(ctx(), [prepare(first), prepare(second)]);
    expect(again.map((o) => o.status)).toEqual(['unchanged', 'unchanged']);
    expect(await counters()).toEqual(before);

    const third = newProvider();
    const mixed = await publishPrepared(ctx(), [prepare(first), prepare(third), prepare(second)]);
    expect(mixed.map((o) => o.status)).toEqual(['unchanged', 'published', 'unchanged']);
    expect(await counters()).toEqual({ version: '2', seq: '3', actions: '3' });
    await sound();
  });

  it('a publication that fails in a batch fails alone: those before it are published, it and those after are not', async () => {
    const docs = [newProvider(), newProvider(), newProvider()];
    const [a, b, c] = docs.map(prepare) as [PreparedPublication, PreparedPublication, PreparedPublication];
    // A result the store refuses to keep (its band is required), as a fault inside the transaction would be.
    const faulty: PreparedPublication = { ...b, indicator: { ...b.indicator, risk_band: null as never } };
    await expect(publishPrepared(ctx(), [a, faulty, c])).rejects.toThrow(/null|NOT NULL|constraint/i);
    const published = await store.db.selectFrom('providers').select('id').execute();
    expect(published.map((p) => p.id)).toEqual([a.indicator.provider_id]);
    expect(await counters()).toMatchObject({ seq: '1', actions: '1' });
    await sound();
    // Published again once the fault is gone: the first is unchanged, the others published.
    const outcomes = await publishPrepared(ctx(), [a, b, c]);
    expect(outcomes.map((o) => o.status)).toEqual(['unchanged', 'published', 'published']);
    await sound();
  });

  it('refuses a batch naming a provider twice, before writing anything', async () => {
    const doc = newProvider();
    await expect(publishPrepared(ctx(), [prepare(doc), prepare({ ...doc })])).rejects.toThrow(/twice/);
    expect(await counters()).toEqual({ version: undefined, seq: undefined, actions: undefined });
  });

  it('a batch follows a publication made alone, and one made alone follows a batch, in one chain per provider', async () => {
    const doc = newProvider();
    await publishIndicator(ctx(), { document: doc, framework, approvedAt: APPROVED_AT });
    const moved = exampleDocument('worked-example', { values: LONGER_HISTORY, provider: { id: doc.provider.id } });
    const outcomes = await publishPrepared(ctx(), [prepare(newProvider()), prepare(moved)]);
    expect(outcomes.map((o) => (o.status === 'published' ? o.change : o.status))).toEqual(['NEW', 'SCORE_CHANGE']);
    const back = await publishIndicator(ctx(), { document: doc, framework, approvedAt: APPROVED_AT });
    expect(back).toMatchObject({ status: 'published', change: 'SCORE_CHANGE' });
    expect(await counters()).toEqual({ version: '3', seq: '4', actions: '4' });
    await sound();
  });
});

describe.each(engines)('a batch the store cannot take, on %s', (engine) => {
  it('is not tried again one provider at a time: the outage is the caller’s at once, and nothing is written', async () => {
    const fresh = await freshStore(engine);
    const clock = manualClock('2026-07-01T09:00:00.000Z');
    const prepare = (document: InputsDocument): PreparedPublication => {
      const prepared = preparePublication(ctxOf(fresh, { clock }), { document, framework, approvedAt: APPROVED_AT });
      if ('status' in prepared) throw new Error(`refused: ${prepared.reason}`);
      return prepared;
    };
    // One publication first: the statements are backfilled, so the batch's transaction is the first one it begins.
    await publishIndicator(ctxOf(fresh, { clock }), { document: newProvider(), framework, approvedAt: APPROVED_AT });
    // The store unable to write, for real: SQLite's file locked by another connection (SQLITE_BUSY once the busy
    // timeout is out); PostgreSQL's role set to read-only transactions (25006).
    const away = await storeUnableToWrite(engine, fresh.location);
    // Each transaction begun, counted at the query builder (the real one, watched).
    let transactions = 0;
    const db = new Proxy(away.store.db, {
      get(target, property) {
        if (property === 'transaction') {
          return () => {
            transactions += 1;
            return target.transaction();
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      const watched: Store = { ...away.store, db };
      const batch = [newProvider(), newProvider()].map(prepare);
      const failure = await publishPrepared(ctxOf(watched, { clock }), batch).catch((error: unknown) => error);
      expect(isStoreUnavailable(failure)).toBe(true);
      // The batch's transaction tried, not one more per provider.
      expect(transactions).toBe(1);
    } finally {
      await away.restore();
    }
    const providers = await fresh.db.selectFrom('providers').select('id').execute();
    expect(providers).toHaveLength(1);
    expect(await verifyAudit(ctxOf(fresh, { clock }))).toMatchObject({ intact: true });
    await fresh.dispose();
  });
});

/** A second handle on the store, with a short timeout, that cannot write until `restore`. */
async function storeUnableToWrite(
  engine: 'sqlite' | 'postgres',
  location: StoreLocation,
): Promise<{ store: Store; restore(): Promise<void> }> {
  if (location.kind === 'sqlite') {
    const holder = new SQLite(location.file);
    holder.exec('begin immediate');
    const store = openStore(location, { timeoutMs: 200 });
    return {
      store,
      restore: async () => {
        await store.close();
        holder.exec('rollback');
        holder.close();
      },
    };
  }
  if (engine !== 'postgres' || !location.schema) throw new Error('a PostgreSQL test store has its own schema');
  const role = `svc_ro_${randomBytes(6).toString('hex')}`;
  const { schema } = location;
  await adminQuery(`create role ${role} login`);
  await adminQuery(
    `grant usage on schema ${schema} to ${role}; grant select, insert, update, delete on all tables in schema ${schema} to ${role}; alter role ${role} set default_transaction_read_only = on`,
  );
  const url = new URL(POSTGRES_URL);
  url.username = role;
  url.password = '';
  const store = openStore({ kind: 'postgres', url: url.toString(), schema }, { timeoutMs: 1000 });
  return {
    store,
    restore: async () => {
      await store.close();
      await adminQuery(`drop owned by ${role}; drop role ${role}`);
    },
  };
}
