import { beforeEach, describe, expect, it } from 'vitest';
import { listRequests, setRequestStatus } from '../../src/services/coverage-requests/coverage-requests.js';
import { ServiceError } from '../../src/services/errors.js';
import {
  addIssuance,
  type IssuanceFields,
  listIssuanceRecords,
  updateIssuance,
} from '../../src/services/issuances/issuances.js';
import { listProviders, withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { listChanges } from '../../src/store/repositories/changelog.js';
import { PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import { findCurrent, findProvider, listPublicHeadlines } from '../../src/store/repositories/providers.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework, ISSUANCE, UNKNOWN_PROVIDER_ID } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

describe.each(engines)('admin services on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });

  const publishWorked = () =>
    publishIndicator(ctxOf(store, { clock }), {
      document: exampleDocument('worked-example'),
      framework,
      approvedAt: '2026-06-02T10:00:00.000Z',
    });

  const refused = async (work: Promise<unknown>, code: ServiceError['code'], message: RegExp) => {
    const error = await work.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe(code);
    expect((error as ServiceError).message).toMatch(message);
    return error as ServiceError;
  };

  describe('providers', () => {
    it('withdraw: one transaction marks it withdrawn, writes WITHDRAWN and bumps the publication version', async () => {
      const published = await publishWorked();
      const id = exampleDocument('worked-example').provider.id;
      expect(await listProviders(ctxOf(store))).toEqual([
        {
          id,
          name: 'Example Sats Lending',
          planner_type: 'btc',
          final_score: 78.46,
          risk_band: 'MEDIUM',
          withdrawn: false,
          withdrawn_at: null,
        },
      ]);
      const version = Number(await readMeta(store.db, PUBLICATION_VERSION));
      clock.set('2026-07-02T09:00:00.000Z');
      const withdrawal = await withdrawProvider(ctxOf(store, { clock }), { providerId: id, reason: 'ceased lending' });
      expect(withdrawal).toEqual({
        provider_id: id,
        provider_name: 'Example Sats Lending',
        withdrawn_at: '2026-07-02T09:00:00.000Z',
        previous_score: 78.46,
        previous_band: 'MEDIUM',
        framework_version: published.indicator.framework_version,
        reason: 'ceased lending',
      });
      expect(Number(await readMeta(store.db, PUBLICATION_VERSION))).toBe(version + 1);
      const [entry] = await listChanges(store.db, { limit: 1 });
      expect(entry).toMatchObject({
        provider_id: id,
        change_type: 'WITHDRAWN',
        previous_score: 78.46,
        previous_band: 'MEDIUM',
        new_score: null,
        new_band: null,
        risk_indicator_id: null,
        framework_version: published.indicator.framework_version,
        changed_at: '2026-07-02T09:00:00.000Z',
      });
      expect(await findCurrent(store.db, id)).toBeUndefined();
      expect(await listPublicHeadlines(store.db)).toEqual([]);
      expect((await listProviders(ctxOf(store)))[0]).toMatchObject({
        final_score: null,
        risk_band: null,
        withdrawn: true,
        withdrawn_at: '2026-07-02T09:00:00.000Z',
      });

      // Twice is refused and changes nothing; so is an unknown provider.
      const before = await storeContents(store);
      await refused(withdrawProvider(ctxOf(store, { clock }), { providerId: id }), 'refused', /already withdrawn/);
      await refused(
        withdrawProvider(ctxOf(store, { clock }), { providerId: UNKNOWN_PROVIDER_ID }),
        'not_found',
        /^no provider /,
      );
      expect(await storeContents(store)).toEqual(before);

      // Publishing again reinstates it with a NEW entry.
      clock.set('2026-07-03T09:00:00.000Z');
      expect(await publishWorked()).toMatchObject({ status: 'published', change: 'NEW' });
      expect((await findProvider(store.db, id))?.withdrawn_at).toBeNull();
      expect(await findCurrent(store.db, id)).toBeDefined();
      const changes = await listChanges(store.db, { limit: 10 });
      expect(changes.map((c) => c.change_type)).toEqual(['NEW', 'WITHDRAWN', 'NEW']);
    });
  });

  describe('issuances', () => {
    it('add stores exact decimal text and an iss_ id; update changes only the given fields', async () => {
      const added = await addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, coupon_rate_pct: '8', ticker: 'ESL.PA' });
      expect(added).toEqual({
        id: expect.stringMatching(/^iss_[0-9a-f]{24}$/),
        ...ISSUANCE,
        // The record as HTTP serves it (a number); the store keeps the exact text it was given.
        target_amount: 25000000.5,
        provider_id: null,
        ticker: 'ESL.PA',
        coupon_rate_pct: 8,
        coupon_frequency: null,
        expected_pricing_date: null,
        announced_at: '2026-07-01T09:00:00.000Z',
        updated_at: '2026-07-01T09:00:00.000Z',
      });
      clock.set('2026-07-05T09:00:00.000Z');
      const updated = await updateIssuance(ctxOf(store, { clock }), {
        id: added.id,
        changes: {
          status: 'PRICING',
          expected_pricing_date: '2026-09-30',
          coupon_frequency: 'quarterly',
        },
      });
      expect(updated).toEqual({
        ...added,
        status: 'PRICING',
        expected_pricing_date: '2026-09-30',
        coupon_frequency: 'quarterly',
        updated_at: '2026-07-05T09:00:00.000Z',
      });
      const bond = await addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, type: 'bond', target_amount: '1000' });
      expect((await listIssuanceRecords(ctxOf(store), {})).map((i) => i.id)).toEqual([bond.id, added.id]);
      expect(await listIssuanceRecords(ctxOf(store), { type: 'bond' })).toEqual([bond]);
      expect(await listIssuanceRecords(ctxOf(store), { status: 'PRICING' })).toEqual([updated]);
    });

    it('links a known provider; refuses bad data and unknown ids, writing nothing', async () => {
      await publishWorked();
      const providerId = exampleDocument('worked-example').provider.id;
      const linked = await addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, provider_id: providerId });
      expect(linked.provider_id).toBe(providerId);
      const before = await storeContents(store);
      const bad: [Partial<IssuanceFields>, RegExp][] = [
        [{ type: 'warrant' }, /type must be one of preferred_share, bond/],
        [{ status: 'CLOSED' }, /status must be one of ANNOUNCED, PRICING/],
        [{ target_amount: '-5' }, /positive decimal/],
        [{ target_amount: 'lots' }, /positive decimal/],
        [{ target_amount: '0' }, /greater than zero/],
        [{ currency: 'usd' }, /ISO 4217/],
        [{ expected_pricing_date: '2026-02-30' }, /calendar date/],
        [{ coupon_rate_pct: '120' }, /coupon rate/],
        [{ coupon_frequency: 'weekly' }, /coupon frequency/],
        [{ issuer_name: '  ' }, /issuer name/],
      ];
      for (const [change, message] of bad) {
        const error = await refused(
          addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, ...change }),
          'invalid_value',
          /issuance/,
        );
        expect(error.problems.map((p) => p.message).join('\n')).toMatch(message);
        await refused(
          updateIssuance(ctxOf(store, { clock }), { id: linked.id, changes: change }),
          'invalid_value',
          /issuance/,
        );
      }
      await refused(
        addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, provider_id: UNKNOWN_PROVIDER_ID }),
        'not_found',
        /no provider/,
      );
      await refused(
        updateIssuance(ctxOf(store, { clock }), { id: 'iss_000000000000000000000000', changes: { status: 'PRICING' } }),
        'not_found',
        /no issuance/,
      );
      await refused(
        updateIssuance(ctxOf(store, { clock }), { id: linked.id, changes: {} }),
        'invalid_value',
        /at least one field/,
      );
      await refused(listIssuanceRecords(ctxOf(store), { status: 'OPEN' }), 'invalid_value', /status must be/);
      await refused(listIssuanceRecords(ctxOf(store), { type: 'warrant' }), 'invalid_value', /type must be/);
      expect(await storeContents(store)).toEqual(before);
    });
  });

  describe('coverage requests', () => {
    const request = (id: string, receivedAt: string) =>
      store.db
        .insertInto('coverage_requests')
        .values({
          id,
          provider_name: `Provider ${id}`,
          website: null,
          contact_email: null,
          planner_type: null,
          message: null,
          fingerprint: id,
          status: 'RECEIVED',
          received_at: receivedAt,
          resolved_at: null,
          resolution: null,
        })
        .execute();

    it('lists newest first, by status; moves RECEIVED to IN_REVIEW, then to a final status with a note, once', async () => {
      await request('cr_a', '2026-06-01T00:00:00.000Z');
      await request('cr_b', '2026-06-02T00:00:00.000Z');
      expect((await listRequests(ctxOf(store), {})).map((r) => r.id)).toEqual(['cr_b', 'cr_a']);
      const reviewing = await setRequestStatus(ctxOf(store, { clock }), {
        requestId: 'cr_a',
        status: 'in_review',
        note: ' looking at it ',
      });
      expect(reviewing).toMatchObject({ status: 'IN_REVIEW', resolution: 'looking at it', resolved_at: null });
      clock.advance(1000);
      // The note stays when none is given.
      const covered = await setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_a', status: 'COVERED' });
      expect(covered).toMatchObject({
        id: 'cr_a',
        status: 'COVERED',
        resolution: 'looking at it',
        resolved_at: '2026-07-01T09:00:01.000Z',
      });
      expect(await listRequests(ctxOf(store), { status: 'COVERED' })).toEqual([covered]);
      expect((await listRequests(ctxOf(store), { status: 'RECEIVED' })).map((r) => r.id)).toEqual(['cr_b']);

      const before = await storeContents(store);
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_a', status: 'DECLINED', note: 'x' }),
        'refused',
        /already COVERED/,
      );
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_nope', status: 'IN_REVIEW' }),
        'not_found',
        /no coverage request cr_nope/,
      );
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_b', status: 'DECLINED' }),
        'invalid_value',
        /needs a note/,
      );
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_b', status: 'IN_REVIEW', note: '  ' }),
        'invalid_value',
        /note/,
      );
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_b', status: 'RECEIVED' }),
        'invalid_value',
        /IN_REVIEW, COVERED, DECLINED/,
      );
      await refused(
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_b', status: 'RESOLVED', note: 'x' }),
        'invalid_value',
        /must be one of/,
      );
      await refused(
        listRequests(ctxOf(store), { status: 'OPEN' }),
        'invalid_value',
        /status must be one of RECEIVED, IN_REVIEW, COVERED, DECLINED/,
      );
      expect(await storeContents(store)).toEqual(before);
    });
  });
});
