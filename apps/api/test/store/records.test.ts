import { beforeEach, describe, expect, it } from 'vitest';
import {
  type ApprovedInputsRow,
  insertApprovedInputs,
  latestApproved,
} from '../../src/store/repositories/approved-inputs.js';
import { insertChange, listChanges } from '../../src/store/repositories/changelog.js';
import {
  type CoverageRequestRow,
  findByFingerprint,
  insertCoverageRequest,
  listCoverageRequests,
  updateCoverageRequest,
} from '../../src/store/repositories/coverage-requests.js';
import {
  type AnnouncedPosition,
  findIssuance,
  type IssuanceRow,
  listIssuances,
  upsertIssuance,
} from '../../src/store/repositories/issuances.js';
import { increment, readMeta } from '../../src/store/repositories/meta.js';
import { upsertProvider } from '../../src/store/repositories/providers.js';
import { engines, useFreshStore } from '../support/stores.js';

const change = (n: number, changed_at: string, provider_id = 'p1') => ({
  provider_id,
  provider_name: `Provider ${provider_id}`,
  change_type: n === 1 ? 'NEW' : 'SCORE_CHANGE',
  previous_score: n === 1 ? null : 70 + n - 1,
  new_score: 70 + n,
  previous_band: n === 1 ? null : 'MEDIUM',
  new_band: 'MEDIUM',
  framework_version: 'DCRF v1.0',
  risk_indicator_id: `ri_${String(n).padStart(24, '0')}`,
  changed_at,
  rating_action_id: null,
});

const issuance = (id: string, over: Partial<IssuanceRow> = {}): IssuanceRow => ({
  id,
  issuer_name: 'Example Issuer AG',
  provider_id: null,
  instrument_name: `Note ${id}`,
  ticker: null,
  type: 'BOND',
  status: 'ANNOUNCED',
  currency: 'EUR',
  target_amount: '25000000.00',
  coupon_rate_pct: null,
  coupon_frequency: null,
  expected_pricing_date: null,
  announced_at: '2026-07-01T09:00:00.000Z',
  updated_at: '2026-07-01T09:00:00.000Z',
  ...over,
});

const request = (id: string, over: Partial<CoverageRequestRow> = {}): CoverageRequestRow => ({
  id,
  provider_name: 'Some Lender',
  website: 'https://lender.example',
  contact_email: null,
  planner_type: null,
  message: null,
  fingerprint: `fp_${id}`,
  status: 'RECEIVED',
  received_at: '2026-07-01T09:00:00.000Z',
  resolved_at: null,
  resolution: null,
  ...over,
});

describe.each(engines)('change feed, issuances, coverage requests, approved inputs and meta on %s', (engine) => {
  const store = useFreshStore(engine);

  describe('changelog', () => {
    const times = [
      '2026-07-01T09:00:00.000Z',
      '2026-07-01T10:00:00.000Z',
      '2026-07-01T10:00:00.000Z',
      '2026-07-02T08:00:00.000Z',
      '2026-07-03T08:00:00.000Z',
    ];
    beforeEach(async () => {
      for (const [i, at] of times.entries()) await insertChange(store.db, change(i + 1, at));
    });

    it('lists newest first with generated ids, and every field reads back', async () => {
      const all = await listChanges(store.db, { limit: 10 });
      expect(all.map((c) => c.new_score)).toEqual([75, 74, 73, 72, 71]);
      const ids = all.map((c) => c.id);
      expect(ids.every((id) => typeof id === 'number')).toBe(true);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      expect(all.at(-1)).toEqual({ id: all.at(-1)?.id, ...change(1, times[0] as string) });
    });

    it('since keeps changes at or after the time', async () => {
      const since = await listChanges(store.db, { since: '2026-07-01T10:00:00.000Z', limit: 10 });
      expect(since.map((c) => c.new_score)).toEqual([75, 74, 73, 72]);
      expect(await listChanges(store.db, { since: '2026-08-01T00:00:00.000Z', limit: 10 })).toEqual([]);
    });

    it('pages before an id without skipping or repeating, also under a since filter', async () => {
      const seen: number[] = [];
      let beforeId: number | undefined;
      for (;;) {
        const page = await listChanges(store.db, { since: '2026-07-01T10:00:00.000Z', beforeId, limit: 3 });
        seen.push(...page.map((c) => c.new_score ?? -1));
        if (page.length < 3) break;
        beforeId = page.at(-1)?.id;
      }
      expect(seen).toEqual([75, 74, 73, 72]);
    });
  });

  describe('issuances', () => {
    it('upsert inserts, then updates everything but the id and the announcement time', async () => {
      await upsertIssuance(store.db, issuance('iss_1', { coupon_rate_pct: 5.125, target_amount: '1234567.89' }));
      const updated = issuance('iss_1', {
        status: 'PRICED',
        ticker: 'EXA 26',
        coupon_rate_pct: 5.375,
        coupon_frequency: 'SEMI_ANNUAL',
        expected_pricing_date: '2026-07-15',
        target_amount: '30000000.005',
        announced_at: '2030-01-01T00:00:00.000Z',
        updated_at: '2026-07-02T09:00:00.000Z',
      });
      await upsertIssuance(store.db, updated);
      expect(await findIssuance(store.db, 'iss_1')).toEqual({ ...updated, announced_at: '2026-07-01T09:00:00.000Z' });
      expect(await findIssuance(store.db, 'iss_missing')).toBeUndefined();
    });

    it('lists newest announced first with ties broken by id, filtered by status and type, in keyset pages', async () => {
      const rows = [
        issuance('iss_a', { announced_at: '2026-07-01T09:00:00.000Z' }),
        issuance('iss_b', { announced_at: '2026-07-02T09:00:00.000Z', status: 'PRICED' }),
        issuance('iss_c', { announced_at: '2026-07-02T09:00:00.000Z', type: 'LOAN' }),
        issuance('iss_d', { announced_at: '2026-07-02T09:00:00.000Z' }),
        issuance('iss_e', { announced_at: '2026-07-03T09:00:00.000Z', status: 'PRICED', type: 'LOAN' }),
        issuance('iss_f', { announced_at: '2026-06-30T09:00:00.000Z' }),
      ];
      for (const row of rows) await upsertIssuance(store.db, row);
      const walk = async (filter: { status?: string; type?: string; includeClosed?: boolean }, limit: number) => {
        const ids: string[] = [];
        let after: AnnouncedPosition | undefined;
        for (;;) {
          const page = await listIssuances(store.db, { ...filter, after, limit });
          ids.push(...page.map((r) => r.id));
          const last = page.at(-1);
          if (page.length < limit || !last) return ids;
          after = { announced_at: last.announced_at, id: last.id };
        }
      };
      for (const limit of [1, 2, 4, 10]) {
        expect(await walk({ includeClosed: true }, limit)).toEqual([
          'iss_e',
          'iss_d',
          'iss_c',
          'iss_b',
          'iss_a',
          'iss_f',
        ]);
        // Without includeClosed, only the upcoming ones (ANNOUNCED, PRICING): the PRICED ones are closed.
        expect(await walk({}, limit)).toEqual(['iss_d', 'iss_c', 'iss_a', 'iss_f']);
      }
      expect(await walk({ status: 'ANNOUNCED' }, 2)).toEqual(['iss_d', 'iss_c', 'iss_a', 'iss_f']);
      expect(await walk({ type: 'LOAN', includeClosed: true }, 1)).toEqual(['iss_e', 'iss_c']);
      expect(await walk({ status: 'PRICED', type: 'BOND' }, 5)).toEqual(['iss_b']);
    });
  });

  describe('coverage requests', () => {
    it('finds the same request by fingerprint within the window only, the earliest first', async () => {
      await insertCoverageRequest(
        store.db,
        request('cr_1', { fingerprint: 'fp', received_at: '2026-07-01T09:00:00.000Z' }),
      );
      await insertCoverageRequest(
        store.db,
        request('cr_2', { fingerprint: 'fp', received_at: '2026-07-02T10:00:00.000Z' }),
      );
      await insertCoverageRequest(store.db, request('cr_3', { fingerprint: 'other' }));
      expect(await findByFingerprint(store.db, 'fp', '2026-06-30T09:00:00.000Z')).toEqual({
        id: 'cr_1',
        received_at: '2026-07-01T09:00:00.000Z',
        status: 'RECEIVED',
      });
      // The 24 h window starting exactly at the first request still includes it.
      expect((await findByFingerprint(store.db, 'fp', '2026-07-01T09:00:00.000Z'))?.id).toBe('cr_1');
      expect((await findByFingerprint(store.db, 'fp', '2026-07-01T09:00:00.001Z'))?.id).toBe('cr_2');
      expect(await findByFingerprint(store.db, 'fp', '2026-07-03T00:00:00.000Z')).toBeUndefined();
      expect(await findByFingerprint(store.db, 'unseen', '2026-01-01T00:00:00.000Z')).toBeUndefined();
    });

    it('lists newest first, filtered by status, and resolve marks one resolved', async () => {
      for (const [i, at] of ['09', '11', '10', '11'].entries()) {
        await insertCoverageRequest(store.db, request(`cr_${i}`, { received_at: `2026-07-01T${at}:00:00.000Z` }));
      }
      expect((await listCoverageRequests(store.db, { limit: 10 })).map((r) => r.id)).toEqual([
        'cr_3',
        'cr_1',
        'cr_2',
        'cr_0',
      ]);
      expect((await listCoverageRequests(store.db, { limit: 2 })).map((r) => r.id)).toEqual(['cr_3', 'cr_1']);
      const covered = { status: 'COVERED', resolution: 'covered: published', resolvedAt: '2026-07-02T00:00:00.000Z' };
      expect(await updateCoverageRequest(store.db, 'cr_1', covered)).toBe(true);
      expect(await updateCoverageRequest(store.db, 'cr_missing', covered)).toBe(false);
      const resolved = await listCoverageRequests(store.db, { status: 'COVERED', limit: 10 });
      expect(resolved).toEqual([
        {
          ...request('cr_1', { received_at: '2026-07-01T11:00:00.000Z' }),
          status: 'COVERED',
          resolution: 'covered: published',
          resolved_at: '2026-07-02T00:00:00.000Z',
        },
      ]);
      expect((await listCoverageRequests(store.db, { status: 'RECEIVED', limit: 10 })).map((r) => r.id)).toEqual([
        'cr_3',
        'cr_2',
        'cr_0',
      ]);
    });

    it('keeps a 2000-character message with unicode exactly', async () => {
      const message = `Bitte prüfen 🙏 ${'ü'.repeat(1985)}`;
      expect([...message].length).toBe(2000);
      await insertCoverageRequest(store.db, request('cr_1', { message, provider_name: 'Crédit 🦄 Lending' }));
      const [row] = await listCoverageRequests(store.db, { limit: 1 });
      expect(row?.message).toBe(message);
      expect(row?.provider_name).toBe('Crédit 🦄 Lending');
    });
  });

  describe('approved inputs', () => {
    const submission = (id: string, over: Partial<ApprovedInputsRow> = {}): ApprovedInputsRow => ({
      id,
      provider_id: 'p1',
      document: `{"n":"${id}"}`,
      inputs_sha256: 'd'.repeat(64),
      status: 'APPROVED',
      submitted_by: 'analyst.a',
      submitted_at: '2026-07-01T09:00:00.000Z',
      approved_by: 'lead.b',
      approved_at: '2026-07-01T10:00:00.000Z',
      submitted_by_id: null,
      approved_by_id: null,
      ...over,
    });
    beforeEach(async () => {
      for (const id of ['p1', 'p2']) {
        await upsertProvider(store.db, {
          id,
          name: id,
          planner_type: 'btc',
          provider_subtype: 'lender',
          yield_min: 1,
          yield_max: 2,
          current_indicator_id: null,
          current_seq: null,
          created_at: '2026-07-01T09:00:00.000Z',
          updated_at: '2026-07-01T09:00:00.000Z',
          withdrawn_at: null,
          outlook: 'STABLE',
          watch_direction: null,
          watch_since: null,
          watch_review_by: null,
        });
      }
    });

    it('latestApproved is the newest approved submission of the provider, never a pending one', async () => {
      expect(await latestApproved(store.db, 'p1')).toBeUndefined();
      await insertApprovedInputs(store.db, submission('ai_1', { approved_at: '2026-07-01T10:00:00.000Z' }));
      await insertApprovedInputs(store.db, submission('ai_2', { approved_at: '2026-07-03T10:00:00.000Z' }));
      await insertApprovedInputs(store.db, submission('ai_3', { approved_at: '2026-07-02T10:00:00.000Z' }));
      await insertApprovedInputs(
        store.db,
        submission('ai_4', {
          status: 'PENDING',
          approved_by: null,
          approved_at: null,
          submitted_at: '2026-07-05T00:00:00.000Z',
        }),
      );
      await insertApprovedInputs(
        store.db,
        submission('ai_5', { provider_id: 'p2', approved_at: '2026-07-09T10:00:00.000Z' }),
      );
      expect(await latestApproved(store.db, 'p1')).toEqual(
        submission('ai_2', { approved_at: '2026-07-03T10:00:00.000Z' }),
      );
    });

    it('approval-time ties go to the larger id', async () => {
      await insertApprovedInputs(store.db, submission('ai_a'));
      await insertApprovedInputs(store.db, submission('ai_c'));
      await insertApprovedInputs(store.db, submission('ai_b'));
      expect((await latestApproved(store.db, 'p1'))?.id).toBe('ai_c');
    });

    it('a submission of an unknown provider is refused (foreign key)', async () => {
      await expect(insertApprovedInputs(store.db, submission('ai_1', { provider_id: 'nope' }))).rejects.toThrow();
    });
  });

  describe('meta counters', () => {
    it('increment returns 1, 2, 3 and readMeta reads the counter back', async () => {
      expect(await readMeta(store.db, 'k')).toBeUndefined();
      expect([await increment(store.db, 'k'), await increment(store.db, 'k'), await increment(store.db, 'k')]).toEqual([
        1, 2, 3,
      ]);
      expect(Number(await readMeta(store.db, 'k'))).toBe(3);
      expect(await increment(store.db, 'other')).toBe(1);
    });

    it('a counter is stored as integer text on every engine', async () => {
      await increment(store.db, 'k');
      await increment(store.db, 'k');
      expect(await readMeta(store.db, 'k')).toBe('2');
    });

    it('increment is atomic: 20 concurrent transactions get 20 distinct values 1..20', async () => {
      const values = await Promise.all(
        Array.from({ length: 20 }, () => store.db.transaction().execute((tx) => increment(tx, 'k'))),
      );
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(Number(await readMeta(store.db, 'k'))).toBe(20);
    });

    it('an increment in a transaction that rolls back is not kept', async () => {
      await increment(store.db, 'k');
      await expect(
        store.db.transaction().execute(async (tx) => {
          await increment(tx, 'k');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(Number(await readMeta(store.db, 'k'))).toBe(1);
      expect(await increment(store.db, 'k')).toBe(2);
    });
  });
});
