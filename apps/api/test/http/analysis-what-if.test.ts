import {
  ChangelogResponseSchema,
  PublicScoresResponseSchema,
  RiskIndicatorSchema,
  ScoreHistoryResponseSchema,
  type WhatIfResponse,
  WhatIfResponseSchema,
} from '@svc/contracts';
import { applyOverrides, indicatorChanges, type RiskIndicator, score } from '@svc/methodology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import { ctxOf } from '../support/context.js';
import {
  engineIndicator,
  example,
  framework,
  type InputsDoc,
  UNKNOWN_PROVIDER_ID,
  validated,
  variantOf,
  vary,
} from '../support/documents.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const WORKED = example('worked-example'); // 78.46 MEDIUM
const LOW = example('low-band'); // 95.54 LOW
const CAPS = example('multiple-caps'); // 34.99 SEVERE
/** Published first, then replaced by WORKED itself: WORKED has two history entries. */
const WORKED_BEFORE = vary(WORKED, { values: { collateral_coverage_ratio: 1.2 } });
/** The worked example without its duration gap: an override can provide a missing input. */
const GAPLESS = (() => {
  const doc = variantOf(WORKED, 1, { name: 'Gapless Lending' });
  delete doc.inputs.duration_gap_days;
  return doc;
})();
const WITHDRAWN = variantOf(WORKED, 2, { name: 'Withdrawn Sats' });

const idOf = (doc: InputsDoc) => doc.provider.id;
const whatIfPath = (id: string) => `/api/v1/scores/${id}/what-if`;

/** What the engine makes of the document with the overrides applied, computed here apart from the service. */
function engineWhatIf(
  doc: InputsDoc,
  overrides: Record<string, unknown>,
): { before: RiskIndicator; after: RiskIndicator } {
  const document = validated(doc);
  const applied = applyOverrides(document, overrides, framework);
  if (!applied.ok) throw new Error(`the overrides do not apply: ${JSON.stringify(applied.problems)}`);
  return { before: score(document, framework), after: score(applied.document, framework) };
}

/** The engine's indicator as a what-if serves it: no risk_indicator_id, since nothing was published. */
function hypothetical(indicator: RiskIndicator): Omit<RiskIndicator, 'risk_indicator_id'> {
  const { risk_indicator_id: _id, ...rest } = indicator;
  return rest;
}

describe.each(engines)('POST /api/v1/scores/{providerId}/what-if on %s', (engine) => {
  let key = '';
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const server = useServer(engine, async (s) => {
    for (const doc of [WORKED_BEFORE, WORKED, LOW, CAPS, GAPLESS, WITHDRAWN]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: idOf(WITHDRAWN),
      reason: 'ceased lending',
    });
    s.services.snapshot.invalidate();
    key = await s.key('PROFESSIONAL');
    // A subscriber to every indicator event, so anything published or changed would write to the outbox.
    const hook = await s.send(
      'POST',
      '/api/v1/webhooks',
      {
        url: receiver.url,
        events: ['risk_indicator.published', 'risk_indicator.band_changed', 'risk_indicator.withdrawn'],
      },
      key,
    );
    expect(hook.status, await hook.text()).toBe(201);
  });

  const whatIf = async (id: string, inputs: unknown): Promise<WhatIfResponse> =>
    expectJson(await server().send('POST', whatIfPath(id), { inputs }, key), WhatIfResponseSchema);
  const detail = async (id: string) =>
    expectJson(await server().get(`/api/v1/scores/${id}`, { key }), RiskIndicatorSchema);

  keyedRouteSecurity(
    'whatIf',
    server,
    () => whatIfPath(idOf(WORKED)),
    () => ({ inputs: { collateral_coverage_ratio: 1.5 } }),
  );

  describe('happy path', () => {
    it('one override: collateral coverage 1.5 lifts the worked example from 78.46 MEDIUM to 80.26 LOW, as the engine says', async () => {
      const overrides = { collateral_coverage_ratio: 1.5 };
      const body = await whatIf(idOf(WORKED), overrides);
      const { before, after } = engineWhatIf(WORKED, overrides);
      expect([before.final_score, before.risk_band]).toEqual([78.46, 'MEDIUM']);
      expect([after.final_score, after.risk_band]).toEqual([80.26, 'LOW']);
      const current = await detail(idOf(WORKED));

      expect(body.provider_id).toBe(idOf(WORKED));
      expect(body.stored).toBe(false);
      expect(body.base).toEqual({
        risk_indicator_id: current.risk_indicator_id,
        final_score: 78.46,
        risk_band: 'MEDIUM',
      });
      expect(body.what_if).toEqual(hypothetical(after));
      expect([body.what_if.final_score, body.what_if.risk_band]).toEqual([80.26, 'LOW']);
      expect('risk_indicator_id' in body.what_if).toBe(false);
      // A1 is linear between (1.20, 60) and (1.50, 90): 1.35 scores 75, 1.5 scores 90.
      expect(body.changes).toEqual({
        final_score_delta: 1.8,
        band_from: 'MEDIUM',
        band_to: 'LOW',
        criteria: [
          {
            criterion_id: 'A1',
            input_key: 'collateral_coverage_ratio',
            value_before: 1.35,
            value_after: 1.5,
            points_before: 75,
            points_after: 90,
            points_delta: 15,
          },
        ],
      });
      expect(body.changes).toEqual(indicatorChanges(before, after));
      expect(body.limitations_disclosure).toMatch(/not credit ratings/);
    });

    it('the response is a strict WhatIfResponse: the hypothetical has no id, path or publication fields', async () => {
      const res = await server().send('POST', whatIfPath(idOf(WORKED)), { inputs: { redemption_notice_days: 0 } }, key);
      const raw = JSON.parse(await res.text()) as Record<string, Record<string, unknown>>;
      expect(res.status).toBe(200);
      WhatIfResponseSchema.strict().parse(raw);
      for (const field of ['risk_indicator_id', 'path_to_next_band', 'published_at', 'score_verified_at']) {
        expect(raw.what_if, field).not.toHaveProperty(field);
      }
    });

    it('an override that changes nothing lists no criterion and a zero delta', async () => {
      const body = await whatIf(idOf(WORKED), { collateral_coverage_ratio: 1.35 });
      expect(body.changes).toEqual({ final_score_delta: 0, band_from: 'MEDIUM', band_to: 'MEDIUM', criteria: [] });
      expect(body.what_if.final_score).toBe(78.46);
    });

    it('the {value, as_of} form moves the evidence date as well as the value', async () => {
      const overrides = { collateral_coverage_ratio: { value: 1.5, as_of: '2026-06-29' } };
      const body = await whatIf(idOf(WORKED), overrides);
      const { before, after } = engineWhatIf(WORKED, overrides);
      expect(body.what_if).toEqual(hypothetical(after));
      expect(body.changes).toEqual(indicatorChanges(before, after));
      const a1 = body.what_if.criterion_scores.find((c) => c.criterion_id === 'A1');
      expect([a1?.input_value, a1?.as_of]).toEqual([1.5, '2026-06-29']);
      expect(body.changes.criteria.map((c) => c.criterion_id)).toEqual(['A1']);
    });

    it('{value} without as_of keeps the approved evidence date', async () => {
      const body = await whatIf(idOf(WORKED), { collateral_coverage_ratio: { value: 1.5 } });
      const plain = await whatIf(idOf(WORKED), { collateral_coverage_ratio: 1.5 });
      expect(body.what_if).toEqual(plain.what_if);
      const a1 = body.what_if.criterion_scores.find((c) => c.criterion_id === 'A1');
      expect(a1?.as_of).toBe(WORKED.inputs.collateral_coverage_ratio?.as_of);
    });

    it('several overrides change exactly their criteria, in framework order', async () => {
      const overrides = {
        redemption_notice_days: 0,
        proof_of_reserves: 'onchain_continuous',
        collateral_coverage_ratio: 1.2,
      };
      const body = await whatIf(idOf(WORKED), overrides);
      const { before, after } = engineWhatIf(WORKED, overrides);
      expect(body.what_if).toEqual(hypothetical(after));
      expect(body.changes).toEqual(indicatorChanges(before, after));
      expect(body.changes.criteria.map((c) => [c.criterion_id, c.value_before, c.value_after])).toEqual([
        ['A1', 1.35, 1.2],
        ['A2', 'third_party_quarterly', 'onchain_continuous'],
        ['D1', 7, 0],
      ]);
      for (const c of body.changes.criteria) {
        expect(c.points_delta, c.criterion_id).toBeCloseTo(c.points_after - c.points_before, 10);
      }
      expect(body.changes.final_score_delta).toBe(
        (Math.round(after.final_score * 100) - Math.round(78.46 * 100)) / 100,
      );
    });

    it('a worse input lowers the band: collateral coverage 0.9 fires its cap', async () => {
      const overrides = { collateral_coverage_ratio: 0.9 };
      const body = await whatIf(idOf(WORKED), overrides);
      const { after } = engineWhatIf(WORKED, overrides);
      expect(body.what_if).toEqual(hypothetical(after));
      expect(body.changes).toMatchObject({ band_from: 'MEDIUM', band_to: after.risk_band });
      expect(body.changes.final_score_delta).toBeLessThan(0);
    });

    it('an override can provide an input the approved document lacks', async () => {
      const overrides = { duration_gap_days: 16 };
      const body = await whatIf(idOf(GAPLESS), overrides);
      const { before, after } = engineWhatIf(GAPLESS, overrides);
      expect(body.what_if).toEqual(hypothetical(after));
      expect(body.changes).toEqual(indicatorChanges(before, after));
      expect(body.changes.criteria.map((c) => [c.criterion_id, c.value_before, c.value_after])).toEqual([
        ['D2', null, 16],
      ]);
    });

    it('the current indicator is the base, not an older publication', async () => {
      const body = await whatIf(idOf(WORKED), { collateral_coverage_ratio: 1.5 });
      expect(body.base.final_score).toBe(engineIndicator(WORKED).final_score);
      expect(body.changes.criteria[0]?.value_before).toBe(1.35);
    });

    it('an upper-case provider id names the same provider', async () => {
      const lower = await whatIf(idOf(WORKED), { collateral_coverage_ratio: 1.5 });
      const upper = await whatIf(idOf(WORKED).toUpperCase(), { collateral_coverage_ratio: 1.5 });
      expect(upper).toEqual(lower);
    });

    it('nothing is stored: the detail, history, change feed, public snapshot and webhook outbox are unchanged', async () => {
      const s = server();
      const db = s.services.store.db;
      const outbox = async () => (await db.selectFrom('webhook_events').select(['id', 'type']).execute()).length;
      const indicators = async () =>
        (await db.selectFrom('risk_indicators').select('risk_indicator_id').execute()).map((r) => r.risk_indicator_id);
      const observe = async () => {
        // Read the publication version now: an unchanged one serves the cached snapshot, with its ETag.
        s.services.snapshot.invalidate();
        const detailRes = await s.get(`/api/v1/scores/${idOf(WORKED)}`, { key });
        const historyRes = await s.get(`/api/v1/scores/${idOf(WORKED)}/history`, { key });
        const feedRes = await s.get('/api/public/changelog');
        const publicRes = await s.get('/api/public/scores');
        const history = ScoreHistoryResponseSchema.parse(JSON.parse(await historyRes.text()));
        const publicScores = PublicScoresResponseSchema.parse(JSON.parse(await publicRes.text()));
        return {
          detail: await detailRes.text(),
          historyLength: history.data.length,
          history,
          feed: ChangelogResponseSchema.parse(JSON.parse(await feedRes.text())),
          publicData: publicScores.data,
          publicEtag: publicRes.headers.get('etag'),
          publicCached: publicScores.cached,
          publicationVersion: await readMeta(db, PUBLICATION_VERSION),
          outbox: await outbox(),
          indicators: await indicators(),
        };
      };
      // Built once, so both observations below are of the cached snapshot.
      await (await s.get('/api/public/scores')).body?.cancel();
      const before = await observe();
      expect(before.publicCached).toBe(true);
      expect(before.historyLength).toBe(2);
      expect(before.feed.data.length).toBeGreaterThan(0);
      expect(before.publicEtag).not.toBeNull();

      const lifted = await whatIf(idOf(WORKED), { collateral_coverage_ratio: 1.5 });
      expect(lifted.changes.band_to).toBe('LOW');
      await whatIf(idOf(WORKED), { proof_of_reserves: { value: 'onchain_continuous', as_of: '2026-06-30' } });
      await whatIf(idOf(CAPS), { default_or_freeze_36m: false });

      const after = await observe();
      expect(after).toEqual(before);

      // The control: a real publication does reach every one of these, so the checks above can fail.
      const published = variantOf(WORKED, 50, { name: 'Control Lending' });
      await publish(s, published);
      expect(await outbox()).toBeGreaterThan(before.outbox);
      expect((await indicators()).length).toBe(before.indicators.length + 1);
      const feed = ChangelogResponseSchema.parse(JSON.parse(await (await s.get('/api/public/changelog')).text()));
      expect(feed.data.length).toBeGreaterThan(before.feed.data.length);
    });
  });

  describe('errors', () => {
    const send = (id: string, body: unknown) => server().send('POST', whatIfPath(id), body, key);

    it('an unknown input key gets 400 naming it', async () => {
      const problem = await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_ratio: 1.5 } }), [
        'body.inputs.collateral_ratio',
      ]);
      expect(problem.detail).toContain('collateral_ratio');
    });

    it('a value of the wrong type gets 400 naming the input', async () => {
      await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: 'high' } }), [
        'body.inputs.collateral_coverage_ratio',
      ]);
      await expectInvalid(await send(idOf(WORKED), { inputs: { default_or_freeze_36m: 'no' } }), [
        'body.inputs.default_or_freeze_36m',
      ]);
    });

    it('an out-of-range value gets 400 naming the input', async () => {
      await expectInvalid(await send(idOf(WORKED), { inputs: { largest_counterparty_exposure_pct: 150 } }), [
        'body.inputs.largest_counterparty_exposure_pct',
      ]);
      await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: -1 } }), [
        'body.inputs.collateral_coverage_ratio',
      ]);
      await expectInvalid(await send(idOf(WORKED), { inputs: { redemption_notice_days: 2.5 } }), [
        'body.inputs.redemption_notice_days',
      ]);
    });

    it('a value outside an enum gets 400 naming the input', async () => {
      await expectInvalid(await send(idOf(WORKED), { inputs: { proof_of_reserves: 'trust_me' } }), [
        'body.inputs.proof_of_reserves',
      ]);
    });

    it('every bad override is named at once', async () => {
      await expectInvalid(
        await send(idOf(WORKED), {
          inputs: {
            collateral_coverage_ratio: 'x',
            nonsense: 1,
            proof_of_reserves: 'trust_me',
            custody_model: 'vault',
          },
        }),
        [
          'body.inputs.collateral_coverage_ratio',
          'body.inputs.nonsense',
          'body.inputs.proof_of_reserves',
          'body.inputs.custody_model',
        ],
      );
    });

    it('an as_of that is not a date gets 400 naming it', async () => {
      await expectInvalid(
        await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: { value: 1.5, as_of: 'yesterday' } } }),
        ['body.inputs.collateral_coverage_ratio.as_of'],
      );
    });

    it('an as_of after the evaluation date gets 400 naming it', async () => {
      const problem = await expectInvalid(
        await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: { value: 1.5, as_of: '2027-01-01' } } }),
        ['body.inputs.collateral_coverage_ratio.as_of'],
      );
      expect(problem.errors?.[0]?.message).toMatch(/after the evaluation date/);
    });

    it('empty inputs get 400 naming body.inputs', async () => {
      const problem = await expectInvalid(await send(idOf(WORKED), { inputs: {} }), ['body.inputs']);
      expect(problem.errors?.[0]?.message).toMatch(/at least one/);
    });

    it('a body without inputs gets 400 saying they are required', async () => {
      const problem = await expectInvalid(await send(idOf(WORKED), {}), ['body.inputs']);
      expect(problem.errors?.[0]?.message).toBe('is required');
    });

    it('an extra field in the {value} object gets 400 naming the input', async () => {
      await expectInvalid(
        await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: { value: 1.5, source: 'me' } } }),
        ['body.inputs.collateral_coverage_ratio.source'],
      );
    });

    it('a {value} object without a value gets 400 naming the input', async () => {
      await expectInvalid(
        await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: { as_of: '2026-06-30' } } }),
        ['body.inputs.collateral_coverage_ratio'],
      );
    });

    it('a null value gets 400 naming the input: an override never removes an input', async () => {
      await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: null } }), [
        'body.inputs.collateral_coverage_ratio',
      ]);
      await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: { value: null } } }), [
        'body.inputs.collateral_coverage_ratio',
      ]);
    });

    it('an unknown top-level field gets 400 naming it', async () => {
      await expectInvalid(await send(idOf(WORKED), { inputs: { collateral_coverage_ratio: 1.5 }, store: true }), [
        'body.store',
      ]);
    });

    it('a provider nobody published gets 404', async () => {
      const problem = await expectProblem(
        await send(UNKNOWN_PROVIDER_ID, { inputs: { collateral_coverage_ratio: 1.5 } }),
        'not_found',
      );
      expect(problem.detail).toContain(UNKNOWN_PROVIDER_ID);
    });

    it('a withdrawn provider gets 404', async () => {
      await expectProblem(await send(idOf(WITHDRAWN), { inputs: { collateral_coverage_ratio: 1.5 } }), 'not_found');
    });

    it('a provider id that is not a UUID gets 400 naming it', async () => {
      await expectInvalid(await send('not-a-uuid', { inputs: { collateral_coverage_ratio: 1.5 } }), [
        'path.providerId',
      ]);
    });

    it('a body that is not JSON gets 400, and a text body 415', async () => {
      const s = server();
      const raw = (body: string, type: string) =>
        s.get(whatIfPath(idOf(WORKED)), { method: 'POST', key, headers: { 'content-type': type }, body });
      await expectInvalid(await raw('{"inputs": ', 'application/json'), ['body']);
      await expectProblem(
        await raw(JSON.stringify({ inputs: { collateral_coverage_ratio: 1.5 } }), 'text/plain'),
        'unsupported_media_type',
      );
    });
  });
});
