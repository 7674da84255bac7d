import { LIMITATIONS_DISCLOSURE, type PortfolioScore, PortfolioScoreSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { CHART_CSS } from '../../src/pages/chart.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { barsOf, cspOf, drawingsOf, labelsOf, styleSource, stylesOf } from '../support/charts.js';
import { ctxOf } from '../support/context.js';
import {
  engineIndicator,
  example,
  framework,
  type InputsDoc,
  UNKNOWN_PROVIDER_ID,
  variantOf,
  vary,
} from '../support/documents.js';
import { htmlText } from '../support/html-text.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

/** The published examples and variants the hand computations below rely on, with the score each must have. */
const WORKED = example('worked-example'); // 78.46 MEDIUM
const LOW = example('low-band'); // 95.54 LOW
const LOW_TWIN = variantOf(LOW, 1, { name: 'Harbour Twin Custody' }); // 95.54 LOW
const CAPS = example('multiple-caps'); // 34.99 SEVERE
/** Multiple caps without the default or freeze: HC-02 holds it at 49.99, HIGH. */
const THAWED = vary(variantOf(CAPS, 2, { name: 'Thawed Quickyield' }), { values: { default_or_freeze_36m: false } });
const WORKED_TWIN = variantOf(WORKED, 3, { name: 'Worked Twin Lending' }); // 78.46 MEDIUM
const MARKUP_NAME = `<b>Tom & "Jerry's"</b> *Lending* [x](y) \`tick\``;
const MARKUP = variantOf(WORKED, 4, { name: MARKUP_NAME }); // 78.46 MEDIUM
const WITHDRAWN = variantOf(LOW, 5, { name: 'Withdrawn Harbour' });

const EXPECTED_SCORES: [InputsDoc, number, string][] = [
  [WORKED, 78.46, 'MEDIUM'],
  [LOW, 95.54, 'LOW'],
  [LOW_TWIN, 95.54, 'LOW'],
  [CAPS, 34.99, 'SEVERE'],
  [THAWED, 49.99, 'HIGH'],
  [WORKED_TWIN, 78.46, 'MEDIUM'],
  [MARKUP, 78.46, 'MEDIUM'],
];

const idOf = (doc: InputsDoc) => doc.provider.id;
const nameOf = (doc: InputsDoc) => doc.provider.name;
const anId = (n: number) => `00000000-0000-4000-8000-${String(900 + n).padStart(12, '0')}`;

/**
 * The hand-computed portfolio. Amounts 150 000 + 300 000 + 250 000 + 100 000 + 200 000 = 1 000 000, so
 * weights 0.15, 0.30, 0.25, 0.10, 0.20.
 * Contributions: 0.15 × 95.54 = 14.331; 0.30 × 95.54 = 28.662; 0.25 × 78.46 = 19.615; 0.10 × 49.99 = 4.999;
 * 0.20 × 34.99 = 6.998; their sum 74.605 is an exact tie, rounded half-even to 74.60 (half-up would say
 * 74.61): MEDIUM (65.00 to 79.99).
 * HHI = 0.15² + 0.30² + 0.25² + 0.10² + 0.20² = 0.0225 + 0.09 + 0.0625 + 0.01 + 0.04 = 0.225: moderate
 * (0.15 to 0.25); effective holdings 1 / 0.225 = 4.444… → 4.44; largest weight 0.30.
 * Exposure: LOW 150 000 + 300 000 = 450 000 (0.45, 2 holdings); MEDIUM 250 000 (0.25, 1); ELEVATED 0 (0, 0);
 * HIGH 100 000 (0.10, 1); SEVERE 200 000 (0.20, 1).
 * Weakest: CAPS 34.99, THAWED 49.99, WORKED 78.46.
 */
const HAND_HOLDINGS = [
  { provider_id: idOf(LOW), amount: 150_000 },
  { provider_id: idOf(LOW_TWIN), amount: 300_000 },
  { provider_id: idOf(WORKED), amount: 250_000 },
  { provider_id: idOf(THAWED), amount: 100_000 },
  { provider_id: idOf(CAPS), amount: 200_000 },
];

const HAND_RESULT: PortfolioScore = {
  framework_version: framework.definition.framework_version,
  portfolio_score: 74.6,
  risk_band: 'MEDIUM',
  total_amount: 1_000_000,
  holdings: [
    holding(LOW, 150_000, 0.15, 95.54, 'LOW', 14.331),
    holding(LOW_TWIN, 300_000, 0.3, 95.54, 'LOW', 28.662),
    holding(WORKED, 250_000, 0.25, 78.46, 'MEDIUM', 19.615),
    holding(THAWED, 100_000, 0.1, 49.99, 'HIGH', 4.999),
    holding(CAPS, 200_000, 0.2, 34.99, 'SEVERE', 6.998),
  ],
  weakest: [
    { provider_id: idOf(CAPS), name: nameOf(CAPS), final_score: 34.99, risk_band: 'SEVERE', weight: 0.2 },
    { provider_id: idOf(THAWED), name: nameOf(THAWED), final_score: 49.99, risk_band: 'HIGH', weight: 0.1 },
    { provider_id: idOf(WORKED), name: nameOf(WORKED), final_score: 78.46, risk_band: 'MEDIUM', weight: 0.25 },
  ],
  concentration: { herfindahl_index: 0.225, effective_holdings: 4.44, largest_weight: 0.3, level: 'moderate' },
  exposure_by_band: [
    { risk_band: 'LOW', amount: 450_000, weight: 0.45, holdings: 2 },
    { risk_band: 'MEDIUM', amount: 250_000, weight: 0.25, holdings: 1 },
    { risk_band: 'ELEVATED', amount: 0, weight: 0, holdings: 0 },
    { risk_band: 'HIGH', amount: 100_000, weight: 0.1, holdings: 1 },
    { risk_band: 'SEVERE', amount: 200_000, weight: 0.2, holdings: 1 },
  ],
  limitations_disclosure: LIMITATIONS_DISCLOSURE,
};

function holding(
  doc: InputsDoc,
  amount: number,
  weight: number,
  final_score: number,
  risk_band: PortfolioScore['risk_band'],
  contribution: number,
): PortfolioScore['holdings'][number] {
  return { provider_id: idOf(doc), name: nameOf(doc), amount, weight, final_score, risk_band, contribution };
}

/** A request body the portfolio routes must refuse, and the paths its 400 must name. */
interface BadBody {
  rule: string;
  body: () => unknown;
  paths: string[];
  message?: RegExp;
}

const BAD_BODIES: BadBody[] = [
  {
    rule: 'an unknown provider id gets 400 naming its provider_id',
    body: () => ({
      holdings: [
        { provider_id: idOf(WORKED), amount: 1 },
        { provider_id: UNKNOWN_PROVIDER_ID, amount: 1 },
      ],
    }),
    paths: ['body.holdings.1.provider_id'],
    message: /no published Risk Indicator/,
  },
  {
    rule: 'several unknown and withdrawn providers get one 400 listing each provider_id',
    body: () => ({
      holdings: [
        { provider_id: anId(1), amount: 1 },
        { provider_id: idOf(WORKED), amount: 1 },
        { provider_id: anId(2), amount: 1 },
        { provider_id: idOf(WITHDRAWN), amount: 1 },
        { provider_id: idOf(LOW), amount: 1 },
      ],
    }),
    paths: ['body.holdings.0.provider_id', 'body.holdings.2.provider_id', 'body.holdings.3.provider_id'],
    message: /no published Risk Indicator/,
  },
  {
    rule: 'a withdrawn provider gets 400 naming its provider_id',
    body: () => ({ holdings: [{ provider_id: idOf(WITHDRAWN), amount: 5 }] }),
    paths: ['body.holdings.0.provider_id'],
    message: /no published Risk Indicator/,
  },
  {
    rule: 'a provider id that is not a UUID gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: 'not-a-uuid', amount: 5 }] }),
    paths: ['body.holdings.0.provider_id'],
  },
  {
    rule: 'an amount of 0 gets 400 naming it',
    body: () => ({
      holdings: [
        { provider_id: idOf(WORKED), amount: 10 },
        { provider_id: idOf(LOW), amount: 0 },
      ],
    }),
    paths: ['body.holdings.1.amount'],
    message: /more than 0/,
  },
  {
    rule: 'a negative amount gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED), amount: -250 }] }),
    paths: ['body.holdings.0.amount'],
    message: /more than 0/,
  },
  {
    rule: 'an amount given as a string gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED), amount: '1000' }] }),
    paths: ['body.holdings.0.amount'],
    message: /number/,
  },
  {
    rule: 'a missing amount gets 400 saying it is required',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED) }] }),
    paths: ['body.holdings.0.amount'],
    message: /^is required$/,
  },
  {
    rule: 'an amount above 1e15 gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED), amount: 2e15 }] }),
    paths: ['body.holdings.0.amount'],
    message: /1e15/,
  },
  {
    rule: 'every bad amount is named at once',
    body: () => ({
      holdings: [
        { provider_id: idOf(WORKED), amount: 0 },
        { provider_id: idOf(LOW), amount: -1 },
        { provider_id: idOf(CAPS), amount: 'x' },
      ],
    }),
    paths: ['body.holdings.0.amount', 'body.holdings.1.amount', 'body.holdings.2.amount'],
  },
  {
    rule: 'a provider listed twice gets 400 naming the holdings',
    body: () => ({
      holdings: [
        { provider_id: idOf(WORKED), amount: 1 },
        { provider_id: idOf(LOW), amount: 2 },
        { provider_id: idOf(WORKED), amount: 3 },
      ],
    }),
    paths: ['body.holdings'],
    message: /twice/,
  },
  {
    rule: 'a provider listed twice in different cases gets 400 naming the holdings',
    body: () => ({
      holdings: [
        { provider_id: idOf(WORKED), amount: 1 },
        { provider_id: idOf(WORKED).toUpperCase(), amount: 3 },
      ],
    }),
    paths: ['body.holdings'],
    message: /twice/,
  },
  {
    rule: 'empty holdings get 400 naming the holdings',
    body: () => ({ holdings: [] }),
    paths: ['body.holdings'],
    message: /at least one/,
  },
  {
    rule: '501 holdings get 400 naming the holdings',
    body: () => ({ holdings: Array.from({ length: 501 }, (_, i) => ({ provider_id: anId(i), amount: 1 })) }),
    paths: ['body.holdings'],
    message: /at most 500/,
  },
  {
    rule: 'a body without holdings gets 400 saying they are required',
    body: () => ({}),
    paths: ['body.holdings'],
    message: /^is required$/,
  },
  {
    rule: 'an unknown top-level field gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED), amount: 1 }], currency: 'EUR' }),
    paths: ['body.currency'],
  },
  {
    rule: 'an unknown field of a holding gets 400 naming it',
    body: () => ({ holdings: [{ provider_id: idOf(WORKED), amount: 1, note: 'x' }] }),
    paths: ['body.holdings.0.note'],
  },
  {
    rule: 'holdings that are not an array get 400 naming them',
    body: () => ({ holdings: { provider_id: idOf(WORKED), amount: 1 } }),
    paths: ['body.holdings'],
  },
];

/** A raw POST with the key: any body text and content type. */
function post(server: TestServer, path: string, key: string, body: string, contentType = 'application/json') {
  return server.get(path, { method: 'POST', key, headers: { 'content-type': contentType }, body });
}

/** The protocol-level refusals both portfolio routes share. */
function expectRawRefusals(server: () => TestServer, path: () => string, key: () => string): void {
  it('a body that is not JSON gets 400 naming the body', async () => {
    const problem = await expectInvalid(await post(server(), path(), key(), '{"holdings": [}'), ['body']);
    expect(problem.errors?.[0]?.message).toMatch(/not valid JSON/);
  });

  it('a body sent as text/plain gets 415', async () => {
    const body = JSON.stringify({ holdings: [{ provider_id: idOf(WORKED), amount: 1 }] });
    await expectProblem(await post(server(), path(), key(), body, 'text/plain'), 'unsupported_media_type');
  });

  it('a body sent as a form gets 415', async () => {
    const body = `holdings=${idOf(WORKED)}`;
    await expectProblem(
      await post(server(), path(), key(), body, 'application/x-www-form-urlencoded'),
      'unsupported_media_type',
    );
  });
}

describe.each(engines)('POST /api/v1/portfolio/score on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [WORKED, LOW, LOW_TWIN, CAPS, THAWED, WORKED_TWIN, MARKUP, WITHDRAWN]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: idOf(WITHDRAWN),
      reason: 'ceased lending',
    });
    s.services.snapshot.invalidate();
    key = await s.key('PROFESSIONAL');
  });

  const PATH = '/api/v1/portfolio/score';
  const scorePortfolio = async (body: unknown): Promise<PortfolioScore> =>
    expectJson(await server().send('POST', PATH, body, key), PortfolioScoreSchema);

  keyedRouteSecurity(
    'scorePortfolio',
    server,
    () => PATH,
    () => ({ holdings: HAND_HOLDINGS }),
  );

  describe('happy path', () => {
    it('the examples score as the hand computations assume', () => {
      for (const [doc, score, band] of EXPECTED_SCORES) {
        const indicator = engineIndicator(doc);
        expect([indicator.final_score, indicator.risk_band], nameOf(doc)).toEqual([score, band]);
      }
    });

    it('a hand-computed portfolio: weights, the half-even score, HHI, weakest and every band exactly', async () => {
      const body = await scorePortfolio({ holdings: HAND_HOLDINGS });
      expect(body).toEqual(HAND_RESULT);
    });

    it('holdings come back in the order sent, with their names', async () => {
      const reversed = [...HAND_HOLDINGS].reverse();
      const body = await scorePortfolio({ holdings: reversed });
      expect(body.holdings.map((h) => h.provider_id)).toEqual(reversed.map((h) => h.provider_id));
      expect(body.holdings).toEqual([...HAND_RESULT.holdings].reverse());
      // Order changes nothing else.
      expect({ ...body, holdings: [] }).toEqual({ ...HAND_RESULT, holdings: [] });
    });

    it('weakest lists the 3 lowest scores, ties by the larger amount first', async () => {
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(LOW), amount: 50 },
          { provider_id: idOf(WORKED), amount: 100 },
          { provider_id: idOf(WORKED_TWIN), amount: 300 },
          { provider_id: idOf(CAPS), amount: 50 },
        ],
      });
      expect(body.weakest.map((w) => [w.provider_id, w.name, w.final_score, w.risk_band, w.weight])).toEqual([
        [idOf(CAPS), nameOf(CAPS), 34.99, 'SEVERE', 0.1],
        [idOf(WORKED_TWIN), nameOf(WORKED_TWIN), 78.46, 'MEDIUM', 0.6],
        [idOf(WORKED), nameOf(WORKED), 78.46, 'MEDIUM', 0.2],
      ]);
    });

    it('two holdings list both as the weakest', async () => {
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(LOW), amount: 1 },
          { provider_id: idOf(CAPS), amount: 1 },
        ],
      });
      expect(body.weakest.map((w) => w.provider_id)).toEqual([idOf(CAPS), idOf(LOW)]);
    });

    it('a single holding is the whole portfolio: its score, HHI 1, one effective holding, level high', async () => {
      const body = await scorePortfolio({ holdings: [{ provider_id: idOf(WORKED), amount: 42 }] });
      expect(body).toEqual({
        framework_version: framework.definition.framework_version,
        portfolio_score: 78.46,
        risk_band: 'MEDIUM',
        total_amount: 42,
        holdings: [holding(WORKED, 42, 1, 78.46, 'MEDIUM', 78.46)],
        weakest: [
          { provider_id: idOf(WORKED), name: nameOf(WORKED), final_score: 78.46, risk_band: 'MEDIUM', weight: 1 },
        ],
        concentration: { herfindahl_index: 1, effective_holdings: 1, largest_weight: 1, level: 'high' },
        exposure_by_band: [
          { risk_band: 'LOW', amount: 0, weight: 0, holdings: 0 },
          { risk_band: 'MEDIUM', amount: 42, weight: 1, holdings: 1 },
          { risk_band: 'ELEVATED', amount: 0, weight: 0, holdings: 0 },
          { risk_band: 'HIGH', amount: 0, weight: 0, holdings: 0 },
          { risk_band: 'SEVERE', amount: 0, weight: 0, holdings: 0 },
        ],
        limitations_disclosure: LIMITATIONS_DISCLOSURE,
      });
    });

    it('amounts with decimals are summed exactly (1234.56 + 789.01 = 2023.57)', async () => {
      /*
       * total 2023.57; weights 1234.56 / 2023.57 = 0.61009… → 0.6101 and 789.01 / 2023.57 = 0.38990… → 0.3899;
       * contributions 1234.56 × 78.46 / 2023.57 = 47.86766… → 47.8677 and 789.01 × 95.54 / 2023.57 = 37.25199… → 37.2520;
       * score (96863.5776 + 75382.0154) / 2023.57 = 85.11966… → 85.12, LOW;
       * HHI (1234.56² + 789.01²) / 2023.57² = 0.52423… → 0.5242, high; effective 1.90752… → 1.91.
       */
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(WORKED), amount: 1234.56 },
          { provider_id: idOf(LOW), amount: 789.01 },
        ],
      });
      expect(body.total_amount).toBe(2023.57);
      expect(body.portfolio_score).toBe(85.12);
      expect(body.risk_band).toBe('LOW');
      expect(body.holdings).toEqual([
        holding(WORKED, 1234.56, 0.6101, 78.46, 'MEDIUM', 47.8677),
        holding(LOW, 789.01, 0.3899, 95.54, 'LOW', 37.252),
      ]);
      expect(body.concentration).toEqual({
        herfindahl_index: 0.5242,
        effective_holdings: 1.91,
        largest_weight: 0.6101,
        level: 'high',
      });
      expect(body.exposure_by_band.slice(0, 2)).toEqual([
        { risk_band: 'LOW', amount: 789.01, weight: 0.3899, holdings: 1 },
        { risk_band: 'MEDIUM', amount: 1234.56, weight: 0.6101, holdings: 1 },
      ]);
    });

    it('0.1 + 0.2 is a total of exactly 0.3, not binary 0.30000000000000004', async () => {
      // Score (0.1 × 78.46 + 0.2 × 95.54) / 0.3 = 26.954 / 0.3 = 89.8466… → 89.85; HHI 1/9 + 4/9 = 0.5556.
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(WORKED), amount: 0.1 },
          { provider_id: idOf(LOW), amount: 0.2 },
        ],
      });
      expect(body.total_amount).toBe(0.3);
      expect(body.portfolio_score).toBe(89.85);
      expect(body.holdings.map((h) => h.weight)).toEqual([0.3333, 0.6667]);
      expect(body.concentration).toMatchObject({ herfindahl_index: 0.5556, effective_holdings: 1.8 });
      expect(body.exposure_by_band.slice(0, 2).map((e) => e.amount)).toEqual([0.2, 0.1]);
    });

    it('the largest amount allowed, 1e15, is scored', async () => {
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(WORKED), amount: 1e15 },
          { provider_id: idOf(LOW), amount: 1e15 },
        ],
      });
      // (78.46 + 95.54) / 2 = 87.00 exactly.
      expect(body).toMatchObject({ total_amount: 2e15, portfolio_score: 87, risk_band: 'LOW' });
      expect(body.concentration).toMatchObject({ herfindahl_index: 0.5, effective_holdings: 2, level: 'high' });
    });

    it('an exact tie in the score rounds half to even: (78.46 + 34.99) / 2 = 56.725 → 56.72', async () => {
      const body = await scorePortfolio({
        holdings: [
          { provider_id: idOf(WORKED), amount: 7 },
          { provider_id: idOf(CAPS), amount: 7 },
        ],
      });
      expect([body.portfolio_score, body.risk_band]).toEqual([56.72, 'ELEVATED']);
    });

    it('upper-case provider ids name the same providers and come back in lower case', async () => {
      const upper = HAND_HOLDINGS.map((h) => ({ ...h, provider_id: h.provider_id.toUpperCase() }));
      expect(upper.some((h, i) => h.provider_id !== HAND_HOLDINGS[i]?.provider_id)).toBe(true);
      expect(await scorePortfolio({ holdings: upper })).toEqual(HAND_RESULT);
    });

    it('a provider published again counts with its new score', async () => {
      const s = server();
      const doc = variantOf(WORKED, 40, { name: 'Rescored Lending' });
      await publish(s, doc);
      const before = await scorePortfolio({ holdings: [{ provider_id: idOf(doc), amount: 1 }] });
      expect(before.portfolio_score).toBe(78.46);
      await publish(s, vary(doc, { values: { collateral_coverage_ratio: 1.5 } }));
      const after = await scorePortfolio({ holdings: [{ provider_id: idOf(doc), amount: 1 }] });
      expect([after.portfolio_score, after.risk_band]).toEqual([80.26, 'LOW']);
    });
  });

  describe('errors', () => {
    for (const bad of BAD_BODIES) {
      it(bad.rule, async () => {
        const problem = await expectInvalid(await server().send('POST', PATH, bad.body(), key), bad.paths);
        if (bad.message) for (const e of problem.errors ?? []) expect(e.message).toMatch(bad.message);
      });
    }

    it('each unknown provider is named in its error and in the detail', async () => {
      const problem = await expectInvalid(
        await server().send(
          'POST',
          PATH,
          {
            holdings: [
              { provider_id: anId(1), amount: 1 },
              { provider_id: idOf(WITHDRAWN), amount: 1 },
            ],
          },
          key,
        ),
        ['body.holdings.0.provider_id', 'body.holdings.1.provider_id'],
      );
      expect(problem.errors?.find((e) => e.path === 'body.holdings.0.provider_id')?.message).toContain(anId(1));
      expect(problem.errors?.find((e) => e.path === 'body.holdings.1.provider_id')?.message).toContain(idOf(WITHDRAWN));
      expect(problem.detail).toContain(anId(1));
      expect(problem.detail).toContain(idOf(WITHDRAWN));
    });

    it('500 holdings pass the size rule: 500 unknown providers are each named, not the list', async () => {
      const holdings = Array.from({ length: 500 }, (_, i) => ({ provider_id: anId(i), amount: 1 }));
      await expectInvalid(
        await server().send('POST', PATH, { holdings }, key),
        holdings.map((_, i) => `body.holdings.${i}.provider_id`),
      );
    });

    expectRawRefusals(
      server,
      () => PATH,
      () => key,
    );
  });
});

/** Text as a Markdown memo must carry it: the characters Markdown reads as markup, backslash-escaped. */
function mdText(text: string): string {
  return text.replace(/[\\`*_[\]<>#|~&]/g, (c) => `\\${c}`);
}

describe.each(engines)('POST /api/v1/portfolio/memo on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [WORKED, LOW, LOW_TWIN, CAPS, THAWED, MARKUP, WITHDRAWN]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: idOf(WITHDRAWN),
      reason: 'ceased lending',
    });
    s.services.snapshot.invalidate();
    key = await s.key('PROFESSIONAL');
  });

  const PATH = '/api/v1/portfolio/memo';
  const memo = async (body: unknown, format?: string) => {
    const res = await server().send('POST', `${PATH}${format ? `?format=${format}` : ''}`, body, key);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { res, text };
  };

  keyedRouteSecurity(
    'portfolioMemo',
    server,
    () => PATH,
    () => ({ holdings: HAND_HOLDINGS }),
  );

  describe('happy path', () => {
    it('Markdown by default: the portfolio score and band, every holding and the exposure to every band', async () => {
      const { res, text } = await memo({ holdings: HAND_HOLDINGS });
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(text).toMatch(/^# Portfolio credit memo\n/);
      expect(text).toContain('| 74.60 | MEDIUM | 0.2250 | 4.44 | 30.00% | moderate |');
      expect(text).toContain('5 holdings, total 1000000.');
      for (const h of HAND_RESULT.holdings) {
        expect(text).toContain(
          `| ${mdText(h.name)} | ${h.amount} | ${(h.weight * 100).toFixed(2)}% | ${h.final_score.toFixed(2)} | ${h.risk_band} | ${h.contribution.toFixed(4)} |`,
        );
      }
      expect(text).toContain('## Exposure by band');
      for (const row of [
        '| LOW | 450000 | 45.00% | 2 |',
        '| MEDIUM | 250000 | 25.00% | 1 |',
        '| ELEVATED | 0 | 0.00% | 0 |',
        '| HIGH | 100000 | 10.00% | 1 |',
        '| SEVERE | 200000 | 20.00% | 1 |',
      ]) {
        expect(text).toContain(row);
      }
      for (const w of HAND_RESULT.weakest) {
        expect(text).toContain(`- ${w.name}: ${w.final_score.toFixed(2)} ${w.risk_band}`);
      }
      expect(text).toContain(LIMITATIONS_DISCLOSURE);
      // The table is the exposure chart's alternative; Markdown carries no chart.
      expect(text).not.toMatch(/<svg|svg>|<figure|chart-/);
      expect(text).toMatch(/\n## Exposure by band\n\n\| Risk band \| Amount \| Weight \| Holdings \|/);
    });

    it('format=md is the same Markdown', async () => {
      const byDefault = await memo({ holdings: HAND_HOLDINGS });
      const md = await memo({ holdings: HAND_HOLDINGS }, 'md');
      expect(md.res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      // The preparation date aside (two requests may straddle midnight), the memos are the same.
      const undated = (text: string) => text.replace(/^Prepared \d{4}-\d{2}-\d{2} /m, 'Prepared ');
      expect(md.text).toMatch(/^Prepared \d{4}-\d{2}-\d{2} under /m);
      expect(undated(md.text)).toBe(undated(byDefault.text));
    });

    it('format=html is a page with the score, band, every holding and the exposure table, under a CSP', async () => {
      const { res, text } = await memo({ holdings: HAND_HOLDINGS }, 'html');
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(text).toMatch(/^<!DOCTYPE html>/);
      expect(text).toContain('<h1>Portfolio credit memo</h1>');
      expect(text).toContain(
        '<tr><td>74.60</td><td>MEDIUM</td><td>0.2250</td><td>4.44</td><td>30.00%</td><td>moderate</td></tr>',
      );
      for (const h of HAND_RESULT.holdings) {
        expect(text).toContain(
          `<tr><td>${htmlText(h.name)}</td><td>${h.amount}</td><td>${(h.weight * 100).toFixed(2)}%</td><td>${h.final_score.toFixed(2)}</td><td>${h.risk_band}</td><td>${h.contribution.toFixed(4)}</td></tr>`,
        );
      }
      for (const row of [
        ['LOW', 450000, '45.00%', 2],
        ['MEDIUM', 250000, '25.00%', 1],
        ['ELEVATED', 0, '0.00%', 0],
        ['HIGH', 100000, '10.00%', 1],
        ['SEVERE', 200000, '20.00%', 1],
      ]) {
        expect(text).toContain(`<tr>${row.map((c) => `<td>${c}</td>`).join('')}</tr>`);
      }
      // The one inline style, the memo's and the charts', allowed by its hash in the header and in the document.
      const styles = stylesOf(text);
      expect(styles).toHaveLength(1);
      expect(styles[0]).toContain(CHART_CSS.trimEnd());
      const csp = cspOf(res);
      expect(csp.get('style-src')).toEqual([styleSource(styles[0] ?? '')]);
      expect(csp.has('script-src')).toBe(false);
      const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/
        .exec(text)?.[1]
        ?.replaceAll('&#39;', "'");
      expect(meta).toBe((res.headers.get('content-security-policy') ?? '').replace("; frame-ancestors 'none'", ''));
    });

    it("format=html draws the exposure as one bar per band, every band, its width the band's share", async () => {
      const { text } = await memo({ holdings: HAND_HOLDINGS }, 'html');
      const drawings = drawingsOf(text, 'memo-exposure');
      expect(drawings.map((d) => d.layout)).toEqual(['narrow', 'wide']);
      const section = text.indexOf('<h2>Exposure by band</h2>');
      const table = text.indexOf('<table><thead><tr><th>Risk band</th>', section);
      // The hand-computed exposure (above): every band of the framework, the empty ELEVATED too.
      const expected = [
        ['LOW', 0.45, '45.00% (2 holdings)'],
        ['MEDIUM', 0.25, '25.00% (1 holding)'],
        ['ELEVATED', 0, '0.00% (0 holdings)'],
        ['HIGH', 0.1, '10.00% (1 holding)'],
        ['SEVERE', 0.2, '20.00% (1 holding)'],
      ] as const;
      expect(expected.map((e) => e[0])).toEqual(framework.definition.bands.map((b) => b.band));
      for (const d of drawings) {
        expect(d.at).toBeGreaterThan(section);
        expect(d.at).toBeLessThan(table);
        expect(labelsOf(d).title).toBe('Exposure by band');
        expect(labelsOf(d).desc).toContain(expected.map(([band, , words]) => `${band} ${words}`).join('; '));
        const bars = barsOf(d);
        expect(bars.map((b) => [b.label, b.className, b.value])).toEqual(
          expected.map(([band, , words]) => [band, `chart-bar chart-band-${band} chart-bar-banded`, words]),
        );
        const track = bars[0]?.track ?? 0;
        expect(track).toBeGreaterThanOrEqual((d.layout === 'wide' ? 720 : 340) / 2);
        bars.forEach((b, i) => {
          expect(b.track).toBe(track);
          // Widths are written to 2 places: LOW's is 0.45 of the track, ELEVATED's 0.
          expect(Math.abs(b.width - (expected[i]?.[1] ?? -1) * track)).toBeLessThanOrEqual(0.005);
        });
        expect(bars[2]?.width).toBe(0);
      }
    });

    it('a holding name with markup is escaped in HTML and in Markdown', async () => {
      const body = {
        holdings: [
          { provider_id: idOf(MARKUP), amount: 3 },
          { provider_id: idOf(CAPS), amount: 1 },
        ],
      };
      const html = await memo(body, 'html');
      expect(html.text).toContain(htmlText(MARKUP_NAME));
      expect(html.text).not.toContain('<b>Tom');
      expect(html.text).not.toContain(MARKUP_NAME);
      const md = await memo(body, 'md');
      expect(md.text).toContain(mdText(MARKUP_NAME));
      expect(md.text).not.toContain('<b>');
      expect(md.text).not.toContain('*Lending*');
    });

    it('the memo says what the portfolio score says', async () => {
      const holdings = [
        { provider_id: idOf(WORKED), amount: 1234.56 },
        { provider_id: idOf(LOW), amount: 789.01 },
      ];
      const score = await expectJson(
        await server().send('POST', '/api/v1/portfolio/score', { holdings }, key),
        PortfolioScoreSchema,
      );
      const { text } = await memo({ holdings });
      expect(text).toContain(`| ${score.portfolio_score.toFixed(2)} | ${score.risk_band} |`);
      expect(text).toContain(`total ${score.total_amount}.`);
      expect(text).toContain('| LOW | 789.01 | 38.99% | 1 |');
      expect(text).toContain('| MEDIUM | 1234.56 | 61.01% | 1 |');
    });
  });

  describe('errors', () => {
    for (const bad of BAD_BODIES) {
      it(`as for the score, ${bad.rule}`, async () => {
        const problem = await expectInvalid(await server().send('POST', PATH, bad.body(), key), bad.paths);
        if (bad.message) for (const e of problem.errors ?? []) expect(e.message).toMatch(bad.message);
      });
    }

    it('format=pdf gets 400 naming query.format', async () => {
      const problem = await expectInvalid(
        await server().send('POST', `${PATH}?format=pdf`, { holdings: HAND_HOLDINGS }, key),
        ['query.format'],
      );
      expect(problem.errors?.[0]?.message).toMatch(/md, html/);
    });

    it('an unknown query parameter gets 400 naming it', async () => {
      await expectInvalid(await server().send('POST', `${PATH}?lang=fr`, { holdings: HAND_HOLDINGS }, key), [
        'query.lang',
      ]);
    });

    expectRawRefusals(
      server,
      () => PATH,
      () => key,
    );
  });
});
