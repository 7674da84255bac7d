import { LIMITATIONS_DISCLOSURE, RISK_INDICATOR_FIELDS } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { frameworkInForce } from '../../src/services/frameworks/frameworks.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import {
  approveRatingActions,
  proposeOutlook,
  proposeWatch,
} from '../../src/services/rating-actions/rating-actions.js';
import { servedIndicatorJson } from '../../src/services/scores/served.js';
import { namePosition, pageOf } from '../../src/services/shared/paging.js';
import { assembledPage, ServedIndicators, ServedRow } from '../../src/services/shared/served-indicators.js';
import { findCurrent, findInForce, listCurrent } from '../../src/store/repositories/providers.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, variantOf, withInput } from '../support/documents.js';
import { expectInvalid, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/**
 * The keyed reads served from indicators kept as bytes under the publication version (decision 0036): every answer
 * byte for byte what the store read and rebuild per request served before, on the fast path and through Express;
 * a change made elsewhere shown within the public list's window on another instance; `fields`.
 */

const BASE = example('worked-example');
const DOCS = [BASE, example('low-band'), ...[1, 2, 3, 4, 5].map((n) => variantOf(BASE, n))];
const ids = DOCS.map((d) => d.provider.id);
const [PLAIN, LOW, WITHDRAWN, WATCHED, OUTLOOK] = ids as [string, string, string, string, string];
const START = '2026-08-01T09:00:00.000Z';

describe.each(engines)('served indicators on %s', (engine) => {
  const clock = manualClock(START);
  let key = '';
  let asOf = '';
  const server = useServer(
    engine,
    async (s) => {
      for (const doc of DOCS) await publish(s, doc);
      asOf = new Date(clock.now().getTime() + 1).toISOString();
      clock.advance(60_000);
      const as = (by: string) => ctxOf(s.services.store, { clock, by });
      const approve = async (p: { id: string }) => approveRatingActions(as('Bo Approver'), { ids: [p.id] });
      await approve(
        await proposeWatch(as('Ann Analyst'), {
          providerId: WATCHED,
          direction: 'POSITIVE',
          reviewBy: '2026-10-30',
          rationale: 'new custodian',
        }),
      );
      await approve(
        await proposeOutlook(as('Ann Analyst'), { providerId: OUTLOOK, outlook: 'NEGATIVE', rationale: 'm' }),
      );
      await withdrawProvider(ctxOf(s.services.store, { clock }), { providerId: WITHDRAWN, reason: 'ceased' });
      clock.advance(60_000);
      key = await s.key('PROFESSIONAL');
    },
    { clock },
  );

  /** The detail as the route built it before decision 0036: a store read and servedIndicatorJson per request. */
  const oldDetail = async (id: string, at?: string) => {
    const db = server().services.store.db;
    const row = at === undefined ? await findCurrent(db, id) : await findInForce(db, id, at);
    return row ? servedIndicatorJson(row) : null;
  };
  /** A page as the route built it before decision 0036. */
  const oldPage = async (input: { limit: number; after?: { name: string; id: string }; asOf?: string }) => {
    const { store } = server().services;
    const rows = await listCurrent(store.db, { ...input, limit: input.limit + 1 });
    const { page, nextCursor } = pageOf(rows, input.limit, (r) => namePosition(r, input.asOf));
    const fv = (await frameworkInForce(ctxOf(store, { clock }))).definition.framework_version;
    return `{"data":[${page.map(servedIndicatorJson).join(',')}],"framework_version":${JSON.stringify(fv)},"limitations_disclosure":${JSON.stringify(LIMITATIONS_DISCLOSURE)},"next_cursor":${JSON.stringify(nextCursor)}}`;
  };
  /** Headers two answers may differ in: the request id, the date, the limit left and its reset. */
  const comparable = (res: Response) => {
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!['x-request-id', 'date', 'ratelimit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].includes(k)) out[k] = v;
    });
    return out;
  };

  it('the detail of every provider (plain, withdrawn, on watch, with an outlook, unknown) is the bytes of before, on the fast path and through Express', async () => {
    const s = server();
    for (const id of [...ids, '0f0f0f0f-0000-4000-8000-000000000000']) {
      const expected = await oldDetail(id);
      // Twice: the first answer reads the store and keeps the bytes, the second serves them.
      for (let i = 0; i < 2; i++) {
        const fast = await s.get(`/api/v1/scores/${id}`, { key });
        // An empty query string is not the fast path's URL: Express answers.
        const routed = await s.get(`/api/v1/scores/${id}?`, { key });
        expect([fast.status, routed.status], id).toEqual(expected === null ? [404, 404] : [200, 200]);
        const [fastText, routedText] = [await fast.text(), await routed.text()];
        expect(comparable(fast)).toEqual(comparable(routed));
        if (expected === null) continue;
        expect(fastText, id).toBe(expected);
        expect(routedText, id).toBe(expected);
        expect(fast.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
      }
    }
    const states = await Promise.all(
      [WITHDRAWN, WATCHED, OUTLOOK].map(async (id) => JSON.parse((await oldDetail(id)) ?? 'null')),
    );
    expect(states[0]).toBeNull();
    expect(states[1].watch.direction).toBe('POSITIVE');
    expect(states[2].outlook).toBe('NEGATIVE');
  });

  it('the detail as of an instant, and every page of the list (now and as of an instant, walked by cursor), are the bytes of before', async () => {
    const s = server();
    for (const id of ids) {
      const expected = await oldDetail(id, asOf);
      // Twice: the first answer reads the store and keeps the bytes, the second serves them; `as_of` alone is the
      // fast path's, with anything after it (an empty parameter) Express's.
      for (let i = 0; i < 2; i++) {
        const fast = await s.get(`/api/v1/scores/${id}?as_of=${encodeURIComponent(asOf)}`, { key });
        const routed = await s.get(`/api/v1/scores/${id}?as_of=${encodeURIComponent(asOf)}&`, { key });
        expect([fast.status, routed.status], id).toEqual([200, 200]);
        expect(comparable(fast)).toEqual(comparable(routed));
        expect(await fast.text(), id).toBe(expected);
        expect(await routed.text(), id).toBe(expected);
      }
    }
    // A provider with nothing in force then, one unknown, and an as_of that cannot be served: the answers of Express.
    const before = '2026-04-01T00:00:00.000Z';
    for (const [path, status] of [
      [`/api/v1/scores/${ids[0]}?as_of=${before}`, 404],
      [`/api/v1/scores/0f0f0f0f-0000-4000-8000-000000000000?as_of=${encodeURIComponent(asOf)}`, 404],
      [`/api/v1/scores/${ids[0]}?as_of=yesterday`, 400],
      [`/api/v1/scores/${ids[0]}?as_of=%E0%A4%A`, 400],
    ] as const) {
      const fast = await s.get(path, { key });
      const routed = await s.get(`${path}&`, { key });
      expect([fast.status, routed.status], path).toEqual([status, status]);
      expect(comparable(fast)).toEqual(comparable(routed));
      const [fastBody, routedBody] = [
        (await fast.json()) as Record<string, unknown>,
        (await routed.json()) as Record<string, unknown>,
      ];
      expect({ ...fastBody, request_id: undefined }).toEqual({ ...routedBody, request_id: undefined });
      expect(fastBody.request_id).toBe(fast.headers.get('x-request-id'));
    }
    for (const at of [undefined, asOf]) {
      for (let pass = 0; pass < 2; pass++) {
        let path: string | null = `/api/v1/scores?limit=2${at ? `&as_of=${encodeURIComponent(at)}` : ''}`;
        let after: { name: string; id: string } | undefined;
        let pages = 0;
        while (path) {
          const res = await s.get(path, { key });
          expect(res.status).toBe(200);
          const text = await res.text();
          expect(text).toBe(await oldPage({ limit: 2, after, asOf: at }));
          const body = JSON.parse(text) as { data: { name: string; provider_id: string }[] };
          const last = body.data[body.data.length - 1];
          after = last ? { name: last.name, id: last.provider_id } : undefined;
          path = nextLinkOf(res);
          pages++;
        }
        expect(pages).toBe(at ? 4 : 3);
      }
    }
  });

  it('a publication, a rating action and a withdrawal made elsewhere show on another instance within the public list’s window', async () => {
    const s = server();
    const other: RunningServer = await s.startInstance();
    const get = (path: string) => fetch(`${other.url}${path}`, { headers: { 'x-api-key': key } });
    const detailOf = async (id: string) => {
      const res = await get(`/api/v1/scores/${id}`);
      return res.status === 200 ? await res.text() : null;
    };
    const publicNames = async () =>
      ((await (await fetch(`${other.url}/api/public/scores`)).json()) as { data: { id: string }[] }).data.map(
        (p) => p.id,
      );
    // Warm: the other instance keeps what it served.
    expect(await detailOf(PLAIN)).toBe(await oldDetail(PLAIN));
    await (await get('/api/v1/scores?limit=100')).text();
    const as = (by: string) => ctxOf(s.services.store, { clock, by });
    const changes: [string, () => Promise<unknown>][] = [
      ['a publication', () => s.publish(withInput(BASE, 'collateral_coverage_ratio', 1.4))],
      [
        'an outlook',
        async () =>
          approveRatingActions(as('Bo Approver'), {
            ids: [
              (await proposeOutlook(as('Ann Analyst'), { providerId: PLAIN, outlook: 'POSITIVE', rationale: 'r' })).id,
            ],
          }),
      ],
      [
        'a watch',
        async () =>
          approveRatingActions(as('Bo Approver'), {
            ids: [
              (
                await proposeWatch(as('Ann Analyst'), {
                  providerId: LOW,
                  direction: 'NEGATIVE',
                  reviewBy: '2026-10-30',
                  rationale: 'r',
                })
              ).id,
            ],
          }),
      ],
      ['a withdrawal', () => withdrawProvider(ctxOf(s.services.store, { clock }), { providerId: PLAIN, reason: 'x' })],
    ];
    for (const [what, change] of changes) {
      const before = [await detailOf(PLAIN), await detailOf(LOW)];
      await change();
      // Past the window (a second) the other instance checks the version again; so does its public list.
      clock.advance(1_001);
      const now = [await oldDetail(PLAIN), await oldDetail(LOW)];
      expect(now, what).not.toEqual(before);
      expect([await detailOf(PLAIN), await detailOf(LOW)], what).toEqual(now);
      const page = await get('/api/v1/scores?limit=100');
      expect(await page.text(), what).toBe(await oldPage({ limit: 100 }));
      expect((await publicNames()).includes(PLAIN), what).toBe(now[0] !== null);
    }
  });

  describe('fields', () => {
    it('selects top-level fields of each indicator, in the order of the full form, on the detail, the list, its pages and as_of', async () => {
      const s = server();
      const full = JSON.parse((await oldDetail(LOW)) ?? '') as Record<string, unknown>;
      const res = await s.get(`/api/v1/scores/${LOW}?fields=risk_band,provider_id,final_score`, { key });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toBe(
        JSON.stringify({ provider_id: full.provider_id, final_score: full.final_score, risk_band: full.risk_band }),
      );
      const dated = await s.get(`/api/v1/scores/${LOW}?fields=outlook,watch&as_of=${encodeURIComponent(asOf)}`, {
        key,
      });
      expect(await dated.json()).toEqual({ outlook: 'STABLE', watch: null });
      // Pages keep the fields in their next link.
      let path: string | null = '/api/v1/scores?limit=3&fields=name,risk_band';
      const names: string[] = [];
      while (path) {
        const page = await s.get(path, { key });
        expect(page.status).toBe(200);
        const body = (await page.json()) as { data: Record<string, unknown>[] };
        for (const item of body.data) expect(Object.keys(item)).toEqual(['name', 'risk_band']);
        names.push(...body.data.map((d) => d.name as string));
        path = nextLinkOf(page);
        if (path) expect(path).toContain('fields=name%2Crisk_band');
      }
      const whole = JSON.parse(await oldPage({ limit: 100 })) as { data: { name: string }[] };
      expect(names).toEqual(whole.data.map((d) => d.name));
    });

    it('an unknown field is a 400 naming it and listing the fields; an empty or repeated one too', async () => {
      const s = server();
      for (const path of [`/api/v1/scores/${LOW}`, '/api/v1/scores']) {
        const unknown = await expectInvalid(await s.get(`${path}?fields=final_score,nope`, { key }), ['query.fields']);
        expect(unknown.detail).toContain('"nope"');
        for (const field of RISK_INDICATOR_FIELDS) expect(unknown.detail).toContain(field);
        for (const bad of ['', 'final_score,', 'final_score,,risk_band', 'final_score,final_score']) {
          await expectInvalid(await s.get(`${path}?fields=${bad}`, { key }), ['query.fields']);
        }
      }
    });
  });
});

describe('served indicators kept within their budget of bytes', () => {
  const row = (n: number) => new ServedRow(Buffer.alloc(n, 0x20));

  it('lets the first kept go first once past the budget, for rows and pages alike, and keeps nothing of a past version', async () => {
    let version = '1';
    const kept = new ServedIndicators(async () => version, { rows: 100, pages: 100 });
    await kept.current();
    kept.keepRow('1', 'a', row(40));
    kept.keepRow('1', 'b', row(40));
    kept.keepRow('1', 'a', row(90)); // a key kept once stays as it is
    expect(kept.row('a')?.bytes.length).toBe(40);
    kept.keepRow('1', 'c', row(40)); // 120 bytes: the first kept goes
    expect([kept.row('a'), kept.row('b'), kept.row('c')].map((r) => r?.bytes.length)).toEqual([undefined, 40, 40]);
    // A page counts twice its rows: once for them, once for its answer assembled from them.
    kept.keepPage('1', 'p', { rows: [row(15), row(15)], nextCursor: null });
    kept.keepPage('1', 'q', { rows: [row(25)], nextCursor: 'x' }); // 110 bytes of pages: p goes
    expect(kept.page('p')).toBeUndefined();
    expect(kept.page('q')?.nextCursor).toBe('x');
    // A row read under a version the store has moved past is not kept; a new version drops every entry.
    version = '2';
    kept.keepRow('2', 'd', row(10));
    expect(kept.row('d')).toBeUndefined();
    await kept.current();
    expect([kept.row('b'), kept.page('q')]).toEqual([undefined, undefined]);
    kept.keepRow('1', 'e', row(10));
    expect(kept.row('e')).toBeUndefined();
    kept.keepRow('2', 'e', row(10));
    expect(kept.row('e')?.bytes.length).toBe(10);
    // A row as of an instant is kept apart from the row now, in the same budget, and goes with the version too.
    const instant = '2026-06-30T10:00:00.000Z';
    expect(kept.row('e', instant)).toBeUndefined();
    kept.keepRow('2', 'e', row(20), instant);
    expect([kept.row('e')?.bytes.length, kept.row('e', instant)?.bytes.length]).toEqual([10, 20]);
    version = '3';
    await kept.current();
    expect(kept.row('e', instant)).toBeUndefined();
  });
});

describe('a kept page answered whole', () => {
  it('is spliced once for its envelope, and again when the part after its rows changes', () => {
    const page = { rows: [new ServedRow(Buffer.from('{"a":1}'))], nextCursor: null };
    let splices = 0;
    const splice = (tail: string) => () => {
      splices++;
      return Buffer.from(`{"data":[{"a":1}${tail}`);
    };
    const first = assembledPage(page, '],"v":"1"}', splice('],"v":"1"}'));
    expect(assembledPage(page, '],"v":"1"}', splice('],"v":"1"}'))).toBe(first);
    expect(splices).toBe(1);
    const other = assembledPage(page, '],"v":"2"}', splice('],"v":"2"}'));
    expect(other.toString()).toBe('{"data":[{"a":1}],"v":"2"}');
    expect(splices).toBe(2);
    // Another page object (the same key read again after a publication) is spliced afresh.
    assembledPage({ ...page }, '],"v":"2"}', splice('],"v":"2"}'));
    expect(splices).toBe(3);
  });
});
