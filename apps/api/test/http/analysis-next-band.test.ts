import {
  ComparisonSchema,
  type RiskIndicatorResponse,
  RiskIndicatorSchema,
  ScoresListResponseSchema,
  WhatIfResponseSchema,
} from '@svc/contracts';
import { type NextBandPath, type NextBandStep, pathToNextBand, suggestionPlaces } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { backfillNextBand } from '../../src/services/publishing/packaged.js';
import { increment, PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import { eventually } from '../limits/servers.js';
import {
  engineIndicator,
  example,
  framework,
  type InputsDoc,
  validated,
  variantOf,
  vary,
} from '../support/documents.js';
import { expectJson, PublicationsHistorySchema } from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const WORKED = example('worked-example'); // 78.46 MEDIUM: 8 of 14 criteria alone reach LOW
const LOW = example('low-band'); // 95.54 LOW: no next band
const CAPS = example('multiple-caps'); // 34.99 SEVERE: HC-01 holds every criterion but the freeze flag
/** Published first, then replaced by WORKED itself: WORKED has two history entries with different paths. */
const WORKED_BEFORE = vary(WORKED, { values: { collateral_coverage_ratio: 1.2 } });
/** The worked example with stale yield-source evidence: its suggestion renews it (suggested_as_of set). */
const STALE_C2 = (() => {
  const doc = variantOf(WORKED, 1, { name: 'Stale Source Lending' });
  const item = doc.inputs.yield_source_disclosure;
  if (!item) throw new Error('the worked example has no yield_source_disclosure');
  item.as_of = '2024-01-31';
  return doc;
})();
/** The worked example without its duration gap: the one reachable step provides it. */
const GAPLESS = (() => {
  const doc = variantOf(WORKED, 2, { name: 'Gapless Lending' });
  delete doc.inputs.duration_gap_days;
  return doc;
})();

const DOCS = [WORKED, LOW, CAPS, STALE_C2, GAPLESS];
const idOf = (doc: InputsDoc) => doc.provider.id;
const enginePath = (doc: InputsDoc): NextBandPath => pathToNextBand(validated(doc), framework);
const docOf = (id: string): InputsDoc => {
  const doc = DOCS.find((d) => idOf(d) === id);
  if (!doc) throw new Error(`no test document for ${id}`);
  return doc;
};
const stepOf = (path: NextBandPath | RiskIndicatorResponse['path_to_next_band'], criterionId: string) => {
  const step = path.steps.find((s) => s.criterion_id === criterionId);
  if (!step) throw new Error(`no step for ${criterionId}`);
  return step;
};

/** The what-if body that applies a step's suggestion: `{value, as_of}` when it renews the evidence. */
function overrideOf(step: Pick<NextBandStep, 'input_key' | 'suggested_value' | 'suggested_as_of'>) {
  const value = step.suggested_value;
  return { [step.input_key]: step.suggested_as_of === null ? value : { value, as_of: step.suggested_as_of } };
}

async function publishAll(s: TestServer): Promise<void> {
  for (const doc of [WORKED_BEFORE, ...DOCS]) await publish(s, doc);
}

describe.each(engines)('path_to_next_band in authenticated indicators on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await publishAll(s);
    key = await s.key('PROFESSIONAL');
  });

  const detail = async (id: string) =>
    expectJson(await server().get(`/api/v1/scores/${id}`, { key }), RiskIndicatorSchema);
  const whatIf = async (id: string, inputs: unknown) =>
    expectJson(await server().send('POST', `/api/v1/scores/${id}/what-if`, { inputs }, key), WhatIfResponseSchema);

  describe('where it is served', () => {
    it('the detail of the worked example carries the engine’s path for the same document', async () => {
      const served = (await detail(idOf(WORKED))).path_to_next_band;
      const path = enginePath(WORKED);
      expect(served).toEqual(path);
      expect(served).toMatchObject({ current_score: 78.46, current_band: 'MEDIUM', next_band: 'LOW' });
      expect(served.next_band_min_score).toBe(80);
      expect(served.steps.map((s) => s.criterion_id)).toEqual(framework.definition.criteria.map((c) => c.id));
      expect(served.steps.filter((s) => s.reachable).map((s) => s.criterion_id)).toEqual([
        'A1',
        'A2',
        'A3',
        'B1',
        'C1',
        'C2',
        'D1',
        'D2',
      ]);
      // The smallest collateral coverage that alone reaches 80.00, at 4 places.
      expect(stepOf(served, 'A1')).toMatchObject({
        current_value: 1.35,
        suggested_value: 1.4778,
        suggested_as_of: null,
        resulting_score: 80,
        resulting_band: 'LOW',
        reachable: true,
        reason: null,
      });
    });

    it('every indicator of the scores list carries the engine’s path for its document', async () => {
      const body = await expectJson(await server().get('/api/v1/scores', { key }), ScoresListResponseSchema);
      expect(body.next_cursor).toBeNull();
      expect(body.data.map((d) => d.id).sort()).toEqual(DOCS.map(idOf).sort());
      for (const indicator of body.data) {
        expect(indicator.path_to_next_band, indicator.name).toEqual(enginePath(docOf(indicator.id)));
      }
    });

    it('every history entry carries the path of the document it was published from', async () => {
      const body = await expectJson(
        await server().get(`/api/v1/scores/${idOf(WORKED)}/history`, { key }),
        PublicationsHistorySchema,
      );
      const byIndicator = new Map(
        [WORKED, WORKED_BEFORE].map((doc) => [engineIndicator(doc).risk_indicator_id, enginePath(doc)]),
      );
      expect(body.data.map((d) => d.risk_indicator_id)).toEqual([...byIndicator.keys()]);
      for (const entry of body.data) {
        expect(entry.path_to_next_band).toEqual(byIndicator.get(entry.risk_indicator_id));
      }
      const [now, then] = body.data;
      expect(now?.path_to_next_band).not.toEqual(then?.path_to_next_band);
      expect(then?.path_to_next_band.current_score).toBe(engineIndicator(WORKED_BEFORE).final_score);
    });

    it('the indicators of a comparison carry their paths', async () => {
      const ids = [idOf(WORKED), idOf(LOW), idOf(CAPS)];
      const body = await expectJson(
        await server().get(`/api/v1/scores/compare?ids=${ids.join(',')}`, { key }),
        ComparisonSchema,
      );
      expect(body.indicators.map((i) => i.id)).toEqual(ids);
      for (const indicator of body.indicators) {
        expect(indicator.path_to_next_band, indicator.name).toEqual(enginePath(docOf(indicator.id)));
      }
    });
  });

  describe('what it says', () => {
    it('every reachable step of every provider, applied through POST what-if, gives its score and the next band', async () => {
      let applied = 0;
      for (const doc of DOCS) {
        const path = (await detail(idOf(doc))).path_to_next_band;
        for (const step of path.steps.filter((st) => st.reachable)) {
          const label = `${doc.provider.name} ${step.criterion_id}`;
          const body = await whatIf(idOf(doc), overrideOf(step));
          expect([body.what_if.final_score, body.what_if.risk_band], label).toEqual([
            step.resulting_score,
            step.resulting_band,
          ]);
          expect(body.what_if.risk_band, label).toBe(path.next_band);
          expect(body.what_if.final_score, label).toBeGreaterThanOrEqual(path.next_band_min_score as number);
          expect(
            body.changes.criteria.map((c) => c.criterion_id),
            label,
          ).toEqual([step.criterion_id]);
          applied++;
        }
      }
      // WORKED 8, LOW none, CAPS 1 (the freeze flag), STALE_C2 8, GAPLESS 1.
      expect(applied).toBe(18);
    });

    it('one unit less of a numeric suggestion, through POST what-if, stays below the next band', async () => {
      const path = (await detail(idOf(WORKED))).path_to_next_band;
      const numeric = path.steps.filter((s) => s.reachable && typeof s.suggested_value === 'number');
      expect(numeric.map((s) => s.criterion_id)).toEqual(['A1', 'C1', 'D1', 'D2']);
      for (const step of numeric) {
        const criterion = framework.definition.criteria.find((c) => c.id === step.criterion_id);
        if (!criterion) throw new Error(`no criterion ${step.criterion_id}`);
        const unit = 10 ** suggestionPlaces(criterion);
        const [now, suggested] = [step.current_value as number, step.suggested_value as number].map((v) =>
          Math.round(v * unit),
        );
        const less = (suggested as number) - Math.sign((suggested as number) - (now as number));
        const body = await whatIf(idOf(WORKED), { [step.input_key]: less / unit });
        expect(body.what_if.risk_band, `${step.input_key} = ${less / unit}`).toBe(path.current_band);
        expect(body.what_if.final_score).toBeLessThan(path.next_band_min_score as number);
      }
    });

    it('a suggestion that renews stale evidence carries suggested_as_of, and {value, as_of} applies it', async () => {
      const path = (await detail(idOf(STALE_C2))).path_to_next_band;
      expect(path).toEqual(enginePath(STALE_C2));
      const c2 = stepOf(path, 'C2');
      expect(c2).toMatchObject({
        suggested_value: 'position_level_monthly',
        suggested_as_of: STALE_C2.evaluation_date,
        reachable: true,
      });
      for (const step of path.steps.filter((s) => s.reachable && s.criterion_id !== 'C2')) {
        expect(step.suggested_as_of, step.criterion_id).toBeNull();
      }
      const body = await whatIf(idOf(STALE_C2), overrideOf(c2));
      expect([body.what_if.final_score, body.what_if.risk_band]).toEqual([c2.resulting_score, c2.resulting_band]);
      expect(body.what_if.risk_band).toBe('LOW');
      const scored = body.what_if.criterion_scores.find((c) => c.criterion_id === 'C2');
      expect(scored?.as_of).toBe(STALE_C2.evaluation_date);
    });

    it('a missing input’s suggestion provides it on the evaluation date, and what-if agrees', async () => {
      const path = (await detail(idOf(GAPLESS))).path_to_next_band;
      expect(path).toEqual(enginePath(GAPLESS));
      const reachable = path.steps.filter((s) => s.reachable);
      expect(reachable.map((s) => [s.criterion_id, s.current_value, s.suggested_as_of])).toEqual([
        ['D2', null, GAPLESS.evaluation_date],
      ]);
      const [d2] = reachable as [NextBandStep];
      const body = await whatIf(idOf(GAPLESS), overrideOf(d2));
      expect([body.what_if.final_score, body.what_if.risk_band]).toEqual([d2.resulting_score, d2.resulting_band]);
      expect(body.what_if.risk_band).toBe(path.next_band);
    });

    it('the summary names each change that alone reaches the next band', async () => {
      const path = (await detail(idOf(WORKED))).path_to_next_band;
      expect(path.summary).toContain('78.46 (MEDIUM) is 1.54 points below LOW (80.00)');
      for (const step of path.steps.filter((s) => s.reachable)) {
        expect(path.summary).toContain(`${step.input_key} ${String(step.suggested_value)}`);
      }
    });

    it('in the best band there is no next band, said once: no steps, one summary', async () => {
      const path = (await detail(idOf(LOW))).path_to_next_band;
      expect(path).toEqual(enginePath(LOW));
      expect(path).toEqual({
        current_score: 95.54,
        current_band: 'LOW',
        next_band: null,
        next_band_min_score: null,
        steps: [],
        summary: '95.54 is in LOW, the best band: there is no next band.',
      });
    });

    it('under multiple caps the unreachable steps name the cap that binds, and lifting the freeze reaches HIGH', async () => {
      const path = (await detail(idOf(CAPS))).path_to_next_band;
      expect(path).toEqual(enginePath(CAPS));
      expect(path).toMatchObject({ current_score: 34.99, current_band: 'SEVERE', next_band: 'HIGH' });
      const unreachable = path.steps.filter((s) => !s.reachable);
      expect(unreachable).toHaveLength(13);
      for (const step of unreachable) {
        expect(step.reason, step.criterion_id).toMatch(/\bcaps? HC-\d{2}\b/);
        expect(step.reason, step.criterion_id).toContain('HC-01');
        expect(step.suggested_value).toBeNull();
      }
      const e4 = stepOf(path, 'E4');
      expect(e4).toMatchObject({ current_value: true, suggested_value: false, reachable: true, reason: null });
      const body = await whatIf(idOf(CAPS), overrideOf(e4));
      expect([body.what_if.final_score, body.what_if.risk_band]).toEqual([e4.resulting_score, e4.resulting_band]);
      expect([body.what_if.final_score, body.what_if.risk_band]).toEqual([49.99, 'HIGH']);
    });
  });
});

describe.each(engines)('the start-up backfill of path_to_next_band on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await publishAll(s);
    key = await s.key('PROFESSIONAL');
  });

  it('a new instance over a store with NULL paths fills them in again, equal to those computed at publication', async () => {
    const s = server();
    const db = s.services.store.db;
    const stored = async () =>
      new Map(
        (await db.selectFrom('risk_indicators').select(['risk_indicator_id', 'path_to_next_band']).execute()).map(
          (r) => [r.risk_indicator_id, r.path_to_next_band],
        ),
      );
    const served = async (base: string, id: string) => {
      const res = await fetch(`${base}/api/v1/scores/${id}`, { headers: { 'x-api-key': key } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const history = async (base: string, id: string) =>
      expectJson(
        await fetch(`${base}/api/v1/scores/${id}/history`, { headers: { 'x-api-key': key } }),
        PublicationsHistorySchema,
      );

    const original = await stored();
    expect(original.size).toBe(DOCS.length + 1);
    for (const [id, text] of original) expect(text, id).not.toBeNull();
    const originalServed = new Map<string, unknown>();
    for (const doc of DOCS) originalServed.set(idOf(doc), (await served(s.url, idOf(doc))).path_to_next_band);
    const originalHistory = await history(s.url, idOf(WORKED));

    // As a store written before the engine computed paths at publication holds them (a store from before this version
    // of the service is at another publication version than the bytes an instance keeps: moved on here by hand).
    await db.updateTable('risk_indicators').set({ path_to_next_band: null }).execute();
    await increment(db, PUBLICATION_VERSION);
    for (const [id, text] of await stored()) expect(text, id).toBeNull();
    await eventually(async () => (await served(s.url, idOf(WORKED))).path_to_next_band === null, 5000);
    expect((await served(s.url, idOf(WORKED))).path_to_next_band).toBeNull();
    const versionBefore = await readMeta(db, PUBLICATION_VERSION);

    const instance = await s.startInstance();
    expect(await stored()).toEqual(original);
    // The backfill moved the publication version on, so the first instance drops the bytes it kept.
    expect(Number(await readMeta(db, PUBLICATION_VERSION))).toBe(Number(versionBefore) + 1);
    await eventually(async () => (await served(s.url, idOf(WORKED))).path_to_next_band !== null, 5000);
    expect((await served(s.url, idOf(WORKED))).path_to_next_band).toEqual(originalServed.get(idOf(WORKED)));
    for (const doc of DOCS) {
      const body = RiskIndicatorSchema.parse(await served(instance.url, idOf(doc)));
      expect(body.path_to_next_band, doc.provider.name).toEqual(originalServed.get(idOf(doc)));
      expect(body.path_to_next_band, doc.provider.name).toEqual(enginePath(doc));
    }
    expect(await history(instance.url, idOf(WORKED))).toEqual(originalHistory);
    // Filled once: another pass finds nothing to do.
    expect(await backfillNextBand(s.services.store)).toBe(0);
  });
});
