import { EvidenceScheduleResponseSchema, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { evidenceSchedule, score, withEvaluationDate } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { CAPS_ID, example, framework, LOW_BAND_ID, UNKNOWN_PROVIDER_ID, WORKED_ID } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const Schema = EvidenceScheduleResponseSchema.strict();
const pathOf = (id: string, query = '') => `/api/v1/scores/${id}/evidence-schedule${query}`;
const worked = example('worked-example');

describe.each(engines)('GET /api/v1/scores/{providerId}/evidence-schedule on %s', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  let key = '';
  let riskIndicatorId = '';
  const server = useServer(
    engine,
    async (s) => {
      for (const name of ['worked-example', 'low-band', 'multiple-caps'] as const) await publish(s, example(name));
      await withdrawProvider(ctxOf(s.services.store, { clock }), { providerId: CAPS_ID, reason: 'ceased lending' });
      key = await s.key('PROFESSIONAL');
      riskIndicatorId = score(worked, framework).risk_indicator_id;
    },
    { clock },
  );
  const schedule = async (id: string, query = '') => expectJson(await server().get(pathOf(id, query), { key }), Schema);

  keyedRouteSecurity('getEvidenceSchedule', server, () => pathOf(WORKED_ID));

  describe('happy path', () => {
    it('by default looks 365 days ahead of today: the worked example passes 90 days, then 365 days with HC-07', async () => {
      clock.set(AFTER_EXAMPLES);
      const body = await schedule(WORKED_ID);
      expect(body).toMatchObject({
        provider_id: WORKED_ID,
        risk_indicator_id: riskIndicatorId,
        framework_version: 'DCRF v1.0',
        evaluation_date: '2026-06-30',
        start_date: '2026-08-01',
        end_date: '2027-08-01',
        days: 365,
        limitations_disclosure: LIMITATIONS_DISCLOSURE,
        first_band_change: { date: '2027-06-01', from: 'MEDIUM', to: 'ELEVATED' },
        not_publishable_from: '2027-06-01',
      });
      expect(body.current).toMatchObject({
        date: '2026-08-01',
        final_score: 78.46,
        risk_band: 'MEDIUM',
        confidence: 1,
      });
      expect(body.entries.map((e) => [e.date, e.reason_codes])).toEqual([
        ['2026-08-30', ['DECAY_STARTS']],
        ['2027-06-01', ['EVIDENCE_STALE', 'CAP_FIRES', 'SCORE_CHANGES', 'BAND_CHANGES', 'NOT_PUBLISHABLE']],
      ]);
      // Exactly the engine's schedule, and each date's figures are the engine's score of the inputs on that date.
      const { provider_id, risk_indicator_id, evaluation_date, limitations_disclosure, ...engineForm } = body;
      expect(engineForm).toEqual(evidenceSchedule(worked, framework, { start: '2026-08-01', days: 365 }));
      for (const e of body.entries) {
        const scored = score(withEvaluationDate(worked, e.date), framework);
        expect([e.final_score, e.risk_band, e.confidence, e.publishable]).toEqual([
          scored.final_score,
          scored.risk_band,
          scored.confidence,
          scored.publishable,
        ]);
      }
    });

    it('days bounds the horizon: the first entry is day 29, so days=29 holds it and days=28 holds nothing', async () => {
      clock.set(AFTER_EXAMPLES);
      const day29 = await schedule(WORKED_ID, '?days=29');
      expect(day29.entries.map((e) => e.date)).toEqual(['2026-08-30']);
      expect(day29.end_date).toBe('2026-08-30');
      const day28 = await schedule(WORKED_ID, '?days=28');
      expect(day28.entries).toEqual([]);
      expect([day28.first_band_change, day28.not_publishable_from]).toEqual([null, null]);
      expect((await schedule(WORKED_ID, '?days=730')).end_date).toBe('2028-07-31');
      expect((await schedule(WORKED_ID, '?days=1')).end_date).toBe('2026-08-02');
    });

    it('starts from today by the service clock: the day before HC-07, one day ahead shows the band change', async () => {
      clock.set('2027-05-31T23:59:00.000Z');
      const body = await schedule(WORKED_ID, '?days=1');
      expect(body.current).toMatchObject({
        date: '2027-05-31',
        risk_band: 'MEDIUM',
        confidence: 0.5,
        publishable: true,
      });
      expect(body.entries).toHaveLength(1);
      expect(body.entries[0]).toMatchObject({ date: '2027-06-01', risk_band: 'ELEVATED', publishable: false });
      expect(body.first_band_change).toEqual({ date: '2027-06-01', from: 'MEDIUM', to: 'ELEVATED' });
      clock.set(AFTER_EXAMPLES);
    });

    it("starts on the indicator's evaluation date when the clock is still the day before it", async () => {
      clock.set('2026-06-29T23:58:00.000Z');
      const body = await schedule(WORKED_ID, '?days=10');
      expect([body.start_date, body.current.date, body.end_date]).toEqual(['2026-06-30', '2026-06-30', '2026-07-10']);
      clock.set(AFTER_EXAMPLES);
    });

    it('an upper-case UUID gives the same schedule, for the lower-case provider id', async () => {
      clock.set(AFTER_EXAMPLES);
      const upper = await schedule(LOW_BAND_ID.toUpperCase(), '?days=100');
      expect(upper.provider_id).toBe(LOW_BAND_ID);
      expect(upper).toEqual(await schedule(LOW_BAND_ID, '?days=100'));
    });
  });

  describe('errors', () => {
    for (const [query, label] of [
      ['?days=0', 'zero'],
      ['?days=731', 'above 730'],
      ['?days=-5', 'negative'],
      ['?days=1.5', 'not a whole number'],
      ['?days=1e2', 'in exponent notation'],
      ['?days=0x10', 'in hexadecimal'],
      ['?days=abc', 'not a number'],
      ['?days=', 'empty'],
      ['?days=10&days=20', 'given twice'],
    ] as const) {
      it(`days ${label} gets 400 naming query.days`, async () => {
        await expectInvalid(await server().get(pathOf(WORKED_ID, query), { key }), ['query.days']);
      });
    }

    it('an unknown query parameter gets 400 naming it', async () => {
      await expectInvalid(await server().get(pathOf(WORKED_ID, '?day=10'), { key }), ['query.day']);
    });

    it('an unknown provider gets 404 not_found', async () => {
      await expectProblem(await server().get(pathOf(UNKNOWN_PROVIDER_ID), { key }), 'not_found');
    });

    it('a withdrawn provider (no indicator in force) gets 404 not_found', async () => {
      await expectProblem(await server().get(pathOf(CAPS_ID), { key }), 'not_found');
    });

    it('a malformed provider id gets 400 naming path.providerId', async () => {
      await expectInvalid(await server().get(pathOf('abc'), { key }), ['path.providerId']);
    });
  });
});
