import {
  type Endpoint,
  type EndpointName,
  endpoints,
  TIER_HOURLY_LIMIT,
  TIER_RANK,
  TIERS,
  type Tier,
} from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { expectNoLimitHeaders, expectProblem, limitHeadersOf } from '../support/responses.js';
import { expiredKey, revoke, type TestServer, UNKNOWN_KEY } from '../support/server.js';

/** The endpoints that need an API key: those with a tier in the contract. */
export type KeyedEndpointName = {
  [K in EndpointName]: (typeof endpoints)[K] extends { tier: Tier } ? K : never;
}[EndpointName];

/** How each keyed route is named in test names; the type makes it list every keyed endpoint. */
export const KEYED_ROUTE_LABELS: Record<KeyedEndpointName, string> = {
  listScores: 'the scores list',
  getScore: 'a score detail',
  getScoreHistory: 'a score history',
  getMethodology: 'the methodology',
  getComputation: 'a computation package',
  listIssuances: 'the issuances list',
  createWebhook: 'webhook registration',
  listWebhooks: 'the webhooks list',
  deleteWebhook: 'webhook removal',
  listDeliveries: 'a delivery log',
  redeliver: 'a redelivery',
  testWebhook: 'a webhook test',
  searchProviders: 'a provider search',
  compareScores: 'a comparison',
  exportScores: 'the CSV export',
  scorePortfolio: 'a portfolio score',
  portfolioMemo: 'a portfolio memo',
  whatIf: 'a what-if',
  getScoreMemo: 'a credit memo',
  getEvidenceSchedule: 'an evidence schedule',
  callMcpTool: 'an agent tool call',
};

/**
 * The auth and tier cases every keyed route shares: missing key, unknown and
 * revoked keys (one answer for both), each tier below the route's (403 naming
 * the required tier), each tier at or above it (2xx with the limit headers),
 * and 401 answers spending nobody's budget. `path` is read when the tests run.
 */
export function keyedRouteSecurity(
  name: KeyedEndpointName,
  server: () => TestServer,
  path: () => string,
  /** The JSON body of a route that takes one (a valid one: the tier cases expect success). */
  body?: () => unknown,
): void {
  const endpoint = endpoints[name];
  const request = (s: TestServer, init: RequestInit & { key?: string } = {}) => {
    if (!body) return s.get(path(), { ...init, method: endpoint.method.toUpperCase() });
    return s.get(path(), {
      ...init,
      method: endpoint.method.toUpperCase(),
      headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      body: JSON.stringify(body()),
    });
  };
  const required = endpoint.tier;
  const label = KEYED_ROUTE_LABELS[name];

  describe(`security: ${label}`, () => {
    it(`a request without a key gets 401 missing_api_key on ${label}`, async () => {
      const res = await request(server());
      await expectProblem(res, 'missing_api_key');
      expectNoLimitHeaders(res);
    });

    it(`an empty x-api-key header counts as missing on ${label}`, async () => {
      await expectProblem(await request(server(), { headers: { 'x-api-key': '' } }), 'missing_api_key');
    });

    it(`an unknown, a revoked and an expired key get the same 401 invalid_api_key on ${label} (no oracle)`, async () => {
      const s = server();
      const revoked = await s.key('ENTERPRISE');
      expect((await request(s, { key: revoked })).status).toBe(endpoint.success.status);
      await revoke(s, revoked);
      const expired = await expiredKey(s, 'ENTERPRISE');
      const unknownRes = await request(s, { key: UNKNOWN_KEY });
      const revokedRes = await request(s, { key: revoked });
      const garbledRes = await request(s, { key: 'not-a-key' });
      const expiredRes = await request(s, { key: expired });
      const answers = [];
      for (const res of [unknownRes, revokedRes, garbledRes, expiredRes]) {
        const { request_id: _id, ...rest } = await expectProblem(res, 'invalid_api_key');
        expectNoLimitHeaders(res);
        answers.push(rest);
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[3]).toEqual(answers[0]);
    });

    for (const tier of TIERS) {
      if (TIER_RANK[tier] < TIER_RANK[required]) {
        it(`a ${tier} key gets 403 insufficient_tier on ${label}, naming ${required}`, async () => {
          const s = server();
          const res = await request(s, { key: await s.key(tier) });
          const problem = await expectProblem(res, 'insufficient_tier');
          expect(problem.required_tier).toBe(required);
          expect(problem.detail).toContain(required);
        });
      } else {
        it(`a ${tier} key gets ${endpoint.success.status} on ${label} with its hourly limit in the headers`, async () => {
          const s = server();
          const res = await request(s, { key: await s.key(tier) });
          const text = await res.text();
          expect(res.status, text).toBe(endpoint.success.status);
          // The contract's media type: JSON, or the CSV, Markdown or HTML a route serves instead.
          const type = (endpoint as Endpoint).success.contentType ?? 'application/json';
          expect(res.headers.get('content-type')?.split(';')[0]).toBe(type);
          if ('schema' in endpoint.success) endpoint.success.schema.parse(JSON.parse(text));
          const limit = TIER_HOURLY_LIMIT[tier];
          const h = limitHeadersOf(res);
          expect(h.policy).toBe(`"hour";q=${limit};w=3600`);
          expect(h.rateLimit).toMatch(new RegExp(`^"hour";r=${limit - 1};t=\\d+$`));
          expect(h.limit).toBe(limit);
          expect(h.remaining).toBe(limit - 1);
        });
      }
    }

    it(`401 answers on ${label} spend nobody's budget`, async () => {
      const s = server();
      const key = await s.key('ENTERPRISE');
      const first = limitHeadersOf(await request(s, { key }));
      for (const attempt of [undefined, UNKNOWN_KEY, `${key}x`, key.slice(0, -1), key.toUpperCase()]) {
        const res = await request(s, attempt === undefined ? {} : { key: attempt });
        expect(res.status).toBe(401);
        expectNoLimitHeaders(res);
        await res.body?.cancel();
      }
      const second = limitHeadersOf(await request(s, { key }));
      expect(second.remaining).toBe((first.remaining ?? Number.NaN) - 1);
    });
  });
}
