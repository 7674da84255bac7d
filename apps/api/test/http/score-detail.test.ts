import { LIMITATIONS_DISCLOSURE, RiskIndicatorSchema } from '@svc/contracts';
import { pathToNextBand } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import {
  engineIndicator,
  example,
  framework,
  LOW_BAND_ID,
  STALE_ID,
  UNKNOWN_PROVIDER_ID,
  validated,
  WORKED_ID,
} from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const APPROVED_AT = '2026-06-02T10:00:00.000Z';

describe.each(engines)('GET /api/v1/scores/{providerId} on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    await publish(s, example('low-band'));
    expect(await s.publish(example('stale-evidence'))).toBe('refused');
    expect(await s.publish(example('missing-inputs'))).toBe('refused');
    key = await s.key('PROFESSIONAL');
  });

  keyedRouteSecurity('getScore', server, () => `/api/v1/scores/${WORKED_ID}`);

  describe('happy path', () => {
    it('the worked example scores 78.46 MEDIUM with every section 9 field', async () => {
      const before = Date.now();
      const r = await expectJson(await server().get(`/api/v1/scores/${WORKED_ID}`, { key }), RiskIndicatorSchema);
      expect(r.provider_id).toBe(WORKED_ID);
      expect(r.id).toBe(WORKED_ID);
      expect(r.name).toBe('Example Sats Lending');
      expect(r.final_score).toBe(78.46);
      expect(r.risk_band).toBe('MEDIUM');
      expect(r.confidence).toBe(1);
      expect(r.publishable).toBe(true);
      expect(r.framework_version).toBe('DCRF v1.0');
      expect(r.criterion_scores).toHaveLength(14);
      expect(r.svc_decision_object.next_band).toBe('LOW');
      expect(r.svc_decision_object.points_to_next_band).toBe(1.54);
      expect(r.svc_decision_object.hard_caps_fired).toEqual([]);
      expect(r.score_commentary.overview.length).toBeGreaterThan(0);
      expect(r.score_commentary.modules).toHaveLength(5);
      expect(r.score_verified_at).toBe(APPROVED_AT);
      expect(r.scored_at).toBe('2026-06-30T00:00:00Z');
      expect(Date.parse(r.published_at)).toBeLessThanOrEqual(before);
      expect(r.risk_indicator_id).toMatch(/^ri_[0-9a-f]{24}$/);
      expect(r.limitations_disclosure).toBe(LIMITATIONS_DISCLOSURE);
    });

    it("the served indicator is the engine's own output for the approved inputs, plus the publication fields", async () => {
      const r = await expectJson(await server().get(`/api/v1/scores/${WORKED_ID}`, { key }), RiskIndicatorSchema);
      const {
        score_verified_at: _v,
        published_at: _p,
        limitations_disclosure: _l,
        path_to_next_band,
        signature,
        outlook,
        watch,
        ...served
      } = r;
      expect(served).toEqual(JSON.parse(JSON.stringify(engineIndicator(example('worked-example')))));
      // The outlook and watch in force: the defaults, as no analyst action was approved.
      expect({ outlook, watch }).toEqual({ outlook: 'STABLE', watch: null });
      // The publication's signed statement, in short (the statements suite checks it verifies).
      expect(signature).toMatchObject({ kid: expect.stringMatching(/^[0-9a-f]{16}$/) });
      expect(signature?.statement_sha256).toMatch(/^[0-9a-f]{64}$/);
      // The path to the next band is the engine's too, computed at publication.
      expect(path_to_next_band).toEqual(
        JSON.parse(JSON.stringify(pathToNextBand(validated(example('worked-example')), framework))),
      );
    });

    it('a LOW provider has no next band and no points to it', async () => {
      const r = await expectJson(await server().get(`/api/v1/scores/${LOW_BAND_ID}`, { key }), RiskIndicatorSchema);
      expect(r.final_score).toBe(95.54);
      expect(r.risk_band).toBe('LOW');
      expect(r.svc_decision_object).not.toHaveProperty('next_band');
      expect(r.svc_decision_object).not.toHaveProperty('points_to_next_band');
    });

    it('an upper-case UUID in the path finds the same provider', async () => {
      const lower = await (await server().get(`/api/v1/scores/${WORKED_ID}`, { key })).text();
      const res = await server().get(`/api/v1/scores/${WORKED_ID.toUpperCase()}`, { key });
      const upper = await expectJson(res, RiskIndicatorSchema);
      expect(upper.provider_id).toBe(WORKED_ID);
      expect(upper).toEqual(JSON.parse(lower));
    });
  });

  describe('errors', () => {
    it('an unknown provider UUID gets 404 not_found', async () => {
      const problem = await expectProblem(
        await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key }),
        'not_found',
      );
      expect(problem.instance).toBe(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`);
    });

    it('a provider whose publication was refused (stale evidence, confidence below 0.5) gets 404', async () => {
      await expectProblem(await server().get(`/api/v1/scores/${STALE_ID}`, { key }), 'not_found');
    });

    for (const id of ['not-a-uuid', '12345', `${WORKED_ID}0`, WORKED_ID.replaceAll('-', ''), "1' or '1'='1"]) {
      it(`a malformed provider id gets 400 naming path.providerId (${id})`, async () => {
        await expectInvalid(await server().get(`/api/v1/scores/${encodeURIComponent(id)}`, { key }), [
          'path.providerId',
        ]);
      });
    }

    it('a query parameter the detail does not take gets 400', async () => {
      await expectInvalid(await server().get(`/api/v1/scores/${WORKED_ID}?limit=1`, { key }), ['query.limit']);
    });
  });

  describe('one admission (decision 0052)', () => {
    /** Counts the key lookups the server makes while `work` runs (the real authenticator, counted). */
    async function keyLookups(work: () => Promise<void>): Promise<number> {
      const auth = server().services.auth;
      const authenticate = auth.authenticate;
      let lookups = 0;
      auth.authenticate = (presented) => {
        lookups += 1;
        return authenticate.call(auth, presented);
      };
      try {
        await work();
      } finally {
        auth.authenticate = authenticate;
      }
      return lookups;
    }

    it('a 404 costs one key lookup and spends one request of the limit, not two', async () => {
      const first = await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key });
      await expectProblem(first, 'not_found');
      let second: Response | undefined;
      expect(
        await keyLookups(async () => {
          second = await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key });
        }),
      ).toBe(1);
      const answer = second as Response;
      await expectProblem(answer, 'not_found');
      const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'));
      expect(remaining(first) - remaining(answer)).toBe(1);
    });

    it('a 403 (a tier below the route) and a 401 cost one key lookup each', async () => {
      const free = await server().key('FREE');
      expect(
        await keyLookups(async () => {
          await expectProblem(await server().get(`/api/v1/scores/${WORKED_ID}`, { key: free }), 'insufficient_tier');
        }),
      ).toBe(1);
      expect(
        await keyLookups(async () => {
          await expectProblem(
            await server().get(`/api/v1/scores/${WORKED_ID}`, { key: `svc_live_${'B'.repeat(43)}` }),
            'invalid_api_key',
          );
        }),
      ).toBe(1);
    });

    it('a 200 costs one key lookup; a request the fast path does not take (fields) is admitted once by Express', async () => {
      for (const path of [`/api/v1/scores/${WORKED_ID}`, `/api/v1/scores/${WORKED_ID}?fields=final_score`]) {
        expect(
          await keyLookups(async () => {
            expect((await server().get(path, { key })).status).toBe(200);
          }),
        ).toBe(1);
      }
    });
  });
});
