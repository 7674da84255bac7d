import { LIMITATIONS_DISCLOSURE, PublicScoreSchema, PublicScoresResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example, variantOf } from '../support/documents.js';
import { clientIp, expectJson, expectProblem, limitHeadersOf } from '../support/responses.js';
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
      for (const condition of [etag ?? '', `"nope", ${etag}`, '*']) {
        const res = await s.get('/api/public/scores', { headers: { 'if-none-match': condition } });
        expect(res.status, condition).toBe(304);
        expect(await res.text()).toBe('');
        expect(res.headers.get('etag')).toBe(etag);
        expect(res.headers.get('cache-control')).toBe('public, max-age=60');
        expect(res.headers.get('x-request-id')).not.toBeNull();
      }
    });

    it('If-None-Match with another ETag, or a weak form of the current one, gets the full answer', async () => {
      const s = server();
      const { etag } = await getScores(s);
      for (const condition of ['"something-else"', `W/${etag}`]) {
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
});
