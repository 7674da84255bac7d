import { BandsResponseSchema, TransitionsResponseSchema } from '@svc/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { shareOf } from '../../src/services/records/track-record.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, type InputsDoc, variantOf, vary, withInput } from '../support/documents.js';
import { clientIp, expectInvalid, expectJson } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/**
 * The track record over real HTTP (decision 0032): a scripted history, then its transition matrix and band counts
 * against the figures worked out by hand below.
 *
 * The examples' bands: worked-example MEDIUM (78.46), low-band LOW (95.54), multiple-caps SEVERE (34.99).
 */

const P1 = variantOf(example('worked-example'), 201, { name: 'Track One' });
const P2 = variantOf(example('low-band'), 202, { name: 'Track Two' });
const P3 = variantOf(example('multiple-caps'), 203, { name: 'Track Three' });
const P4 = variantOf(example('worked-example'), 204, { name: 'Track Four' });
const P5 = variantOf(example('low-band'), 205, { name: 'Track Five' });
/** Another provider's evidence under this provider's name and id. */
const withEvidenceOf = (doc: InputsDoc, evidence: InputsDoc) => vary(evidence, { provider: doc.provider });

const HOUR = 3_600_000;
const START = Date.parse('2026-09-01T09:00:00.000Z');
const at = (hours: number) => new Date(START + hours * HOUR).toISOString();

/**
 * The history, an hour apart:
 *   0  P1 MEDIUM, P2 LOW, P3 SEVERE published
 *   1  P4 MEDIUM published
 *   2  P1 upgraded to LOW (the low-band evidence)
 *   3  P2 downgraded to SEVERE (the multiple-caps evidence)
 *   4  P3 withdrawn
 *   5  P5 LOW published (newly rated)
 *   6  P4 affirmed MEDIUM with new inputs
 */
const STEPS: [number, (s: Parameters<typeof publish>[0], clock: ReturnType<typeof manualClock>) => Promise<unknown>][] =
  [
    [0, async (s) => Promise.all([publish(s, P1), publish(s, P2), publish(s, P3)])],
    [1, (s) => publish(s, P4)],
    [2, (s) => publish(s, withEvidenceOf(P1, example('low-band')))],
    [3, (s) => publish(s, withEvidenceOf(P2, example('multiple-caps')))],
    [
      4,
      (s, clock) =>
        withdrawProvider(ctxOf(s.services.store, { clock }), { providerId: P3.provider.id, reason: 'exit' }),
    ],
    [5, (s) => publish(s, P5)],
    [6, (s) => publish(s, withInput(P4, 'collateral_coverage_ratio', 1.45))],
  ];

const zero = { LOW: 0, MEDIUM: 0, ELEVATED: 0, HIGH: 0, SEVERE: 0, WITHDRAWN: 0 };

describe.each(engines)('the track record on %s', (engine) => {
  const clock = manualClock(at(0));
  let ip = 0;
  const server = useServer(engine, async () => {}, { clock, env: { TRUST_PROXY: 'loopback' } });
  const get = (path: string, headers: Record<string, string> = {}) =>
    server().get(path, { headers: { 'x-forwarded-for': clientIp(ip++), ...headers } });

  beforeAll(async () => {
    for (const [hours, step] of STEPS) {
      clock.set(at(hours));
      await step(server(), clock);
    }
    clock.set(at(30));
  });

  it('the matrix from between the first two moves to after the last is the one worked out by hand', async () => {
    // From: after P4's publication (1h30): P1 MEDIUM, P2 LOW, P3 SEVERE, P4 MEDIUM. To: after everything (6h30).
    const res = await get(`/api/public/statistics/transitions?from=${at(1.5)}&to=${at(6.5)}`);
    const matrix = await expectJson(res, TransitionsResponseSchema.strict());
    expect(matrix.from).toBe(at(1.5));
    expect(matrix.to).toBe(at(6.5));
    expect(matrix.columns).toEqual(['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE', 'WITHDRAWN']);
    const byBand = Object.fromEntries(matrix.rows.map((r) => [r.band, r]));
    expect(matrix.rows.map((r) => r.band)).toEqual(['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE']);
    // LOW: P2 went to SEVERE.
    expect(byBand.LOW).toEqual({
      band: 'LOW',
      total: 1,
      counts: { ...zero, SEVERE: 1 },
      shares: { ...zero, SEVERE: 1 },
    });
    // MEDIUM: P1 went to LOW, P4 stayed MEDIUM.
    expect(byBand.MEDIUM).toEqual({
      band: 'MEDIUM',
      total: 2,
      counts: { ...zero, LOW: 1, MEDIUM: 1 },
      shares: { ...zero, LOW: 0.5, MEDIUM: 0.5 },
    });
    // SEVERE: P3 was withdrawn.
    expect(byBand.SEVERE).toEqual({
      band: 'SEVERE',
      total: 1,
      counts: { ...zero, WITHDRAWN: 1 },
      shares: { ...zero, WITHDRAWN: 1 },
    });
    for (const band of ['ELEVATED', 'HIGH'] as const) {
      expect(byBand[band]).toEqual({ band, total: 0, counts: zero, shares: zero });
    }
    // P5 was rated after `from`: counted apart, not in the matrix.
    expect(matrix.summary).toEqual({
      rated_at_from: 4,
      upgraded: 1,
      downgraded: 1,
      unchanged: 1,
      withdrawn: 1,
      rated_since: 1,
    });
  });

  it('instants exactly at an event count it; a millisecond before does not', async () => {
    const before = await expectJson(
      await get(
        `/api/public/statistics/transitions?from=${at(1.5)}&to=${new Date(START + 2 * HOUR - 1).toISOString()}`,
      ),
      TransitionsResponseSchema,
    );
    expect(before.summary).toMatchObject({ upgraded: 0, unchanged: 4, rated_since: 0 });
    const exactly = await expectJson(
      await get(`/api/public/statistics/transitions?from=${at(1.5)}&to=${at(2)}`),
      TransitionsResponseSchema,
    );
    expect(exactly.summary).toMatchObject({ upgraded: 1, unchanged: 3 });
    // From the very start (nothing in force before 09:00): an empty matrix, everyone rated since.
    const empty = await expectJson(
      await get(`/api/public/statistics/transitions?from=2026-08-31&to=${at(6.5)}`),
      TransitionsResponseSchema,
    );
    expect(empty.summary).toEqual({
      rated_at_from: 0,
      upgraded: 0,
      downgraded: 0,
      unchanged: 0,
      withdrawn: 0,
      rated_since: 4,
    });
    expect(empty.rows.every((r) => r.total === 0)).toBe(true);
  });

  it('without `to`, the end is the present: the indicators in force now', async () => {
    const matrix = await expectJson(
      await get(`/api/public/statistics/transitions?from=${at(1.5)}`),
      TransitionsResponseSchema,
    );
    expect(matrix.to).toBe(at(30));
    expect(matrix.summary).toEqual({
      rated_at_from: 4,
      upgraded: 1,
      downgraded: 1,
      unchanged: 1,
      withdrawn: 1,
      rated_since: 1,
    });
  });

  it("today's date means the present (its end is still to come); tomorrow's is still refused as the future", async () => {
    const today = at(30).slice(0, 10);
    const upToToday = await expectJson(
      await get(`/api/public/statistics/transitions?from=${at(1.5)}&to=${today}`),
      TransitionsResponseSchema,
    );
    const upToNow = await expectJson(
      await get(`/api/public/statistics/transitions?from=${at(1.5)}`),
      TransitionsResponseSchema,
    );
    expect(upToToday).toEqual(upToNow);
    expect(upToToday.to).toBe(at(30));
    const bands = await expectJson(await get(`/api/public/statistics/bands?as_of=${today}`), BandsResponseSchema);
    expect(bands).toEqual(await expectJson(await get('/api/public/statistics/bands'), BandsResponseSchema));
    const tomorrow = new Date(Date.parse(at(30)) + 24 * HOUR).toISOString().slice(0, 10);
    await expectInvalid(await get(`/api/public/statistics/transitions?from=${at(1.5)}&to=${tomorrow}`), ['query.to']);
  });

  it('band counts as of each instant, and now', async () => {
    const counts = async (query: string) =>
      expectJson(await get(`/api/public/statistics/bands${query}`), BandsResponseSchema.strict());
    const early = await counts(`?as_of=${at(1.5)}`);
    expect(early.total).toBe(4);
    expect(early.bands).toEqual([
      { band: 'LOW', count: 1, share: 0.25 },
      { band: 'MEDIUM', count: 2, share: 0.5 },
      { band: 'ELEVATED', count: 0, share: 0 },
      { band: 'HIGH', count: 0, share: 0 },
      { band: 'SEVERE', count: 1, share: 0.25 },
    ]);
    const now = await counts('');
    expect(now.as_of).toBe(at(30));
    // Now: P1 LOW, P5 LOW, P4 MEDIUM, P2 SEVERE (P3 withdrawn).
    expect(now.bands.map((b) => [b.band, b.count, b.share])).toEqual([
      ['LOW', 2, 0.5],
      ['MEDIUM', 1, 0.25],
      ['ELEVATED', 0, 0],
      ['HIGH', 0, 0],
      ['SEVERE', 1, 0.25],
    ]);
    const before = await counts('?as_of=2026-08-31');
    expect(before).toEqual({
      as_of: '2026-08-31T23:59:59.999Z',
      total: 0,
      bands: ['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE'].map((band) => ({ band, count: 0, share: 0 })),
    });
  });

  it('format=csv answers one row per band, counts then shares to 4 places', async () => {
    const res = await get(`/api/public/statistics/transitions?from=${at(1.5)}&to=${at(6.5)}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).split('\r\n');
    expect(lines[0]).toBe(
      'from,to,band,total,LOW,MEDIUM,ELEVATED,HIGH,SEVERE,WITHDRAWN,share_LOW,share_MEDIUM,share_ELEVATED,share_HIGH,share_SEVERE,share_WITHDRAWN',
    );
    expect(lines[2]).toBe(`${at(1.5)},${at(6.5)},MEDIUM,2,1,1,0,0,0,0,0.5000,0.5000,0.0000,0.0000,0.0000,0.0000`);
    expect(lines).toHaveLength(7); // the header, five bands, and the empty text after the last CRLF
    const bands = await get(`/api/public/statistics/bands?as_of=${at(1.5)}&format=csv`);
    expect(await bands.text()).toBe(
      [
        'as_of,band,count,share',
        `${at(1.5)},LOW,1,0.2500`,
        `${at(1.5)},MEDIUM,2,0.5000`,
        `${at(1.5)},ELEVATED,0,0.0000`,
        `${at(1.5)},HIGH,0,0.0000`,
        `${at(1.5)},SEVERE,1,0.2500`,
        '',
      ].join('\r\n'),
    );
  });

  it('answers carry a strong ETag; If-None-Match gets 304', async () => {
    const path = `/api/public/statistics/transitions?from=${at(1.5)}&to=${at(6.5)}`;
    const first = await get(path);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[^"]+"$/);
    await first.body?.cancel();
    const again = await get(path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('bad parameters are 400 naming each, and nothing is computed', async () => {
    const T = '/api/public/statistics/transitions';
    await expectInvalid(await get(T), ['query.from']);
    await expectInvalid(await get(`${T}?from=yesterday`), ['query.from']);
    await expectInvalid(await get(`${T}?from=2026-02-30`), ['query.from']);
    await expectInvalid(await get(`${T}?from=2026-03-31`), ['query.from']);
    await expectInvalid(await get(`${T}?from=${at(5)}&to=${at(4)}`), ['query.from']);
    await expectInvalid(await get(`${T}?from=${at(1)}&to=2027-01-01`), ['query.to']);
    await expectInvalid(await get(`${T}?from=2027-01-01`), ['query.from']);
    await expectInvalid(await get(`${T}?from=${at(1)}&format=xml`), ['query.format']);
    await expectInvalid(await get(`${T}?from=${at(1)}&as_of=${at(2)}`), ['query.as_of']);
    await expectInvalid(await get(`${T}?from=${at(1)}&from=${at(2)}`), ['query.from']);
    const B = '/api/public/statistics/bands';
    await expectInvalid(await get(`${B}?as_of=2026-13-01`), ['query.as_of']);
    await expectInvalid(await get(`${B}?as_of=2099-01-01T00:00:00Z`), ['query.as_of']);
    await expectInvalid(await get(`${B}?from=${at(1)}`), ['query.from']);
  });
});

describe('shares', () => {
  it('round half up to 4 places in integers', () => {
    expect(shareOf(1, 3)).toBe(0.3333);
    expect(shareOf(2, 3)).toBe(0.6667);
    expect(shareOf(1, 8)).toBe(0.125);
    // 1/20000 = 0.00005 exactly: half up.
    expect(shareOf(1, 20_000)).toBe(0.0001);
    expect(shareOf(1, 20_001)).toBe(0);
    expect(shareOf(0, 0)).toBe(0);
    expect(shareOf(7, 7)).toBe(1);
  });
});
