import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundedQuotient } from '../analysis/quotient.js';
import { dec, fixed } from '../decimal.js';
import { currentFramework, type Holding, scorePortfolio } from '../index.js';
import { fromUnits, SEED, toUnits } from './arbitraries.js';

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 300 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs per property (replay with FC_SEED=${SEED})`);

/** num / den rounded half-even to an integer (den > 0): the BigInt oracle. */
function roundHalfEven(num: bigint, den: bigint): bigint {
  const floor = num >= 0n ? num / den : -((-num + den - 1n) / den);
  const twice = 2n * (num - floor * den);
  return twice > den || (twice === den && floor % 2n !== 0n) ? floor + 1n : floor;
}

const fw = currentFramework();
let next = 0;
const holding = (amount: string, final_score: number, risk_band: string, provider_id = `p${++next}`): Holding => ({
  provider_id,
  amount,
  final_score,
  risk_band,
});
const equal = (n: number, amount = '100') => Array.from({ length: n }, () => holding(amount, 70, 'MEDIUM'));

describe('scorePortfolio', () => {
  it('a hand-computed portfolio: weights, score, HHI, effective holdings and exposure to every band', () => {
    const portfolio = scorePortfolio(
      [holding('500', 78.46, 'MEDIUM', 'a'), holding('300', 82.1, 'LOW', 'b'), holding('200', 45, 'HIGH', 'c')],
      fw,
    );
    // Total 1000: weights 0.5, 0.3, 0.2. Score 0.5 x 78.46 + 0.3 x 82.10 + 0.2 x 45.00 = 39.23 + 24.63 + 9.00 = 72.86.
    expect([
      portfolio.framework_version,
      portfolio.portfolio_score,
      portfolio.risk_band,
      portfolio.total_amount,
    ]).toEqual(['DCRF v1.0', 72.86, 'MEDIUM', '1000']);
    expect(portfolio.holdings.map((h) => [h.provider_id, h.weight, h.contribution])).toEqual([
      ['a', 0.5, 39.23],
      ['b', 0.3, 24.63],
      ['c', 0.2, 9],
    ]);
    // HHI 0.25 + 0.09 + 0.04 = 0.38 (> 0.25: high); effective holdings 1 / 0.38 = 2.6315.. -> 2.63.
    expect(portfolio.concentration).toEqual({
      herfindahl_index: 0.38,
      effective_holdings: 2.63,
      largest_weight: 0.5,
      level: 'high',
    });
    expect(portfolio.exposure_by_band).toEqual([
      { risk_band: 'LOW', amount: '300', weight: 0.3, holdings: 1 },
      { risk_band: 'MEDIUM', amount: '500', weight: 0.5, holdings: 1 },
      { risk_band: 'ELEVATED', amount: '0', weight: 0, holdings: 0 },
      { risk_band: 'HIGH', amount: '200', weight: 0.2, holdings: 1 },
      { risk_band: 'SEVERE', amount: '0', weight: 0, holdings: 0 },
    ]);
    expect(portfolio.weakest.map((h) => h.provider_id)).toEqual(['c', 'a', 'b']);
  });

  it('equal weights: n holdings have HHI 1/n and n effective holdings', () => {
    const three = scorePortfolio(equal(3), fw);
    expect(three.holdings.map((h) => h.weight)).toEqual([0.3333, 0.3333, 0.3333]);
    expect(three.concentration).toEqual({
      herfindahl_index: 0.3333,
      effective_holdings: 3,
      largest_weight: 0.3333,
      level: 'high',
    });
    expect([three.portfolio_score, three.risk_band]).toEqual([70, 'MEDIUM']);
    // 1/7 = 0.142857.. -> 0.1429, below 0.15: low.
    expect(scorePortfolio(equal(7), fw).concentration).toEqual({
      herfindahl_index: 0.1429,
      effective_holdings: 7,
      largest_weight: 0.1429,
      level: 'low',
    });
  });

  it('levels at the thresholds: 0.15 and 0.25 are moderate, just above 0.25 is high', () => {
    // Four equal holdings: HHI exactly 0.25.
    expect(scorePortfolio(equal(4), fw).concentration.level).toBe('moderate');
    // Weights 0.3, five of 0.1 and four of 0.05: 0.09 + 0.05 + 0.01 = 0.15 exactly.
    const amounts = ['30', '10', '10', '10', '10', '10', '5', '5', '5', '5'];
    const fifteen = scorePortfolio(
      amounts.map((a) => holding(a, 70, 'MEDIUM')),
      fw,
    );
    expect([fifteen.concentration.herfindahl_index, fifteen.concentration.level]).toEqual([0.15, 'moderate']);
    expect(fifteen.concentration.effective_holdings).toBe(6.67);
    // 2600 and three of 2400: HHI (2600² + 3 x 2400²) / 9800² = 0.250312.. -> 0.2503, above 0.25.
    const above = scorePortfolio([holding('2600', 70, 'MEDIUM'), ...equal(3, '2400')], fw).concentration;
    expect([above.herfindahl_index, above.effective_holdings, above.level]).toEqual([0.2503, 4, 'high']);
    // The level follows the HHI as published: 2504 and three of 2432 give 0.250040.., shown as 0.25, so moderate.
    const shown = scorePortfolio([holding('2504', 70, 'MEDIUM'), ...equal(3, '2432')], fw).concentration;
    expect([shown.herfindahl_index, shown.level]).toEqual([0.25, 'moderate']);
  });

  it('a single holding is the whole portfolio: weight 1, HHI 1, one effective holding, high concentration', () => {
    const one = scorePortfolio([holding('1250000.00', 61.7, 'ELEVATED', 'solo')], fw);
    expect([one.portfolio_score, one.risk_band, one.total_amount]).toEqual([61.7, 'ELEVATED', '1250000']);
    expect(one.holdings[0]).toMatchObject({ weight: 1, contribution: 61.7 });
    expect(one.concentration).toEqual({ herfindahl_index: 1, effective_holdings: 1, largest_weight: 1, level: 'high' });
    expect(one.weakest.map((h) => h.provider_id)).toEqual(['solo']);
  });

  it('rounds half-even at the boundary, like the final score', () => {
    // (79.99 + 80.00) / 2 = 79.995 -> 80.00 (LOW); half-up would also give 80.00, but:
    expect(scorePortfolio([holding('1', 79.99, 'MEDIUM'), holding('1', 80, 'LOW')], fw)).toMatchObject({
      portfolio_score: 80,
      risk_band: 'LOW',
    });
    // (79.98 + 79.99) / 2 = 79.985 -> 79.98 (8 is even), where half-up would give 79.99.
    expect(scorePortfolio([holding('1', 79.98, 'MEDIUM'), holding('1', 79.99, 'MEDIUM')], fw).portfolio_score).toBe(
      79.98,
    );
    // Weights too: 1/20000 = 0.00005 -> 0.0000, 3/20000 = 0.00015 -> 0.0002.
    const tiny = scorePortfolio(
      [holding('1', 50, 'ELEVATED'), holding('3', 50, 'ELEVATED'), holding('19996', 50, 'ELEVATED')],
      fw,
    );
    expect(tiny.holdings.map((h) => h.weight)).toEqual([0, 0.0002, 0.9998]);
    // A quotient that does not terminate: (80 + 80 + 79.99) / 3 = 79.99666.. -> 80.00.
    expect(
      scorePortfolio([holding('1', 80, 'LOW'), holding('1', 80, 'LOW'), holding('1', 79.99, 'MEDIUM')], fw)
        .portfolio_score,
    ).toBe(80);
  });

  it('reads amounts exactly as decimal text, beyond what a double holds', () => {
    const big = scorePortfolio([holding('12345678901234567.89', 90, 'LOW'), holding('0.11', 10, 'SEVERE')], fw);
    expect(big.total_amount).toBe('12345678901234568');
    expect(big.exposure_by_band.find((e) => e.risk_band === 'SEVERE')).toEqual({
      risk_band: 'SEVERE',
      amount: '0.11',
      weight: 0,
      holdings: 1,
    });
    expect(big.portfolio_score).toBe(90);
    expect(scorePortfolio([holding('1e3', 50, 'ELEVATED')], fw).total_amount).toBe('1000');
  });

  it('lists exposure for every band of the framework, best first, even when empty', () => {
    const exposure = scorePortfolio([holding('5', 20, 'SEVERE')], fw).exposure_by_band;
    expect(exposure.map((e) => e.risk_band)).toEqual(fw.definition.bands.map((b) => b.band));
    expect(exposure.map((e) => e.holdings)).toEqual([0, 0, 0, 0, 1]);
  });

  it('weakest: the three lowest scores, ties by the larger amount, then input order', () => {
    const portfolio = scorePortfolio(
      [
        holding('100', 50, 'ELEVATED', 'x'),
        holding('300', 50, 'ELEVATED', 'y'),
        holding('50', 90, 'LOW', 'w'),
        holding('200', 50, 'ELEVATED', 'z'),
        holding('300', 50, 'ELEVATED', 'v'),
      ],
      fw,
    );
    expect(portfolio.weakest.map((h) => h.provider_id)).toEqual(['y', 'v', 'z']);
  });

  it('throws a clear error for an empty list, a non-positive or malformed amount, a bad score or an unknown band', () => {
    expect(() => scorePortfolio([], fw)).toThrow('a portfolio needs at least one holding');
    expect(() => scorePortfolio([holding('0', 50, 'ELEVATED')], fw)).toThrow(
      'holdings[0].amount must be positive, got 0',
    );
    expect(() => scorePortfolio([holding('1', 50, 'ELEVATED'), holding('-5', 50, 'ELEVATED')], fw)).toThrow(
      'holdings[1].amount must be positive, got -5',
    );
    expect(() => scorePortfolio([holding('1,000', 50, 'ELEVATED')], fw)).toThrow(
      /holdings\[0\]\.amount must be decimal text/,
    );
    expect(() => scorePortfolio([holding('1', Number.NaN, 'ELEVATED')], fw)).toThrow(
      /final_score must be a finite number/,
    );
    expect(() => scorePortfolio([holding('1', 50, 'MODERATE')], fw)).toThrow(
      'holdings[0].risk_band MODERATE is not a band of DCRF v1.0 (LOW, MEDIUM, ELEVATED, HIGH, SEVERE)',
    );
  });
});

describe('scorePortfolio properties', () => {
  const BANDS = fw.definition.bands.map((b) => b.band);
  const holdingArb = fc.record({
    provider_id: fc.uuid(),
    cents: fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 15n })),
    hundredths: fc.integer({ min: 0, max: 10_000 }),
    risk_band: fc.constantFrom(...BANDS),
  });

  it('is exact: score, weights, HHI and effective holdings equal half-even rounding of the exact quotients', () => {
    fc.assert(
      fc.property(fc.array(holdingArb, { minLength: 1, maxLength: 30 }), (drafts) => {
        const holdings = drafts.map((d) => ({
          provider_id: d.provider_id,
          amount: fromUnits(d.cents, 2),
          final_score: Number(fromUnits(BigInt(d.hundredths), 2)),
          risk_band: d.risk_band,
        }));
        const p = scorePortfolio(holdings, fw);
        const total = drafts.reduce((acc, d) => acc + d.cents, 0n);
        const squares = drafts.reduce((acc, d) => acc + d.cents * d.cents, 0n);
        const weighted = drafts.reduce((acc, d) => acc + d.cents * BigInt(d.hundredths), 0n);
        expect(toUnits(p.portfolio_score, 2)).toBe(roundHalfEven(weighted, total));
        expect(p.total_amount).toBe(dec(fromUnits(total, 2)).toFixed());
        expect(p.holdings.map((h) => toUnits(h.weight, 4))).toEqual(
          drafts.map((d) => roundHalfEven(d.cents * 10_000n, total)),
        );
        expect(toUnits(p.concentration.herfindahl_index, 4)).toBe(roundHalfEven(squares * 10_000n, total * total));
        expect(toUnits(p.concentration.effective_holdings, 2)).toBe(roundHalfEven(total * total * 100n, squares));
        expect(p.exposure_by_band.map((e) => e.holdings).reduce((a, b) => a + b, 0)).toBe(holdings.length);
        expect(p.exposure_by_band.map((e) => e.risk_band)).toEqual(BANDS);
        expect(p.risk_band).toBe(
          BANDS[fw.definition.bands.findIndex((b) => toUnits(b.min, 2) <= toUnits(p.portfolio_score, 2))],
        );
      }),
    );
  });

  it('roundedQuotient rounds half-even exactly, ties included', () => {
    const arb = fc.record({
      den: fc.bigInt({ min: 1n, max: 10n ** 18n }),
      q: fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
      tie: fc.boolean(),
      nudge: fc.bigInt({ min: -3n, max: 3n }),
      places: fc.integer({ min: 0, max: 6 }),
    });
    fc.assert(
      fc.property(arb, ({ den, q, tie, nudge, places }) => {
        // numerator / den in units of 10^-places is q (+ a half on a tie), nudged by a few units of 10^-(places + 1).
        const num = (2n * q + (tie ? 1n : 0n)) * den * 5n + nudge; // in units of 10^-(places + 1)
        const result = roundedQuotient(dec(fromUnits(num, places + 1)), dec(den.toString()), places);
        expect(fixed(result, places)).toBe(fromUnits(roundHalfEven(num, den * 10n), places));
      }),
    );
  });
});
