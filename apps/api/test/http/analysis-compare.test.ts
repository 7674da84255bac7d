import { type Comparison, ComparisonSchema, type RiskIndicatorResponse, RiskIndicatorSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { ctxOf } from '../support/context.js';
import { example, type InputsDoc, UNKNOWN_PROVIDER_ID, variantOf, vary } from '../support/documents.js';
import { expectInvalid, expectJson } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const StrictComparisonSchema = ComparisonSchema.strict();

const WORKED = example('worked-example');
/** The same evidence as WORKED: every criterion ties with it. */
const TWIN = variantOf(WORKED, 1, { name: 'Worked Twin Lending' });
const LOW = example('low-band');
const CAPS = example('multiple-caps');
/** Six more, each with its own collateral coverage and operating history, so points differ. */
const VARIED: InputsDoc[] = [
  [1.1, 2],
  [1.2, 3],
  [1.5, 6],
  [1.8, 8],
  [2.0, 10],
  [1.05, 1],
].map(([coverage, years], n) =>
  vary(variantOf(WORKED, 10 + n, { name: `Varied Lending ${n}`, planner_type: n % 2 ? 'fiat' : 'btc' }), {
    values: { collateral_coverage_ratio: coverage as number, operating_history_years: years as number },
  }),
);
const WITHDRAWN = variantOf(LOW, 30, { name: 'Withdrawn Harbour' });

const CURRENT = [WORKED, TWIN, LOW, CAPS, ...VARIED];
const idOf = (doc: InputsDoc) => doc.provider.id;

/** max − min of figures with at most 4 decimals, computed in ten-thousandths so no binary rounding shows. */
function spread4(values: number[]): number {
  const units = values.map((v) => Math.round(v * 10_000));
  return (Math.max(...units) - Math.min(...units)) / 10_000;
}

describe.each(engines)('GET /api/v1/scores/compare on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [...CURRENT, WITHDRAWN]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: idOf(WITHDRAWN),
      reason: 'ceased lending',
    });
    key = await s.key('PROFESSIONAL');
  });

  const detail = async (id: string): Promise<RiskIndicatorResponse> =>
    expectJson(await server().get(`/api/v1/scores/${id}`, { key }), RiskIndicatorSchema);
  const compare = async (ids: string[]): Promise<Comparison> =>
    expectJson(await server().get(`/api/v1/scores/compare?ids=${ids.join(',')}`, { key }), StrictComparisonSchema);

  /** Every figure of a comparison checked against the indicators of the providers asked, in that order. */
  async function expectComparisonOf(body: Comparison, ids: string[]): Promise<void> {
    const details = await Promise.all(ids.map(detail));
    expect(body.indicators).toEqual(details);
    expect(body.providers).toEqual(
      details.map((d) => ({ provider_id: d.id, name: d.name, final_score: d.final_score, risk_band: d.risk_band })),
    );

    const finals = details.map((d) => d.final_score);
    const top = Math.max(...finals);
    const bottom = Math.min(...finals);
    expect(details.find((d) => d.id === body.final_score.highest)?.final_score).toBe(top);
    expect(details.find((d) => d.id === body.final_score.lowest)?.final_score).toBe(bottom);
    expect(body.final_score.spread).toBe((Math.round(top * 100) - Math.round(bottom * 100)) / 100);

    const criteria = details[0]?.criterion_scores ?? [];
    expect(body.criteria.map((c) => c.criterion_id)).toEqual(criteria.map((c) => c.criterion_id));
    expect(body.criteria).toHaveLength(14);
    for (const row of body.criteria) {
      const of = (d: RiskIndicatorResponse) => {
        const c = d.criterion_scores.find((x) => x.criterion_id === row.criterion_id);
        if (!c) throw new Error(`${d.id} has no criterion ${row.criterion_id}`);
        return c;
      };
      const first = of(details[0] as RiskIndicatorResponse);
      expect(row.criterion_label).toBe(first.criterion_label);
      expect(row.module_id).toBe(first.module_id);
      expect(row.weight).toBe(first.weight);
      expect(row.points, row.criterion_id).toEqual(details.map((d) => of(d).points));
      expect(row.contributions, row.criterion_id).toEqual(details.map((d) => of(d).contribution));
      expect(row.spread, row.criterion_id).toBe(spread4(row.points));
      expect(String(row.spread)).toMatch(/^\d+(\.\d{1,4})?$/);
      const most = Math.max(...row.points);
      expect(row.best, row.criterion_id).toEqual(details.filter((d) => of(d).points === most).map((d) => d.id));
    }

    const modules = details[0]?.score_commentary.modules ?? [];
    expect(body.modules.map((m) => [m.module_id, m.label])).toEqual(modules.map((m) => [m.module_id, m.label]));
    for (const row of body.modules) {
      const scores = details.map((d) => d.score_commentary.modules.find((m) => m.module_id === row.module_id)?.score);
      expect(row.scores, row.module_id).toEqual(scores);
      expect(row.spread, row.module_id).toBe(spread4(row.scores));
    }
  }

  keyedRouteSecurity('compareScores', server, () => `/api/v1/scores/compare?ids=${idOf(WORKED)},${idOf(LOW)}`);

  describe('happy path', () => {
    it('two providers side by side: points, contributions, module scores, spreads and leaders match their indicators', async () => {
      const ids = [idOf(LOW), idOf(WORKED)];
      const body = await compare(ids);
      await expectComparisonOf(body, ids);
      expect(body.final_score).toEqual({ highest: idOf(LOW), lowest: idOf(WORKED), spread: 17.08 });
    });

    it('the order of `providers` and of every figure follows the ids as asked', async () => {
      const ids = [idOf(WORKED), idOf(CAPS), idOf(LOW)];
      const reversed = [...ids].reverse();
      const forward = await compare(ids);
      const backward = await compare(reversed);
      expect(forward.providers.map((p) => p.provider_id)).toEqual(ids);
      expect(backward.providers.map((p) => p.provider_id)).toEqual(reversed);
      for (const [i, row] of forward.criteria.entries()) {
        expect(backward.criteria[i]?.points).toEqual([...row.points].reverse());
      }
      await expectComparisonOf(forward, ids);
      await expectComparisonOf(backward, reversed);
      expect(forward.final_score).toMatchObject({ highest: idOf(LOW), lowest: idOf(CAPS) });
    });

    it('ten providers, the most allowed, are compared', async () => {
      const ids = CURRENT.map(idOf);
      expect(ids).toHaveLength(10);
      const body = await compare(ids);
      expect(body.providers).toHaveLength(10);
      for (const row of body.criteria) expect(row.points).toHaveLength(10);
      await expectComparisonOf(body, ids);
      // The varied providers differ somewhere, so at least one criterion has a spread.
      expect(body.criteria.some((c) => c.spread > 0)).toBe(true);
      expect(new Set(body.providers.map((p) => p.risk_band)).size).toBeGreaterThan(2);
    });

    it('`best` lists every leader when providers tie, and a tie on every criterion has no spread', async () => {
      const ids = [idOf(WORKED), idOf(TWIN)];
      const body = await compare(ids);
      await expectComparisonOf(body, ids);
      for (const row of body.criteria) {
        expect(row.best).toEqual(ids);
        expect(row.spread).toBe(0);
      }
      for (const row of body.modules) expect(row.spread).toBe(0);
      expect(body.final_score.spread).toBe(0);
    });

    it('a tie for the lead beside a weaker provider lists both leaders and not the other', async () => {
      const ids = [idOf(CAPS), idOf(WORKED), idOf(TWIN)];
      const body = await compare(ids);
      await expectComparisonOf(body, ids);
      const collateral = body.criteria.find((c) => (c.points[1] ?? 0) > (c.points[0] ?? 0));
      expect(collateral, 'a criterion where WORKED leads CAPS').toBeDefined();
      expect(collateral?.best).toEqual([idOf(WORKED), idOf(TWIN)]);
    });

    it('upper-case ids, and spaces after the commas, name the same providers', async () => {
      const ids = [idOf(WORKED), idOf(CAPS)];
      const res = await server().get(
        `/api/v1/scores/compare?ids=${ids[0]?.toUpperCase()},%20${ids[1]?.toUpperCase()}`,
        { key },
      );
      const body = await expectJson(res, StrictComparisonSchema);
      expect(body.providers.map((p) => p.provider_id)).toEqual(ids);
      await expectComparisonOf(body, ids);
    });
  });

  describe('errors', () => {
    const get = (query: string) => server().get(`/api/v1/scores/compare?${query}`, { key });
    const anId = (n: number) => `00000000-0000-4000-8000-${String(900 + n).padStart(12, '0')}`;

    it('one id gets 400 naming query.ids: 2 to 10 are needed', async () => {
      const problem = await expectInvalid(await get(`ids=${idOf(WORKED)}`), ['query.ids']);
      expect(problem.errors?.[0]?.message).toMatch(/2 to 10/);
    });

    it('eleven ids get 400 naming query.ids: 2 to 10 are needed', async () => {
      const ids = [...CURRENT.map(idOf), anId(1)];
      expect(ids).toHaveLength(11);
      const problem = await expectInvalid(await get(`ids=${ids.join(',')}`), ['query.ids']);
      expect(problem.errors?.[0]?.message).toMatch(/2 to 10/);
    });

    it('a provider named twice gets 400, also when only the case differs', async () => {
      for (const second of [idOf(WORKED), idOf(WORKED).toUpperCase()]) {
        const problem = await expectInvalid(await get(`ids=${idOf(WORKED)},${idOf(LOW)},${second}`), ['query.ids']);
        expect(problem.errors?.[0]?.message).toMatch(/twice/);
      }
    });

    it('an id that is not a UUID gets 400 naming its position', async () => {
      const problem = await expectInvalid(await get(`ids=${idOf(WORKED)},not-a-uuid`), ['query.ids.1']);
      expect(problem.errors?.[0]?.message).toMatch(/UUID/);
    });

    it('an empty id (a trailing comma) gets 400 naming its position', async () => {
      await expectInvalid(await get(`ids=${idOf(WORKED)},${idOf(LOW)},`), ['query.ids.2']);
    });

    it('a well-formed id nobody published gets 400 naming its position and the id', async () => {
      const problem = await expectInvalid(await get(`ids=${idOf(WORKED)},${UNKNOWN_PROVIDER_ID}`), ['query.ids.1']);
      expect(problem.errors?.[0]?.message).toMatch(/no published Risk Indicator/);
      expect(problem.errors?.[0]?.message).toContain(UNKNOWN_PROVIDER_ID);
      expect(problem.detail).toContain(UNKNOWN_PROVIDER_ID);
    });

    it('a withdrawn provider gets 400 naming its position, and every missing one is listed', async () => {
      const problem = await expectInvalid(await get(`ids=${idOf(WITHDRAWN)},${idOf(WORKED)},${UNKNOWN_PROVIDER_ID}`), [
        'query.ids.0',
        'query.ids.2',
      ]);
      expect(problem.errors?.find((e) => e.path === 'query.ids.0')?.message).toContain(idOf(WITHDRAWN));
    });

    it('a missing ids gets 400 saying it is required', async () => {
      const problem = await expectInvalid(await get(''), ['query.ids']);
      expect(problem.errors?.[0]?.message).toBe('is required');
    });

    it('a repeated ids parameter gets 400 rather than a guess', async () => {
      const problem = await expectInvalid(await get(`ids=${idOf(WORKED)}&ids=${idOf(LOW)}`), ['query.ids']);
      expect(problem.errors?.[0]?.message).toMatch(/once/);
    });

    it('an unknown query parameter gets 400 naming it', async () => {
      await expectInvalid(await get(`ids=${idOf(WORKED)},${idOf(LOW)}&sort=score`), ['query.sort']);
    });
  });
});
