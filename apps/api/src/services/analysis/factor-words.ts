import type { DecisionFactor, DecisionObject } from '@svc/methodology';

/**
 * The decision object's two lists are chosen apart (methodology section 8): the floor factors are the largest
 * contributions, the ceiling factors the largest shortfalls from a criterion's weight. A heavily weighted criterion
 * scoring well short of 100 is in both, so the engine's summary names it after "anchored by" and again after "held
 * back by". That sentence is part of the published package and stays as it is; the pages and memos sort the factors
 * so each criterion is named once, and say what being in both means.
 */

type Factors = Pick<DecisionObject<number>, 'floor_factors' | 'ceiling_factors'>;

/** A criterion in both lists: what it earns (its floor factor) and how far short of its weight it falls. */
export interface BothWays {
  floor: DecisionFactor<number>;
  ceiling: DecisionFactor<number>;
}

/** The factors by criterion, each criterion in one list: holding back only, supporting only, or both. */
export function sortedFactors(decision: Factors): {
  holding: DecisionFactor<number>[];
  supporting: DecisionFactor<number>[];
  both: BothWays[];
} {
  const floors = new Map(decision.floor_factors.map((f) => [f.criterion_id, f]));
  const ceilings = new Set(decision.ceiling_factors.map((f) => f.criterion_id));
  const both = decision.ceiling_factors.flatMap((ceiling) => {
    const floor = floors.get(ceiling.criterion_id);
    return floor === undefined ? [] : [{ floor, ceiling }];
  });
  const shared = new Set(both.map((b) => b.floor.criterion_id));
  return {
    holding: decision.ceiling_factors.filter((f) => !shared.has(f.criterion_id)),
    supporting: decision.floor_factors.filter((f) => !ceilings.has(f.criterion_id)),
    both,
  };
}

/** One criterion in both lists, with its two figures: "Collateral coverage (9.00 points earned, 3.00 short of its weight)". */
export function bothWaysItem(b: BothWays): string {
  return `${b.floor.criterion_label} (${b.floor.point_impact.toFixed(2)} points earned, ${Math.abs(b.ceiling.point_impact).toFixed(2)} short of its weight)`;
}

/**
 * The sentence after the summary when a criterion is in both lists, or null: "Collateral coverage (…) and Custody
 * model (…) are named both as anchoring and as holding back the score: each is heavily weighted, so it earns among the
 * most points yet still falls among the furthest short of its full weight."
 */
export function bothWaysWords(decision: Factors): string | null {
  const { both } = sortedFactors(decision);
  if (both.length === 0) return null;
  const one = both.length === 1;
  return `${listOf(both.map(bothWaysItem))} ${one ? 'is' : 'are'} named both as anchoring and as holding back the score: ${one ? 'it is' : 'each is'} heavily weighted, so it earns among the most points yet still falls among the furthest short of its full weight.`;
}

/** "a", "a and b", "a, b and c". */
function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
