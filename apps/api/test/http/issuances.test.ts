import { IssuancesResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { closeIssuance } from '../../src/services/issuances/issuances.js';
import { type IssuanceRow, upsertIssuance } from '../../src/store/repositories/issuances.js';
import { ctxOf } from '../support/context.js';
import { WORKED_ID } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem, limitHeadersOf, nextLinkOf } from '../support/responses.js';
import { type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const ListSchema = IssuancesResponseSchema.strict();

/** An issuance id of the one scheme, iss_ and 24 hex digits, numbered. */
const idOf = (n: number) => `iss_${String(n).padStart(24, '0')}`;

function issuance(
  n: number,
  status: 'ANNOUNCED' | 'PRICING',
  type: 'bond' | 'preferred_share',
  day: number,
): IssuanceRow {
  return {
    id: idOf(n),
    issuer_name: `Issuer ${n}`,
    provider_id: n === 1 ? WORKED_ID : null,
    instrument_name: `${type === 'bond' ? 'Senior Note' : 'Series A Preferred'} ${n}`,
    ticker: n % 2 === 0 ? `TK${n}` : null,
    type,
    status,
    currency: 'USD',
    target_amount: `${n}5000000.50`,
    coupon_rate_pct: type === 'bond' ? 8.25 : null,
    coupon_frequency: type === 'bond' ? 'quarterly' : null,
    expected_pricing_date: status === 'PRICING' ? '2026-12-01' : null,
    announced_at: `2026-05-${String(day).padStart(2, '0')}T09:00:00.000Z`,
    updated_at: `2026-05-${String(day).padStart(2, '0')}T10:00:00.000Z`,
  };
}

/** Six issuances over both statuses and types; two share an announcement time. */
const ISSUANCES: IssuanceRow[] = [
  issuance(1, 'ANNOUNCED', 'bond', 1),
  issuance(2, 'PRICING', 'bond', 2),
  issuance(3, 'ANNOUNCED', 'preferred_share', 3),
  issuance(4, 'PRICING', 'preferred_share', 4),
  issuance(5, 'ANNOUNCED', 'bond', 5),
  issuance(6, 'ANNOUNCED', 'bond', 5),
];

/** Newest announced first, ties by id descending. */
const NEWEST_FIRST = [...ISSUANCES]
  .sort((a, b) => b.announced_at.localeCompare(a.announced_at) || b.id.localeCompare(a.id))
  .map((i) => i.id);

async function insertIssuances(s: TestServer): Promise<void> {
  for (const row of ISSUANCES) await upsertIssuance(s.services.store.db, row);
}

describe.each(engines)('GET /api/v1/issuances on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await insertIssuances(s);
    key = await s.key('FREE');
  });

  keyedRouteSecurity('listIssuances', server, () => '/api/v1/issuances');

  describe('happy path', () => {
    it('a FREE key lists every issuance, newest announced first, with its record fields', async () => {
      const body = await expectJson(await server().get('/api/v1/issuances', { key }), ListSchema);
      expect(body.data.map((i) => i.id)).toEqual(NEWEST_FIRST);
      expect(body.next_cursor).toBeNull();
      const one = body.data.find((i) => i.id === idOf(1));
      expect(one).toEqual({
        id: idOf(1),
        issuer_name: 'Issuer 1',
        provider_id: WORKED_ID,
        instrument_name: 'Senior Note 1',
        ticker: null,
        type: 'bond',
        status: 'ANNOUNCED',
        currency: 'USD',
        target_amount: 15000000.5,
        coupon_rate_pct: 8.25,
        coupon_frequency: 'quarterly',
        expected_pricing_date: null,
        announced_at: '2026-05-01T09:00:00.000Z',
        updated_at: '2026-05-01T10:00:00.000Z',
      });
    });

    for (const status of ['ANNOUNCED', 'PRICING'] as const) {
      it(`status=${status} lists only ${status} issuances`, async () => {
        const body = await expectJson(await server().get(`/api/v1/issuances?status=${status}`, { key }), ListSchema);
        expect(body.data.map((i) => i.id)).toEqual(
          NEWEST_FIRST.filter((id) => ISSUANCES.find((i) => i.id === id)?.status === status),
        );
      });
    }

    for (const type of ['bond', 'preferred_share'] as const) {
      it(`type=${type} lists only ${type} issuances`, async () => {
        const body = await expectJson(await server().get(`/api/v1/issuances?type=${type}`, { key }), ListSchema);
        expect(body.data.map((i) => i.id)).toEqual(
          NEWEST_FIRST.filter((id) => ISSUANCES.find((i) => i.id === id)?.type === type),
        );
      });
    }

    it('status and type together list the issuances matching both', async () => {
      const body = await expectJson(
        await server().get('/api/v1/issuances?status=ANNOUNCED&type=bond', { key }),
        ListSchema,
      );
      expect(body.data.map((i) => i.id)).toEqual([idOf(6), idOf(5), idOf(1)]);
    });

    it('limit=2 pages through every issuance exactly once, ties included, following the Link header', async () => {
      const ids: string[] = [];
      let next: string | null = '/api/v1/issuances?limit=2';
      let pages = 0;
      while (next !== null && pages < 10) {
        const res: Response = await server().get(next, { key });
        next = nextLinkOf(res);
        const body = await expectJson(res, ListSchema);
        expect(body.next_cursor === null).toBe(next === null);
        ids.push(...body.data.map((i) => i.id));
        pages++;
      }
      expect(ids).toEqual(NEWEST_FIRST);
      expect(pages).toBe(3);
    });

    it('pagination keeps the filters', async () => {
      const res = await server().get('/api/v1/issuances?status=ANNOUNCED&limit=1', { key });
      expect(nextLinkOf(res)).toMatch(/status=ANNOUNCED/);
      const body = await expectJson(res, ListSchema);
      const page2 = await expectJson(
        await server().get(`/api/v1/issuances?status=ANNOUNCED&limit=1&cursor=${body.next_cursor}`, { key }),
        ListSchema,
      );
      expect([body.data[0]?.id, page2.data[0]?.id]).toEqual([idOf(6), idOf(5)]);
    });
  });

  describe('errors', () => {
    it('status=OPEN gets 400 listing the allowed statuses', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/issuances?status=OPEN', { key }), [
        'query.status',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/ANNOUNCED.*PRICING/);
    });

    it('a lower-case status gets 400 (values are exact)', async () => {
      await expectInvalid(await server().get('/api/v1/issuances?status=announced', { key }), ['query.status']);
    });

    it('type=equity gets 400 naming query.type', async () => {
      await expectInvalid(await server().get('/api/v1/issuances?type=equity', { key }), ['query.type']);
    });

    it('limit=501 gets 400 naming query.limit', async () => {
      await expectInvalid(await server().get('/api/v1/issuances?limit=501', { key }), ['query.limit']);
    });

    it('a bad cursor gets 400 naming query.cursor', async () => {
      await expectInvalid(await server().get('/api/v1/issuances?cursor=abc', { key }), ['query.cursor']);
    });
  });

  describe('hourly limit', () => {
    it('a 101st FREE request in an hour gets 429 rate_limited with Retry-After', async () => {
      const s = server();
      const free = await s.key('FREE');
      const resets: number[] = [];
      for (let i = 1; i <= 100; i++) {
        const res = await s.get('/api/v1/issuances?limit=1', { key: free });
        expect(res.status).toBe(200);
        await res.body?.cancel();
        const h = limitHeadersOf(res);
        expect(h.policy).toBe('"hour";q=100;w=3600');
        expect(h.limit).toBe(100);
        expect(h.remaining).toBe(100 - i);
        expect(h.rateLimit).toMatch(new RegExp(`^"hour";r=${100 - i};t=(\\d+)$`));
        resets.push(h.reset ?? 0);
      }
      const now = Math.ceil(Date.now() / 1000);
      for (const reset of resets) {
        expect(reset).toBeGreaterThan(now + 3500);
        expect(reset).toBeLessThanOrEqual(now + 3601);
      }
      const refused = await s.get('/api/v1/issuances?limit=1', { key: free });
      const problem = await expectProblem(refused, 'rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(problem.retry_after_seconds).toBe(retryAfter);
      expect(limitHeadersOf(refused).remaining).toBe(0);
      expect(limitHeadersOf(refused).rateLimit).toMatch(/^"hour";r=0;t=\d+$/);
      // Still refused, and the refusals are not counted against another key.
      await expectProblem(await s.get('/api/v1/issuances?limit=1', { key: free }), 'rate_limited');
      const other = await s.get('/api/v1/issuances?limit=1', { key: await s.key('FREE') });
      expect(other.status).toBe(200);
      expect(limitHeadersOf(other).remaining).toBe(99);
    });
  });
});

describe.each(engines)('closed issuances on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await insertIssuances(s);
    await closeIssuance(ctxOf(s.services.store, { clock: s.services.clock }), { id: idOf(2), status: 'PRICED' });
    await closeIssuance(ctxOf(s.services.store, { clock: s.services.clock }), { id: idOf(3), status: 'cancelled' });
    key = await s.key('FREE');
  });
  const ids = async (query: string) =>
    (await expectJson(await server().get(`/api/v1/issuances${query}`, { key }), ListSchema)).data.map((i) => i.id);

  it('svc issuances close takes an issuance off the upcoming list; include_closed=true shows it with its status', async () => {
    expect(await ids('')).toEqual(NEWEST_FIRST.filter((id) => id !== idOf(2) && id !== idOf(3)));
    expect(await ids('?include_closed=false')).toEqual(await ids(''));
    expect(await ids('?include_closed=true')).toEqual(NEWEST_FIRST);
    const all = await expectJson(await server().get('/api/v1/issuances?include_closed=true', { key }), ListSchema);
    expect(all.data.filter((i) => i.id === idOf(2) || i.id === idOf(3)).map((i) => i.status)).toEqual([
      'CANCELLED',
      'PRICED',
    ]);
    expect(await ids('?status=PRICING&include_closed=true')).toEqual([idOf(4)]);
  });

  it('the status filter takes the upcoming statuses only; include_closed takes true or false', async () => {
    await expectInvalid(await server().get('/api/v1/issuances?status=PRICED', { key }), ['query.status']);
    await expectInvalid(await server().get('/api/v1/issuances?include_closed=yes', { key }), ['query.include_closed']);
  });
});
