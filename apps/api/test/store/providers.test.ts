import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { increment, PUBLICATION_SEQ } from '../../src/store/repositories/meta.js';
import {
  findCurrent,
  findIndicator,
  findProvider,
  type IndicatorRow,
  insertHistory,
  insertIndicator,
  latestScoredAt,
  listCurrent,
  listHistory,
  listPublicHeadlines,
  type NamePosition,
  type ProviderRow,
  setCurrent,
  upsertProvider,
} from '../../src/store/repositories/providers.js';
import type { Database, IndicatorHistoryTable } from '../../src/store/schema.js';
import { engines, useFreshStore } from '../support/stores.js';

type HistoryRow = IndicatorHistoryTable;

const AT = '2026-07-01T09:00:00.000Z';

const provider = (id: string, over: Partial<ProviderRow> = {}): ProviderRow => ({
  id,
  name: `Provider ${id}`,
  planner_type: 'btc',
  provider_subtype: 'lender',
  yield_min: 2.5,
  yield_max: 7.25,
  current_indicator_id: null,
  current_seq: null,
  created_at: AT,
  updated_at: AT,
  withdrawn_at: null,
  outlook: 'STABLE',
  watch_direction: null,
  watch_since: null,
  watch_review_by: null,
  ...over,
});

let indicatorCounter = 0;

/** A stored indicator of a provider (not yet published: no history entry). */
async function indicator(db: Kysely<Database>, providerId: string, over: Partial<IndicatorRow> = {}) {
  indicatorCounter++;
  const row: IndicatorRow = {
    risk_indicator_id: `ri_${indicatorCounter.toString(16).padStart(24, '0')}`,
    provider_id: providerId,
    framework_version: 'DCRF v1.0',
    final_score: 78.46,
    risk_band: 'MEDIUM',
    confidence: 0.9525,
    publishable: 1,
    scored_at: '2026-06-30T00:00:00Z',
    score_verified_at: '2026-06-02T10:00:00Z',
    published_at: AT,
    indicator: JSON.stringify({ provider_id: providerId, n: indicatorCounter }),
    package: '{}',
    path_to_next_band: null,
    inputs_sha256: 'a'.repeat(64),
    framework_sha256: 'b'.repeat(64),
    result_sha256: 'c'.repeat(64),
    ...over,
  };
  await insertIndicator(db, row);
  return row;
}

/** A publication of a stored indicator: its history entry, with the next publication sequence number. */
async function publication(db: Kysely<Database>, row: IndicatorRow, over: Partial<HistoryRow> = {}) {
  const entry: HistoryRow = {
    seq: await increment(db, PUBLICATION_SEQ),
    provider_id: row.provider_id,
    risk_indicator_id: row.risk_indicator_id,
    framework_version: row.framework_version,
    score_verified_at: row.score_verified_at,
    published_at: row.published_at,
    ...over,
  };
  await insertHistory(db, entry);
  return entry;
}

/** A provider with a published current indicator. */
async function published(
  db: Kysely<Database>,
  id: string,
  over: Partial<ProviderRow> = {},
  ind: Partial<IndicatorRow> = {},
) {
  await upsertProvider(db, provider(id, over));
  const row = await indicator(db, id, ind);
  const entry = await publication(db, row);
  await setCurrent(db, id, row.risk_indicator_id, entry.seq, AT);
  return { ...row, seq: entry.seq };
}

/** Every page of listCurrent, following the keyset position of each last row. */
async function allPages(db: Kysely<Database>, pageSize: number, plannerType?: string) {
  const seen: { name: string; id: string }[] = [];
  let after: NamePosition | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await listCurrent(db, { plannerType, after, limit: pageSize });
    seen.push(...page.map((r) => ({ name: r.name, id: r.id })));
    const last = page.at(-1);
    if (page.length < pageSize || !last) return seen;
    after = { name: last.name, id: last.id };
  }
  throw new Error('pagination did not end');
}

describe.each(engines)('providers repository on %s', (engine) => {
  const store = useFreshStore(engine);

  it('upsert inserts, then updates the descriptive fields but keeps created_at and the current indicator', async () => {
    const ri = await published(store.db, 'p1');
    const renamed = { name: 'Renamed', planner_type: 'fiat', provider_subtype: 'fund', yield_min: 1, yield_max: 2 };
    const later = '2026-07-02T00:00:00.000Z';
    await upsertProvider(
      store.db,
      provider('p1', { ...renamed, created_at: '2030-01-01T00:00:00.000Z', updated_at: later }),
    );
    expect(await findProvider(store.db, 'p1')).toEqual(
      provider('p1', {
        ...renamed,
        current_indicator_id: ri.risk_indicator_id,
        current_seq: ri.seq,
        updated_at: later,
      }),
    );
  });

  it('an unknown provider is undefined and has no current indicator', async () => {
    expect(await findProvider(store.db, 'nope')).toBeUndefined();
    expect(await findCurrent(store.db, 'nope')).toBeUndefined();
  });

  it('indicators and history entries of an unknown provider or indicator are refused (foreign keys); ids and seq are unique', async () => {
    await expect(indicator(store.db, 'nope')).rejects.toThrow();
    const first = await published(store.db, 'p1');
    await expect(indicator(store.db, 'p1', { risk_indicator_id: first.risk_indicator_id })).rejects.toThrow();
    await expect(publication(store.db, { ...first, provider_id: 'nope' })).rejects.toThrow();
    await expect(publication(store.db, { ...first, risk_indicator_id: 'ri_unknown' })).rejects.toThrow();
    await expect(publication(store.db, first, { seq: first.seq })).rejects.toThrow();
    // A stored indicator may be published again: a second entry, a new sequence number.
    const again = await publication(store.db, first);
    expect(again.seq).toBeGreaterThan(first.seq);
  });

  it("findCurrent serves the current indicator with its publication's times; none before publication and none once withdrawn", async () => {
    await upsertProvider(store.db, provider('p1'));
    expect(await findCurrent(store.db, 'p1')).toBeUndefined();
    const ri = await indicator(store.db, 'p1');
    const entry = await publication(store.db, ri, {
      score_verified_at: '2026-06-20T10:00:00.000Z',
      published_at: '2026-07-01T10:00:00.000Z',
    });
    // Stored, even published, but not yet in force.
    expect(await findCurrent(store.db, 'p1')).toBeUndefined();
    await setCurrent(store.db, 'p1', ri.risk_indicator_id, entry.seq, '2026-07-01T10:00:00.000Z');
    expect(await findCurrent(store.db, 'p1')).toEqual({
      indicator: ri.indicator,
      path_to_next_band: null,
      score_verified_at: '2026-06-20T10:00:00.000Z',
      published_at: '2026-07-01T10:00:00.000Z',
      // Written here through the repositories, not by the publishing verb: no signed statement.
      statement_kid: null,
      statement_signature: null,
      statement_sha256: null,
      // The outlook and watch in force, from the provider's row.
      outlook: 'STABLE',
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
    });
    expect(await findIndicator(store.db, ri.risk_indicator_id)).toEqual(ri);
    expect(await findProvider(store.db, 'p1')).toMatchObject({
      current_indicator_id: ri.risk_indicator_id,
      current_seq: entry.seq,
      updated_at: '2026-07-01T10:00:00.000Z',
    });
    await store.db.updateTable('providers').set({ withdrawn_at: '2026-07-02T00:00:00.000Z' }).execute();
    expect(await findCurrent(store.db, 'p1')).toBeUndefined();
  });

  it('listCurrent pages by name then id with ties on the name: every provider once, in order', async () => {
    const names = ['Beta', 'Alpha', 'Beta', 'Beta', 'Gamma', 'Alpha', 'Beta', 'Delta', 'Beta', 'Alpha', 'Omega'];
    for (const [i, name] of names.entries()) await published(store.db, `p${String(i).padStart(2, '0')}`, { name });
    const expected = names
      .map((name, i) => ({ name, id: `p${String(i).padStart(2, '0')}` }))
      .sort((a, b) => (a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1));
    for (const pageSize of [1, 2, 3, 4, 11, 50]) {
      expect(await allPages(store.db, pageSize), `page size ${pageSize}`).toEqual(expected);
    }
  });

  it('listCurrent keyset position may name a row that no longer exists', async () => {
    for (const [i, name] of ['A', 'B', 'B', 'C'].entries()) await published(store.db, `p${i}`, { name });
    const page = await listCurrent(store.db, { after: { name: 'B', id: 'p1x' }, limit: 10 });
    expect(page.map((r) => r.id)).toEqual(['p2', 'p3']);
  });

  it('listCurrent filters by planner type and leaves out unpublished and withdrawn providers', async () => {
    await published(store.db, 'btc1', { name: 'A', planner_type: 'btc' });
    await published(store.db, 'fiat1', { name: 'B', planner_type: 'fiat' });
    await published(store.db, 'btc2', { name: 'C', planner_type: 'btc' });
    await published(store.db, 'stable1', { name: 'D', planner_type: 'stablecoin' });
    await published(store.db, 'btc3', { name: 'E', planner_type: 'btc', withdrawn_at: '2026-07-01T00:00:00.000Z' });
    await upsertProvider(store.db, provider('btc4', { name: 'F', planner_type: 'btc' }));
    expect((await allPages(store.db, 2, 'btc')).map((r) => r.id)).toEqual(['btc1', 'btc2']);
    expect((await allPages(store.db, 2, 'fiat')).map((r) => r.id)).toEqual(['fiat1']);
    expect((await allPages(store.db, 2)).map((r) => r.id)).toEqual(['btc1', 'fiat1', 'btc2', 'stable1']);
  });

  it('listPublicHeadlines gives the headline of every current indicator by name', async () => {
    await published(
      store.db,
      'p2',
      { name: 'Zeta', planner_type: 'fiat', provider_subtype: 'fund', yield_min: 0.1, yield_max: 12.345 },
      { final_score: 34.99, risk_band: 'SEVERE', scored_at: '2026-06-29T00:00:00Z' },
    );
    await published(store.db, 'p1', { name: 'Alpha' });
    await published(store.db, 'p3', { name: 'Gone', withdrawn_at: '2026-07-01T00:00:00.000Z' });
    expect(await listPublicHeadlines(store.db)).toEqual([
      {
        id: 'p1',
        name: 'Alpha',
        planner_type: 'btc',
        provider_subtype: 'lender',
        yield_min: 2.5,
        yield_max: 7.25,
        final_score: 78.46,
        risk_band: 'MEDIUM',
        scored_at: '2026-06-30T00:00:00Z',
        outlook: 'STABLE',
        watch_direction: null,
        watch_since: null,
        watch_review_by: null,
      },
      {
        id: 'p2',
        name: 'Zeta',
        planner_type: 'fiat',
        provider_subtype: 'fund',
        yield_min: 0.1,
        yield_max: 12.345,
        final_score: 34.99,
        risk_band: 'SEVERE',
        scored_at: '2026-06-29T00:00:00Z',
        outlook: 'STABLE',
        watch_direction: null,
        watch_since: null,
        watch_review_by: null,
      },
    ]);
  });

  it("listHistory gives a provider's publications newest first, paged by sequence number", async () => {
    await upsertProvider(store.db, provider('p1'));
    await upsertProvider(store.db, provider('p2'));
    const mine: HistoryRow[] = [];
    const indicators: IndicatorRow[] = [];
    for (let i = 0; i < 4; i++) {
      const ri = await indicator(store.db, 'p1', { final_score: 70 + i });
      indicators.push(ri);
      mine.push(await publication(store.db, ri, { published_at: `2026-07-0${i + 1}T09:00:00.000Z` }));
      await publication(store.db, await indicator(store.db, 'p2'));
    }
    // The first indicator published again: its stored row once, a fifth entry on top of the history.
    const first = indicators[0] as IndicatorRow;
    mine.push(await publication(store.db, first, { published_at: '2026-07-09T09:00:00.000Z' }));
    const seqs = (rows: { seq: number }[]) => rows.map((r) => r.seq);
    const newestFirst = seqs(mine).reverse();
    const page1 = await listHistory(store.db, 'p1', { limit: 2 });
    expect(seqs(page1)).toEqual(newestFirst.slice(0, 2));
    const page2 = await listHistory(store.db, 'p1', { beforeSeq: page1.at(-1)?.seq, limit: 2 });
    expect(seqs(page2)).toEqual(newestFirst.slice(2, 4));
    const page3 = await listHistory(store.db, 'p1', { beforeSeq: page2.at(-1)?.seq, limit: 2 });
    expect(seqs(page3)).toEqual(newestFirst.slice(4));
    expect(page1[0]).toEqual({
      indicator: first.indicator,
      path_to_next_band: null,
      score_verified_at: first.score_verified_at,
      published_at: '2026-07-09T09:00:00.000Z',
      seq: mine[4]?.seq,
      statement_kid: null,
      statement_signature: null,
      statement_sha256: null,
      // Written through the repositories: no rating action names its outlook and watch.
      outlook: null,
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
    });
    expect(page3[0]).toEqual({
      indicator: first.indicator,
      path_to_next_band: null,
      score_verified_at: first.score_verified_at,
      published_at: '2026-07-01T09:00:00.000Z',
      seq: mine[0]?.seq,
      statement_kid: null,
      statement_signature: null,
      statement_sha256: null,
      // Written through the repositories: no rating action names its outlook and watch.
      outlook: null,
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
    });
    expect(await listHistory(store.db, 'nope', { limit: 10 })).toEqual([]);
  });

  it('latestScoredAt is the newest evaluation among current, not withdrawn indicators; null when none', async () => {
    expect(await latestScoredAt(store.db)).toBeNull();
    await published(store.db, 'p1', {}, { scored_at: '2026-06-28T00:00:00Z' });
    await published(store.db, 'p2', {}, { scored_at: '2026-06-30T00:00:00Z' });
    await published(
      store.db,
      'p3',
      { withdrawn_at: '2026-07-01T00:00:00.000Z' },
      { scored_at: '2026-07-15T00:00:00Z' },
    );
    // Another published indicator of p1 with a later evaluation, not the one in force, does not count.
    await publication(store.db, await indicator(store.db, 'p1', { scored_at: '2026-07-20T00:00:00Z' }));
    expect(await latestScoredAt(store.db)).toBe('2026-06-30T00:00:00Z');
  });

  it('round-trips doubles, text timestamps and unicode names exactly', async () => {
    const name = `Ça Prêt Ünïcødé 🚀🇨🇭 ${'é'.repeat(50)}${'x'.repeat(120)}`.slice(0, 200);
    const doubles = { yield_min: 0.30000000000000004, yield_max: 99.99999999999999 };
    const row = await published(
      store.db,
      'p1',
      { name, ...doubles, created_at: '2026-07-01T09:00:00.123Z', updated_at: '2026-07-01T09:00:00.123Z' },
      { final_score: 78.46, confidence: 1 / 3, scored_at: '2026-06-30T00:00:00Z' },
    );
    const back = await findProvider(store.db, 'p1');
    expect(back?.name).toBe(name);
    expect(back?.yield_min).toBe(0.30000000000000004);
    expect(back?.yield_max).toBe(99.99999999999999);
    expect(back?.created_at).toBe('2026-07-01T09:00:00.123Z');
    const ri = await findIndicator(store.db, row.risk_indicator_id);
    expect(ri?.final_score).toBe(78.46);
    expect(ri?.confidence).toBe(1 / 3);
    expect(back?.current_seq).toBe(row.seq);
    expect(typeof back?.current_seq).toBe('number');
    const [entry] = await listHistory(store.db, 'p1', { limit: 1 });
    expect(typeof entry?.seq).toBe('number');
  });
});
