import { buildPackage, type InputsDocument, readJson, serializePackage, verifyPackage } from '@svc/methodology';
import { beforeEach, describe, expect, it } from 'vitest';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { listChanges } from '../../src/store/repositories/changelog.js';
import { PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import {
  findCurrent,
  findIndicator,
  findProvider,
  latestScoredAt,
  listHistory,
  listPublicHeadlines,
} from '../../src/store/repositories/providers.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf, TEST_SIGNER } from '../support/context.js';
import { exampleDocument, framework, newProvider } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

const APPROVED_AT = '2026-06-02T10:00:00.000Z';
/** Same band (MEDIUM), another score: 78.84 instead of 78.46. */
const LONGER_HISTORY = { operating_history_years: 5 };
/** Another band: LOW. */
const MORE_COLLATERAL = { collateral_coverage_ratio: 1.5 };

describe.each(engines)('publishing on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });

  const publish = (document: InputsDocument, approvedAt = APPROVED_AT) =>
    publishIndicator(ctxOf(store, { clock }), { document, framework, approvedAt });

  it('a first publication stores the indicator, points the provider at it and writes one NEW entry', async () => {
    const doc = exampleDocument('worked-example');
    const outcome = await publish(doc);
    expect(outcome).toMatchObject({ status: 'published', change: 'NEW', previousBand: null });
    const { indicator } = outcome;
    expect(indicator.final_score).toBe(78.46);
    expect(indicator.risk_band).toBe('MEDIUM');

    expect(await findProvider(store.db, doc.provider.id)).toEqual({
      id: doc.provider.id,
      name: 'Example Sats Lending',
      planner_type: 'btc',
      provider_subtype: 'lender',
      yield_min: 2.5,
      yield_max: 7.25,
      current_indicator_id: indicator.risk_indicator_id,
      current_seq: 1,
      created_at: '2026-07-01T09:00:00.000Z',
      updated_at: '2026-07-01T09:00:00.000Z',
      withdrawn_at: null,
      outlook: 'STABLE',
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
    });
    const row = await findIndicator(store.db, indicator.risk_indicator_id);
    expect(row).toMatchObject({
      provider_id: doc.provider.id,
      framework_version: indicator.framework_version,
      final_score: 78.46,
      risk_band: 'MEDIUM',
      confidence: indicator.confidence,
      publishable: 1,
      scored_at: '2026-06-30T00:00:00Z',
      score_verified_at: APPROVED_AT,
      published_at: '2026-07-01T09:00:00.000Z',
    });
    expect(JSON.parse(row?.indicator ?? 'null')).toEqual(JSON.parse(JSON.stringify(indicator)));
    expect(await store.db.selectFrom('indicator_history').selectAll().execute()).toEqual([
      {
        seq: 1,
        provider_id: doc.provider.id,
        risk_indicator_id: indicator.risk_indicator_id,
        framework_version: 'DCRF v1.0',
        score_verified_at: APPROVED_AT,
        published_at: '2026-07-01T09:00:00.000Z',
      },
    ]);
    expect(await listChanges(store.db, { limit: 10 })).toEqual([
      {
        id: expect.any(Number),
        provider_id: doc.provider.id,
        provider_name: 'Example Sats Lending',
        change_type: 'NEW',
        previous_score: null,
        new_score: 78.46,
        previous_band: null,
        new_band: 'MEDIUM',
        framework_version: indicator.framework_version,
        risk_indicator_id: indicator.risk_indicator_id,
        changed_at: '2026-07-01T09:00:00.000Z',
        // The entry names the publication's rating action.
        rating_action_id: outcome.status === 'published' ? outcome.ratingAction?.id : undefined,
      },
    ]);
    expect(Number(await readMeta(store.db, PUBLICATION_VERSION))).toBe(1);
    expect(Number(await readMeta(store.db, PUBLICATION_SEQ))).toBe(1);
  });

  it('the stored package is the canonical computation package and verifies', async () => {
    clock.set(AFTER_EXAMPLES);
    const doc = exampleDocument('multiple-caps');
    const { indicator } = await publish(doc);
    const row = await findIndicator(store.db, indicator.risk_indicator_id);
    const text = row?.package ?? '';
    const pkg = buildPackage(doc, framework);
    expect(text).toBe(serializePackage(pkg));
    expect(row?.inputs_sha256).toBe(pkg.inputs_sha256);
    expect(row?.framework_sha256).toBe(pkg.framework.sha256);
    expect(row?.result_sha256).toBe(pkg.result_sha256);
    expect(verifyPackage(readJson(text), text)).toMatchObject({
      status: 'reproduced',
      risk_indicator_id: indicator.risk_indicator_id,
      canonical_bytes: true,
    });
  });

  it('a new score in the same band writes a SCORE_CHANGE entry and becomes current', async () => {
    const first = await publish(exampleDocument('worked-example'));
    clock.advance(60_000);
    const doc = exampleDocument('worked-example', { values: LONGER_HISTORY });
    const second = await publish(doc);
    expect(second).toMatchObject({ status: 'published', change: 'SCORE_CHANGE', previousBand: 'MEDIUM' });
    expect(second.indicator.final_score).toBe(78.84);
    const [latest] = await listChanges(store.db, { limit: 1 });
    expect(latest).toMatchObject({
      change_type: 'SCORE_CHANGE',
      previous_score: 78.46,
      new_score: 78.84,
      previous_band: 'MEDIUM',
      new_band: 'MEDIUM',
      risk_indicator_id: second.indicator.risk_indicator_id,
      changed_at: '2026-07-01T09:01:00.000Z',
    });
    expect((await findProvider(store.db, doc.provider.id))?.current_indicator_id).toBe(
      second.indicator.risk_indicator_id,
    );
    const history = await listHistory(store.db, doc.provider.id, { limit: 10 });
    expect(history.map((h) => JSON.parse(h.indicator).risk_indicator_id)).toEqual([
      second.indicator.risk_indicator_id,
      first.indicator.risk_indicator_id,
    ]);
    expect(history.map((h) => h.seq)).toEqual([2, 1]);
  });

  it('a new band writes a BAND_CHANGE entry', async () => {
    await publish(exampleDocument('worked-example'));
    const outcome = await publish(exampleDocument('worked-example', { values: MORE_COLLATERAL }));
    expect(outcome).toMatchObject({ status: 'published', change: 'BAND_CHANGE', previousBand: 'MEDIUM' });
    expect(outcome.indicator.risk_band).toBe('LOW');
    const changes = await listChanges(store.db, { limit: 10 });
    expect(changes.map((c) => [c.change_type, c.previous_band, c.new_band])).toEqual([
      ['BAND_CHANGE', 'MEDIUM', 'LOW'],
      ['NEW', null, 'MEDIUM'],
    ]);
  });

  it('re-publishing identical inputs is unchanged and writes nothing', async () => {
    const doc = exampleDocument('worked-example');
    await publish(doc);
    await publish(newProvider());
    const before = await storeContents(store);
    const providerBefore = await findProvider(store.db, doc.provider.id);
    clock.advance(3_600_000);
    const outcome = await publish(exampleDocument('worked-example'));
    expect(outcome.status).toBe('unchanged');
    expect(outcome.indicator.final_score).toBe(78.46);
    expect(await storeContents(store)).toEqual(before);
    expect(await findProvider(store.db, doc.provider.id)).toEqual(providerBefore);
  });

  it('a new indicator with the same score and band is published without a change-feed entry', async () => {
    const first = await publish(exampleDocument('worked-example'));
    const outcome = await publish(exampleDocument('worked-example', { source: 'Provider disclosure pack, 2026-06' }));
    expect(outcome).toMatchObject({ status: 'published', change: null });
    expect(outcome.indicator.risk_indicator_id).not.toBe(first.indicator.risk_indicator_id);
    expect(outcome.indicator.final_score).toBe(first.indicator.final_score);
    expect((await listChanges(store.db, { limit: 10 })).map((c) => c.change_type)).toEqual(['NEW']);
    expect(await listHistory(store.db, first.indicator.provider_id, { limit: 10 })).toHaveLength(2);
  });

  it('a document or an approval dated after the present is refused, naming the dates, and writes nothing', async () => {
    const current = await publish(exampleDocument('worked-example'));
    const before = await storeContents(store);
    const future = exampleDocument('worked-example', { evaluationDate: '2030-01-01', source: 'from the future' });
    const outcome = await publish(future);
    expect(outcome).toMatchObject({ status: 'refused', reason: 'dated after the present: evaluation_date' });
    const approvedLater = await publish(
      exampleDocument('worked-example', { source: 'later' }),
      '2026-07-01T09:05:01.000Z',
    );
    expect(approvedLater).toMatchObject({
      status: 'refused',
      reason: 'dated after the present: approved_at (of the submission)',
    });
    expect(await storeContents(store)).toEqual(before);
    expect((await findProvider(store.db, current.indicator.provider_id))?.current_indicator_id).toBe(
      current.indicator.risk_indicator_id,
    );
  });

  it.each(['missing-inputs', 'stale-evidence'] as const)(
    'an unpublishable document (%s) is refused and writes nothing',
    async (name) => {
      clock.set(AFTER_EXAMPLES);
      const current = await publish(exampleDocument('worked-example'));
      const before = await storeContents(store);
      // The same provider: a refusal must leave its current indicator in force.
      const doc = exampleDocument(name, { provider: { id: current.indicator.provider_id } });
      const outcome = await publish(doc);
      expect(outcome.status).toBe('refused');
      expect(outcome.indicator.publishable).toBe(false);
      expect(outcome).toHaveProperty('reason', expect.stringContaining('below the publication threshold'));
      expect(await storeContents(store)).toEqual(before);
      expect((await findProvider(store.db, doc.provider.id))?.current_indicator_id).toBe(
        current.indicator.risk_indicator_id,
      );
    },
  );

  it('a failure in the middle of the transaction leaves nothing written and surfaces the error', async () => {
    const existing = await publish(exampleDocument('worked-example'));
    // Turn the publication sequence back: the next history entry collides with seq 1, after the provider row
    // and the new indicator are written in the same transaction.
    await store.db.updateTable('store_meta').set({ value: '0' }).where('key', '=', PUBLICATION_SEQ).execute();
    const before = await storeContents(store);
    const fresh = newProvider({ provider: { name: 'Never Stored' } });
    await expect(publish(fresh)).rejects.toThrow();
    const update = exampleDocument('worked-example', { values: MORE_COLLATERAL });
    await expect(publish(update)).rejects.toThrow();
    expect(await storeContents(store)).toEqual(before);
    expect(await findProvider(store.db, fresh.provider.id)).toBeUndefined();
    expect(await store.db.selectFrom('risk_indicators').select('risk_indicator_id').execute()).toEqual([
      { risk_indicator_id: existing.indicator.risk_indicator_id },
    ]);
    expect(await findProvider(store.db, update.provider.id)).toMatchObject({
      current_indicator_id: existing.indicator.risk_indicator_id,
      current_seq: 1,
    });
    expect((await listChanges(store.db, { limit: 10 })).map((c) => c.provider_name)).toEqual(['Example Sats Lending']);
  });

  it('a withdrawn provider published again is current again with a NEW entry', async () => {
    const doc = exampleDocument('worked-example');
    await publish(doc);
    await store.db.updateTable('providers').set({ withdrawn_at: '2026-07-01T10:00:00.000Z' }).execute();
    expect(await findCurrent(store.db, doc.provider.id)).toBeUndefined();
    const outcome = await publish(doc);
    expect(outcome).toMatchObject({ status: 'published', change: 'NEW' });
    expect((await findProvider(store.db, doc.provider.id))?.withdrawn_at).toBeNull();
    expect(await findCurrent(store.db, doc.provider.id)).toBeDefined();
    // The same indicator, stored once and published twice.
    expect(await store.db.selectFrom('risk_indicators').select('risk_indicator_id').execute()).toHaveLength(1);
    expect((await listHistory(store.db, doc.provider.id, { limit: 10 })).map((h) => h.seq)).toEqual([2, 1]);
    expect((await findProvider(store.db, doc.provider.id))?.current_seq).toBe(2);
  });

  it("the newest entry of a provider's history is its current indicator, also after going back to earlier inputs", async () => {
    const a = exampleDocument('worked-example');
    const first = await publish(a);
    const second = await publish(exampleDocument('worked-example', { values: LONGER_HISTORY }));
    const back = await publish(a);
    expect(back).toMatchObject({ status: 'published', change: 'SCORE_CHANGE', previousBand: 'MEDIUM' });
    const [idA, idB] = [first.indicator.risk_indicator_id, second.indicator.risk_indicator_id];
    expect(back.indicator.risk_indicator_id).toBe(idA);
    expect(await findProvider(store.db, a.provider.id)).toMatchObject({ current_indicator_id: idA, current_seq: 3 });
    const history = await listHistory(store.db, a.provider.id, { limit: 10 });
    expect(history.map((h) => [h.seq, JSON.parse(h.indicator).risk_indicator_id])).toEqual([
      [3, idA],
      [2, idB],
      [1, idA],
    ]);
    expect(JSON.parse((await findCurrent(store.db, a.provider.id))?.indicator ?? 'null').risk_indicator_id).toBe(idA);
    // A is stored once; the change feed goes A, B, A.
    expect(await store.db.selectFrom('risk_indicators').select('risk_indicator_id').execute()).toHaveLength(2);
    const changes = await listChanges(store.db, { limit: 10 });
    expect(changes.map((c) => [c.change_type, c.risk_indicator_id, c.previous_score, c.new_score])).toEqual([
      ['SCORE_CHANGE', idA, 78.84, 78.46],
      ['SCORE_CHANGE', idB, 78.46, 78.84],
      ['NEW', idA, null, 78.46],
    ]);
    // Publishing A once more while it is in force changes nothing.
    expect((await publish(a)).status).toBe('unchanged');
  });

  it("a history entry carries its publication's times; the stored indicator keeps those of its first publication", async () => {
    const a = exampleDocument('worked-example');
    const first = await publish(a, '2026-06-02T10:00:00.000Z');
    clock.set('2026-07-02T09:00:00.000Z');
    await publish(exampleDocument('worked-example', { values: LONGER_HISTORY }), '2026-06-25T10:00:00.000Z');
    clock.set('2026-07-03T09:00:00.000Z');
    await publish(a, '2026-07-01T10:00:00.000Z');
    const id = first.indicator.risk_indicator_id;

    expect(await findIndicator(store.db, id)).toMatchObject({
      score_verified_at: '2026-06-02T10:00:00.000Z',
      published_at: '2026-07-01T09:00:00.000Z',
    });
    const history = await listHistory(store.db, a.provider.id, { limit: 10 });
    expect(history.map((h) => [h.seq, h.score_verified_at, h.published_at])).toEqual([
      [3, '2026-07-01T10:00:00.000Z', '2026-07-03T09:00:00.000Z'],
      [2, '2026-06-25T10:00:00.000Z', '2026-07-02T09:00:00.000Z'],
      [1, '2026-06-02T10:00:00.000Z', '2026-07-01T09:00:00.000Z'],
    ]);
    // The indicator in force is served with the times of the publication that put it there.
    const stored = await findIndicator(store.db, id);
    expect(await findCurrent(store.db, a.provider.id)).toEqual({
      indicator: stored?.indicator,
      path_to_next_band: stored?.path_to_next_band,
      score_verified_at: '2026-07-01T10:00:00.000Z',
      published_at: '2026-07-03T09:00:00.000Z',
      // With the signed statement of that publication (store/statements.test.ts checks it).
      statement_kid: TEST_SIGNER.kid,
      statement_signature: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/),
      statement_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      outlook: 'STABLE',
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
    });
  });

  it('round-trips a 200-character unicode name, double-precision figures and text timestamps exactly', async () => {
    const head = 'Crédit Ünïon Ørsted 🚀🇨🇭 Łódź ';
    const name = head + 'é'.repeat(200 - [...head].length);
    expect([...name].length).toBe(200);
    const doc = newProvider({ provider: { name, yield_min: 0.123456789012345, yield_max: 99.99 } });
    clock.set('2026-07-01T09:00:00.007Z');
    const { indicator } = await publish(doc, '2026-06-02T10:00:00.123Z');
    const provider = await findProvider(store.db, doc.provider.id);
    expect(provider?.name).toBe(name);
    expect(provider?.yield_min).toBe(0.123456789012345);
    expect(provider?.yield_max).toBe(99.99);
    expect(provider?.created_at).toBe('2026-07-01T09:00:00.007Z');
    const row = await findIndicator(store.db, indicator.risk_indicator_id);
    expect(row?.final_score).toBe(indicator.final_score);
    expect(row?.confidence).toBe(indicator.confidence);
    expect(row?.score_verified_at).toBe('2026-06-02T10:00:00.123Z');
    expect(row?.published_at).toBe('2026-07-01T09:00:00.007Z');
    expect(JSON.parse(row?.indicator ?? 'null').name).toBe(name);
    const [entry] = await listChanges(store.db, { limit: 1 });
    expect(entry?.provider_name).toBe(name);
    const [headline] = await listPublicHeadlines(store.db);
    expect(headline).toMatchObject({ name, final_score: indicator.final_score, yield_min: 0.123456789012345 });
  });

  it('several providers: headlines by name, the freshest evaluation, one NEW entry each', async () => {
    clock.set(AFTER_EXAMPLES);
    const docs = [
      newProvider({ provider: { name: 'Zulu Lending' } }),
      newProvider({ provider: { name: 'Alpha Yield', planner_type: 'fiat' } }, 'low-band'),
      newProvider({ provider: { name: 'Mike Credit' } }, 'multiple-caps'),
      newProvider({ provider: { name: 'Echo Sats' }, evaluationDate: '2026-07-20' }),
    ];
    for (const doc of docs) expect((await publish(doc)).status).toBe('published');
    expect(docs.map((d) => d.evaluation_date).sort()).toEqual(['2026-06-30', '2026-07-15', '2026-07-15', '2026-07-20']);
    const headlines = await listPublicHeadlines(store.db);
    expect(headlines.map((h) => [h.name, h.final_score, h.risk_band])).toEqual([
      ['Alpha Yield', 95.54, 'LOW'],
      ['Echo Sats', expect.any(Number), expect.any(String)],
      ['Mike Credit', 34.99, 'SEVERE'],
      ['Zulu Lending', 78.46, 'MEDIUM'],
    ]);
    expect(await latestScoredAt(store.db)).toBe('2026-07-20T00:00:00Z');
    const changes = await listChanges(store.db, { limit: 10 });
    expect(changes.map((c) => c.change_type)).toEqual(['NEW', 'NEW', 'NEW', 'NEW']);
    const history = await store.db.selectFrom('indicator_history').selectAll().orderBy('seq').execute();
    expect(history.map((h) => [h.seq, h.provider_id])).toEqual(docs.map((d, i) => [i + 1, d.provider.id]));
  });
});
