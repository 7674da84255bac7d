import { describe, expect, it } from 'vitest';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import { findProvider } from '../../src/store/repositories/providers.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework, newProvider } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';

/** Ten inputs of one provider with ten different scores, all in the MEDIUM band. */
const GAPS = [30, 40, 50, 60, 70, 80, 90, 100, 110, 120];

describe.each(engines)('concurrent publication on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();

  const publish = (document: ReturnType<typeof exampleDocument>) =>
    publishIndicator(ctxOf(store, { clock }), { document, framework, approvedAt: '2026-06-02T10:00:00.000Z' });

  it('10 concurrent publications of one provider end with one current indicator, one NEW entry and a consistent history', async () => {
    const docs = GAPS.map((days) => exampleDocument('worked-example', { values: { duration_gap_days: days } }));
    const outcomes = await Promise.all(docs.map(publish));
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('published'));
    const scores = new Set(outcomes.map((o) => o.indicator.final_score));
    expect(scores.size).toBe(10);
    expect(new Set(outcomes.map((o) => o.indicator.risk_band))).toEqual(new Set(['MEDIUM']));

    const providerId = docs[0]?.provider.id ?? '';
    expect(await store.db.selectFrom('providers').select('id').execute()).toEqual([{ id: providerId }]);
    const history = await store.db
      .selectFrom('indicator_history')
      .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
      .select(['indicator_history.seq', 'indicator_history.risk_indicator_id', 'risk_indicators.final_score'])
      .orderBy('indicator_history.seq')
      .execute();
    expect(history.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(history.map((r) => r.risk_indicator_id)).size).toBe(10);
    expect(await store.db.selectFrom('risk_indicators').select('risk_indicator_id').execute()).toHaveLength(10);
    // The provider points at the last one published.
    expect(await findProvider(store.db, providerId)).toMatchObject({
      current_indicator_id: history.at(-1)?.risk_indicator_id,
      current_seq: 10,
    });

    const changes = await store.db.selectFrom('changelog').selectAll().orderBy('id').execute();
    expect(changes.filter((c) => c.change_type === 'NEW')).toHaveLength(1);
    expect(changes.map((c) => c.change_type)).toEqual(['NEW', ...Array(9).fill('SCORE_CHANGE')]);
    // Each entry starts where the one before it ended, in publication order.
    expect(changes.map((c) => c.risk_indicator_id)).toEqual(history.map((r) => r.risk_indicator_id));
    changes.forEach((c, i) => {
      expect(c.previous_score).toBe(i === 0 ? null : changes[i - 1]?.new_score);
      expect(c.new_score).toBe(history[i]?.final_score);
    });
    expect(Number(await readMeta(store.db, PUBLICATION_VERSION))).toBe(10);
    expect(Number(await readMeta(store.db, PUBLICATION_SEQ))).toBe(10);
  });

  it('10 concurrent publications of the same inputs store one indicator: one published, nine unchanged', async () => {
    const doc = exampleDocument('worked-example');
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => publish(doc)));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['published', ...Array(9).fill('unchanged')]);
    expect(await store.db.selectFrom('risk_indicators').select('provider_id').execute()).toEqual([
      { provider_id: doc.provider.id },
    ]);
    expect(await store.db.selectFrom('indicator_history').select('seq').execute()).toEqual([{ seq: 1 }]);
    expect((await store.db.selectFrom('changelog').select('change_type').execute()).map((c) => c.change_type)).toEqual([
      'NEW',
    ]);
    expect(Number(await readMeta(store.db, PUBLICATION_VERSION))).toBe(1);
    expect(Number(await readMeta(store.db, PUBLICATION_SEQ))).toBe(1);
  });

  it('10 providers published at once each get a NEW entry and distinct sequence numbers', async () => {
    const docs = Array.from({ length: 10 }, (_, i) => newProvider({ provider: { name: `Concurrent ${i}` } }));
    const outcomes = await Promise.all(docs.map(publish));
    expect(outcomes.map((o) => (o.status === 'published' ? o.change : o.status))).toEqual(Array(10).fill('NEW'));
    const history = await store.db.selectFrom('indicator_history').selectAll().orderBy('seq').execute();
    expect(history.map((h) => h.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(history.map((h) => h.provider_id)).size).toBe(10);
    // Each provider is in force at its own publication.
    const current = await store.db
      .selectFrom('providers')
      .select(['id', 'current_indicator_id', 'current_seq'])
      .orderBy('current_seq')
      .execute();
    expect(current.map((p) => [p.id, p.current_indicator_id, p.current_seq])).toEqual(
      history.map((h) => [h.provider_id, h.risk_indicator_id, h.seq]),
    );
  });
});
