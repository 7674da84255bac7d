import { compile } from '../compute/compiled.js';
import { type Dec, dec, sum, toNumber, ZERO } from '../decimal.js';
import type { Framework } from '../framework/schema.js';
import { messages as M } from './messages.js';
import { roundedQuotient } from './quotient.js';

/** A holding as the API passes it: the amount is the JSON number's text, read exactly. */
export interface Holding {
  provider_id: string;
  amount: string;
  final_score: number;
  risk_band: string;
}

export interface WeightedHolding extends Holding {
  /** amount / total, 4 places. */
  weight: number;
  /** amount x final_score / total, 4 places: its share of the portfolio score. */
  contribution: number;
}

export interface BandExposure {
  risk_band: string;
  /** Exact sum of the amounts of the holdings in this band, as decimal text. */
  amount: string;
  weight: number;
  /** How many holdings are in this band. */
  holdings: number;
}

export type ConcentrationLevel = 'low' | 'moderate' | 'high';

/** Field names as the API's PortfolioScore contract has them; amounts stay exact decimal text. */
export interface PortfolioScore {
  framework_version: string;
  /** Amount-weighted final score, rounded like a final score. */
  portfolio_score: number;
  risk_band: string;
  total_amount: string;
  holdings: WeightedHolding[];
  /** The lowest scores, ties by the larger amount, then input order. */
  weakest: WeightedHolding[];
  concentration: {
    /** Herfindahl-Hirschman index: sum of squared weights, 0..1, 4 places. */
    herfindahl_index: number;
    /** 1 / HHI, 2 places. */
    effective_holdings: number;
    largest_weight: number;
    level: ConcentrationLevel;
  };
  /** Every band of the framework, best first, with what the portfolio holds in it. */
  exposure_by_band: BandExposure[];
}

const WEIGHT_PLACES = 4;
const WEAKEST = 3;
// The US DoJ/FTC thresholds (HHI 1500 and 2500 on 0..10000, 2010 Horizontal Merger Guidelines) scaled to 0..1.
const MODERATE_FROM = dec('0.15');
const HIGH_ABOVE = dec('0.25');
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * Scores a portfolio of published indicators: the exact amount-weighted score
 * and its band under `framework`, weights, the weakest holdings, concentration
 * and the exposure to every band. Holdings count in the band they were
 * published with. Pure; throws an Error for an empty list, an amount that is
 * not positive decimal text, a score that is not a finite number or a band the
 * framework does not have.
 */
export function scorePortfolio(holdings: readonly Holding[], framework: Framework): PortfolioScore {
  if (holdings.length === 0) throw new Error(M.emptyPortfolio);
  const fw = framework.definition;
  const { bands } = compile(fw);
  const amounts = holdings.map((h, i) => amountOf(h, i));
  holdings.forEach((h, i) => {
    checkHolding(
      h,
      i,
      bands.map((b) => b.band),
      fw.framework_version,
    );
  });
  const total = sum(amounts);
  const scorePlaces = fw.arithmetic.final_score_places;
  const weightOf = (amount: Dec) => roundedQuotient(amount, total, WEIGHT_PLACES);
  const weighted: WeightedHolding[] = holdings.map((h, i) => {
    const amount = amounts[i] as Dec;
    return {
      ...h,
      weight: toNumber(weightOf(amount)),
      contribution: toNumber(roundedQuotient(amount.times(dec(h.final_score)), total, WEIGHT_PLACES)),
    };
  });
  const score = roundedQuotient(
    sum(holdings.map((h, i) => (amounts[i] as Dec).times(dec(h.final_score)))),
    total,
    scorePlaces,
  );
  const at = bands.findIndex((b) => score.gte(b.min));
  const squares = sum(amounts.map((a) => a.times(a)));
  const hhi = roundedQuotient(squares, total.times(total), WEIGHT_PLACES);
  const largest = amounts.reduce((max, a) => (a.gt(max) ? a : max), ZERO);
  return {
    framework_version: fw.framework_version,
    portfolio_score: toNumber(score),
    risk_band: (bands[at === -1 ? bands.length - 1 : at] as { band: string }).band,
    total_amount: total.toFixed(),
    holdings: weighted,
    weakest: weakestOf(weighted, amounts),
    concentration: {
      herfindahl_index: toNumber(hhi),
      effective_holdings: toNumber(roundedQuotient(total.times(total), squares, 2)),
      largest_weight: toNumber(weightOf(largest)),
      level: levelOf(hhi),
    },
    exposure_by_band: bands.map(({ band }) => {
      const inBand = holdings.flatMap((h, i) => (h.risk_band === band ? [amounts[i] as Dec] : []));
      const amount = sum(inBand);
      return { risk_band: band, amount: amount.toFixed(), weight: toNumber(weightOf(amount)), holdings: inBand.length };
    }),
  };
}

/** Concentration by the published (rounded) HHI, so the level always agrees with the figure shown. */
function levelOf(hhi: Dec): ConcentrationLevel {
  if (hhi.lt(MODERATE_FROM)) return 'low';
  return hhi.lte(HIGH_ABOVE) ? 'moderate' : 'high';
}

function weakestOf(holdings: WeightedHolding[], amounts: Dec[]): WeightedHolding[] {
  return holdings
    .map((holding, index) => ({ holding, index, amount: amounts[index] as Dec }))
    .sort((a, b) => a.holding.final_score - b.holding.final_score || b.amount.comparedTo(a.amount) || a.index - b.index)
    .slice(0, WEAKEST)
    .map((e) => e.holding);
}

function amountOf(holding: Holding, i: number): Dec {
  const text = holding.amount;
  if (typeof text !== 'string' || !JSON_NUMBER.test(text)) throw new Error(M.notAmount(i, text));
  const amount = dec(text);
  if (!amount.gt(ZERO)) throw new Error(M.nonPositiveAmount(i, text));
  return amount;
}

function checkHolding(holding: Holding, i: number, bands: string[], framework: string): void {
  if (typeof holding.final_score !== 'number' || !Number.isFinite(holding.final_score)) {
    throw new Error(M.notScore(i, holding.final_score));
  }
  if (!bands.includes(holding.risk_band)) throw new Error(M.unknownBand(i, holding.risk_band, framework, bands));
}
