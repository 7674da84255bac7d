import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIMITATIONS_DISCLOSURE, PublicScoreSchema, PublicScoresResponseSchema } from '@svc/contracts';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { withPublicScoresFastPath } from '../../src/http/fast-path.js';
import { headlinesAfter } from '../../src/services/shared/public-snapshot.js';
import { example, variantOf } from '../support/documents.js';
import {
  clientIp,
  expectInvalid,
  expectJson,
  expectProblem,
  limitHeadersOf,
  nextLinkOf,
} from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const EnvelopeSchema = PublicScoresResponseSchema.strict();
const HEADLINE_FIELDS = Object.keys(PublicScoreSchema.shape).sort();

async function getScores(s: TestServer, headers: Record<string, string> = {}) {
  const res = await s.get('/api/public/scores', { headers });
  return { res, etag: res.headers.get('etag'), body: await expectJson(res, EnvelopeSchema) };
}

describe.each(engines)('GET /api/public/scores on %s', (engine) => {
  describe('snapshot and caching', () => {
    const server = useServer(engine, async (s) => {
      await publish(s, example('worked-example'));
      await publish(s, example('low-band'));
    });

    it('is public, serves only the headline fields of every provider (no breakdown), by name', async () => {
      const { res, body } = await getScores(server());
      expect(res.headers.get('x-ratelimit-limit')).toBe('120');
      expect(body.limitations_disclosure).toBe(LIMITATIONS_DISCLOSURE);
      expect(body.data.map((p) => p.name)).toEqual(['Example Harbour Custody', 'Example Sats Lending']);
      for (const p of body.data) {
        expect(Object.keys(p).sort()).toEqual(HEADLINE_FIELDS);
        expect(p).not.toHaveProperty('criterion_scores');
        expect(p).not.toHaveProperty('svc_decision_object');
      }
      expect(body.data.find((p) => p.name === 'Example Sats Lending')).toMatchObject({
        final_score: 78.46,
        risk_band: 'MEDIUM',
        planner_type: 'btc',
        yield_min: 2.5,
        yield_max: 7.25,
        scored_at: '2026-06-30T00:00:00Z',
      });
    });

    it('the first answer after a publication is built fresh (cached false); later answers come from the snapshot (cached true)', async () => {
      const s = server();
      await publish(s, variantOf(example('multiple-caps'), 3));
      const first = await getScores(s);
      expect(first.body.cached).toBe(false);
      const second = await getScores(s);
      const third = await getScores(s);
      expect(second.body.cached).toBe(true);
      expect(third.body.cached).toBe(true);
      expect(third.etag).toBe(second.etag);
      expect({ ...second.body, cached: false }).toEqual(first.body);
    });

    it('answers carry a strong ETag and Cache-Control: public, max-age=60', async () => {
      const { res, etag } = await getScores(server());
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
      expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    });

    it('If-None-Match with the current ETag gets 304 with no body', async () => {
      const s = server();
      const { etag } = await getScores(s);
      // RFC 9110's weak comparison for If-None-Match: W/"x" matches "x".
      for (const condition of [etag ?? '', `"nope", ${etag}`, '*', `W/${etag}`, `"a", W/${etag} , "b"`]) {
        const res = await s.get('/api/public/scores', { headers: { 'if-none-match': condition } });
        expect(res.status, condition).toBe(304);
        expect(await res.text()).toBe('');
        expect(res.headers.get('etag')).toBe(etag);
        expect(res.headers.get('cache-control')).toBe('public, max-age=60');
        expect(res.headers.get('x-request-id')).not.toBeNull();
      }
    });

    it('If-None-Match with another ETag, a weak form of another, or a list that does not parse, gets the full answer', async () => {
      const s = server();
      const { etag } = await getScores(s);
      for (const condition of ['"something-else"', `W/"something-else"`, `${etag?.slice(1, -1)}`, `${etag} garbage`]) {
        const res = await s.get('/api/public/scores', { headers: { 'if-none-match': condition } });
        expect(res.status, condition).toBe(200);
        await expectJson(res, EnvelopeSchema);
      }
    });

    it('a new publication changes the snapshot: new data, a new ETag, and the old ETag no longer matches', async () => {
      const s = server();
      await getScores(s);
      const before = await getScores(s);
      expect(before.body.cached).toBe(true);
      await publish(s, variantOf(example('low-band'), 4, { name: 'Aardvark Credit' }));
      const fresh = await getScores(s);
      expect(fresh.body.cached).toBe(false);
      expect(fresh.etag).not.toBe(before.etag);
      expect(fresh.body.data[0]?.name).toBe('Aardvark Credit');
      expect(fresh.body.data).toHaveLength(before.body.data.length + 1);
      const after = await getScores(s);
      expect(after.body.cached).toBe(true);
      expect(after.etag).not.toBe(before.etag);
      const stale = await s.get('/api/public/scores', { headers: { 'if-none-match': before.etag ?? '' } });
      expect(stale.status).toBe(200);
      await stale.body?.cancel();
    });
  });

  describe('per-IP limit behind a trusted proxy (TRUST_PROXY=true)', () => {
    const server = useServer(engine, async () => {}, { env: { TRUST_PROXY: 'true' } });

    it('with nothing published the envelope has an empty data list', async () => {
      const { body } = await getScores(server(), { 'x-forwarded-for': clientIp(900) });
      expect(body.data).toEqual([]);
      expect(body.limitations_disclosure).toBe(LIMITATIONS_DISCLOSURE);
    });

    it('a 121st request in a minute from one client IP gets 429 with Retry-After; another IP is still served', async () => {
      const s = server();
      const ip = { 'x-forwarded-for': clientIp(1) };
      for (let i = 1; i <= 120; i++) {
        const res = await s.get('/api/public/scores', { headers: ip });
        expect(res.status).toBe(200);
        await res.body?.cancel();
        const h = limitHeadersOf(res);
        expect(h.policy).toBe('"minute";q=120;w=60');
        expect(h.remaining).toBe(120 - i);
        expect(h.rateLimit).toMatch(new RegExp(`^"minute";r=${120 - i};t=\\d+$`));
      }
      const refused = await s.get('/api/public/scores', { headers: ip });
      const problem = await expectProblem(refused, 'rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(problem.retry_after_seconds).toBe(retryAfter);
      // The left-most forwarded address is the client; a different one has its own budget.
      const other = await s.get('/api/public/scores', {
        headers: { 'x-forwarded-for': `${clientIp(2)}, ${clientIp(1)}` },
      });
      expect(other.status).toBe(200);
      expect(limitHeadersOf(other).remaining).toBe(119);
      await other.body?.cancel();
    });
  });

  describe('without TRUST_PROXY', () => {
    const server = useServer(engine);

    it('X-Forwarded-For is ignored: requests claiming 121 different addresses spend one budget', async () => {
      const s = server();
      for (let i = 1; i <= 120; i++) {
        const res = await s.get('/api/public/scores', { headers: { 'x-forwarded-for': clientIp(i) } });
        expect(res.status).toBe(200);
        await res.body?.cancel();
      }
      await expectProblem(
        await s.get('/api/public/scores', { headers: { 'x-forwarded-for': clientIp(121) } }),
        'rate_limited',
      );
    });
  });

  describe('a plain GET is answered before Express, header for header as Express answers it', () => {
    const server = useServer(engine, async (s) => publish(s, example('worked-example')), {
      env: { TRUST_PROXY: 'true' },
    });
    /** Headers that differ between two answers by design: when, which request, and the seconds left. */
    const VOLATILE = new Set(['date', 'x-request-id', 'x-ratelimit-reset', 'ratelimit']);
    const comparable = (res: Response) =>
      Object.fromEntries(
        [...res.headers].filter(([name]) => !VOLATILE.has(name)).sort(([a], [b]) => a.localeCompare(b)),
      );

    it('200: the same status, bytes and headers as the Express route (reached with an empty query)', async () => {
      const s = server();
      // After the answer that builds the snapshot (cached: false), every answer has the same bytes.
      await getScores(s, { 'x-forwarded-for': clientIp(300) });
      const fast = await s.get('/api/public/scores', { headers: { 'x-forwarded-for': clientIp(301) } });
      const routed = await s.get('/api/public/scores?', { headers: { 'x-forwarded-for': clientIp(302) } });
      expect(fast.status).toBe(200);
      expect(routed.status).toBe(200);
      expect(await fast.text()).toBe(await routed.text());
      expect(comparable(fast)).toEqual(comparable(routed));
      expect(Object.keys(comparable(fast))).toEqual(
        expect.arrayContaining(['content-security-policy', 'access-control-allow-origin', 'strict-transport-security']),
      );
      for (const res of [fast, routed]) {
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(res.headers.get('ratelimit')).toMatch(/^"minute";r=119;t=\d+$/);
      }
    });

    it('an as_of alone too: the same status, bytes and headers as the Express route (reached with another query)', async () => {
      const s = server();
      const asOf = encodeURIComponent(new Date().toISOString());
      // The first answer builds the list as of that instant (cached: false); every later one has the same bytes.
      const built = await s.get(`/api/public/scores?as_of=${asOf}`, { headers: { 'x-forwarded-for': clientIp(310) } });
      expect(((await built.json()) as { cached: boolean }).cached).toBe(false);
      const fast = await s.get(`/api/public/scores?as_of=${asOf}`, { headers: { 'x-forwarded-for': clientIp(311) } });
      const routed = await s.get(`/api/public/scores?as_of=${asOf}&`, {
        headers: { 'x-forwarded-for': clientIp(312) },
      });
      expect([fast.status, routed.status]).toEqual([200, 200]);
      const text = await fast.text();
      expect(text).toBe(await routed.text());
      expect(JSON.parse(text)).toMatchObject({ cached: true, data: [{ name: 'Example Sats Lending' }] });
      expect(comparable(fast)).toEqual(comparable(routed));
      const conditional = (ip: number) => ({
        'x-forwarded-for': clientIp(ip),
        'if-none-match': fast.headers.get('etag') ?? '',
      });
      const fast304 = await s.get(`/api/public/scores?as_of=${asOf}`, { headers: conditional(313) });
      const routed304 = await s.get(`/api/public/scores?as_of=${asOf}&`, { headers: conditional(314) });
      expect([fast304.status, routed304.status]).toEqual([304, 304]);
      expect(comparable(fast304)).toEqual(comparable(routed304));
    });

    it('304: the same headers both ways; HEAD (answered by Express) carries the GET headers', async () => {
      const s = server();
      const { etag } = await getScores(s, { 'x-forwarded-for': clientIp(303) });
      const conditional = (ip: number) => ({ 'x-forwarded-for': clientIp(ip), 'if-none-match': etag ?? '' });
      const fast = await s.get('/api/public/scores', { headers: conditional(304) });
      const routed = await s.get('/api/public/scores?', { headers: conditional(305) });
      expect([fast.status, routed.status]).toEqual([304, 304]);
      expect(await fast.text()).toBe('');
      expect(comparable(fast)).toEqual(comparable(routed));
      const get = await s.get('/api/public/scores', { headers: { 'x-forwarded-for': clientIp(306) } });
      const head = await s.get('/api/public/scores', { method: 'HEAD', headers: { 'x-forwarded-for': clientIp(307) } });
      await get.body?.cancel();
      expect(head.status).toBe(200);
      // undici asks to close the connection after a HEAD (connection: close); the rest is the GET's.
      const { connection: _c, 'keep-alive': _k, ...headHeaders } = comparable(head);
      const { connection: _gc, 'keep-alive': _gk, ...getHeaders } = comparable(get);
      expect(head.headers.get('connection')).toBe('close');
      expect(headHeaders).toEqual(getHeaders);
    });

    it('a safe request id is echoed, an unsafe one replaced', async () => {
      const s = server();
      const safe = await s.get('/api/public/scores', {
        headers: { 'x-forwarded-for': clientIp(308), 'x-request-id': 'trace-1.a_B' },
      });
      expect(safe.headers.get('x-request-id')).toBe('trace-1.a_B');
      const unsafe = await s.get('/api/public/scores', {
        headers: { 'x-forwarded-for': clientIp(309), 'x-request-id': 'no spaces<>' },
      });
      expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      await Promise.all([safe.body?.cancel(), unsafe.body?.cancel()]);
    });

    it('only that request takes the fast path; a query, another method or a spent limit reaches the app', async () => {
      const s = server();
      const reached: string[] = [];
      const app = Object.assign(
        (req: IncomingMessage, res: ServerResponse) => {
          reached.push(`${req.method} ${req.url}`);
          res.writeHead(418).end();
        },
        { get: () => () => false },
      ) as unknown as Express;
      const listener = createServer(withPublicScoresFastPath(app, s.services)).listen(0, '127.0.0.1');
      await once(listener, 'listening');
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      try {
        const first = await fetch(`${url}/api/public/scores`);
        expect(first.status).toBe(200);
        expect(await first.text()).toContain('Example Sats Lending');
        // A servable as_of alone, written as a date or a timestamp, is answered here too.
        for (const asOf of [new Date().toISOString(), encodeURIComponent(new Date().toISOString()), '2026-04-01']) {
          const dated = await fetch(`${url}/api/public/scores?as_of=${asOf}`);
          expect(dated.status, asOf).toBe(200);
          await dated.body?.cancel();
        }
        for (const [method, path] of [
          ['GET', '/api/public/scores?as_of=yesterday'],
          ['GET', '/api/public/scores?as_of=2999-01-01'],
          ['GET', '/api/public/scores?as_of=2026-03-31'],
          ['GET', '/api/public/scores?as_of=%E0%A4%A'],
          ['GET', '/api/public/scores?as_of=2026-04-01&limit=1'],
          ['GET', '/api/public/scores?as_of=2026-04-01&as_of=2026-04-02'],
          ['GET', '/api/public/scores?x=1'],
          ['HEAD', '/api/public/scores'],
          ['OPTIONS', '/api/public/scores'],
          ['GET', '/api/public/scores/'],
          ['GET', '/API/public/scores'],
        ] as const) {
          expect((await fetch(`${url}${path}`, { method })).status).toBe(418);
        }
        // The same client address, one budget: 116 more served before the app is asked to refuse.
        for (let i = 0; i < 116; i++) {
          const res = await fetch(`${url}/api/public/scores`);
          expect(res.status).toBe(200);
          await res.body?.cancel();
        }
        expect(reached).toHaveLength(11);
        expect((await fetch(`${url}/api/public/scores`)).status).toBe(418);
        expect(reached.at(-1)).toBe('GET /api/public/scores');
      } finally {
        listener.closeAllConnections();
        await new Promise((resolve) => listener.close(resolve));
      }
    });
  });

  describe('pages of the public list (limit, cursor)', () => {
    const NAMES = 7;
    const server = useServer(
      engine,
      async (s) => {
        for (let n = 1; n <= NAMES; n++)
          await publish(s, variantOf(example('worked-example'), n, { name: `Page ${n % 3} ${n}` }));
      },
      { env: { TRUST_PROXY: 'true' } },
    );
    const ip = (n: number) => ({ 'x-forwarded-for': clientIp(500 + n) });
    const PageSchema = PublicScoresResponseSchema.strict();

    it('walked with limit and the next cursor (or the Link header), the pages hold the whole list once each, in order', async () => {
      const s = server();
      const whole = await getScores(s, ip(0));
      expect(whole.body).not.toHaveProperty('next_cursor');
      expect(whole.body.data.map((p) => p.name)).toEqual([...whole.body.data.map((p) => p.name)].sort());
      for (const limit of [1, 2, 3, 7, 500]) {
        const seen: string[] = [];
        let path: string | null = `/api/public/scores?limit=${limit}`;
        for (let pages = 0; path !== null; pages++) {
          expect(pages).toBeLessThanOrEqual(NAMES);
          const res = await s.get(path, { headers: ip(limit) });
          const body = await expectJson(res, PageSchema);
          expect(body.data.length).toBeLessThanOrEqual(limit);
          seen.push(...body.data.map((p) => p.id));
          const next = nextLinkOf(res);
          expect(next === null).toBe(body.next_cursor === null);
          if (next !== null) expect(next).toBe(`/api/public/scores?limit=${limit}&cursor=${body.next_cursor}`);
          path = next;
        }
        expect(seen).toEqual(whole.body.data.map((p) => p.id));
      }
    });

    it('a cursor alone gives pages of 100; each page has its own strong ETag and answers 304 to it', async () => {
      const s = server();
      const first = await s.get('/api/public/scores?limit=3', { headers: ip(20) });
      const body = await expectJson(first, PageSchema);
      const rest = await s.get(`/api/public/scores?cursor=${body.next_cursor}`, { headers: ip(20) });
      const restBody = await expectJson(rest, PageSchema);
      expect(restBody.data).toHaveLength(NAMES - 3);
      expect(restBody.next_cursor).toBeNull();
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(etag).not.toBe(rest.headers.get('etag'));
      const again = await s.get('/api/public/scores?limit=3', { headers: { ...ip(20), 'if-none-match': etag ?? '' } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      const weak = await s.get('/api/public/scores?limit=3', { headers: { ...ip(21), 'if-none-match': `W/${etag}` } });
      expect(weak.status).toBe(304);
    });

    it('bad paging parameters get 400 naming the parameter', async () => {
      const s = server();
      for (const [query, path] of [
        ['limit=0', 'query.limit'],
        ['limit=501', 'query.limit'],
        ['limit=ten', 'query.limit'],
        ['limit=1.5', 'query.limit'],
        ['cursor=***', 'query.cursor'],
        ['cursor=bm90LWpzb24', 'query.cursor'],
        ['cursor=e30', 'query.cursor'],
        ['page=2', 'query.page'],
        ['limit=1&limit=2', 'query.limit'],
      ] as const) {
        await expectInvalid(await s.get(`/api/public/scores?${query}`, { headers: ip(30) }), [path]);
      }
    });
  });
});

describe('headlinesAfter: the page after a position, found by binary search', () => {
  const h = (name: string, id: string) => ({ name, id }) as unknown as Parameters<typeof headlinesAfter>[0][number];
  const list = [h('A', '1'), h('B', '1'), h('B', '3'), h('C', '2'), h('D', '1')];
  it('starts after the position, also when its provider has left the list since', () => {
    expect(headlinesAfter(list, undefined, 2)).toEqual({ page: [list[0], list[1]], more: true });
    expect(headlinesAfter(list, { name: 'B', id: '1' }, 2)).toEqual({ page: [list[2], list[3]], more: true });
    expect(headlinesAfter(list, { name: 'B', id: '2' }, 5)).toEqual({ page: [list[2], list[3], list[4]], more: false });
    expect(headlinesAfter(list, { name: 'Bz', id: '0' }, 5)).toEqual({ page: [list[3], list[4]], more: false });
    expect(headlinesAfter(list, { name: 'E', id: '0' }, 5)).toEqual({ page: [], more: false });
    expect(headlinesAfter(list, { name: '', id: '' }, 5)).toEqual({ page: list, more: false });
  });
});
