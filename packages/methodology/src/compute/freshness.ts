import { type Dec, dec, ONE, percent, r4, sum, ZERO } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import { type CompiledFramework, decayedAt } from './compiled.js';

/**
 * Freshness factor of methodology section 7: 0 when missing, 1 while fresh, a
 * linear decay (r4) to the decay horizon, the stale factor beyond it.
 */
export function freshnessFactor(
  rule: FrameworkDefinition['freshness'],
  compiled: CompiledFramework,
  ageDays: number | null,
): Dec {
  if (ageDays === null) return ZERO;
  if (ageDays <= rule.full_until_days) return ONE;
  if (ageDays > rule.decay_until_days) return compiled.staleFactor;
  if (rule === compiled.freshness) return compiled.decayed[ageDays - rule.full_until_days - 1] as Dec;
  return decayedAt(compiled.decay, ageDays - rule.full_until_days, rule.decay_until_days - rule.full_until_days);
}

/**
 * Confidence of methodology section 7, r4(sum of weight x freshness / 100), from each criterion's freshness (a
 * missing criterion's is 0, so leaving it out changes nothing).
 *
 * With `units` (CompiledFramework.freshnessUnits) and every freshness among its factors, the same figure in whole
 * numbers: each factor f is u x 10^-4 (u at most 10^10 with the weights summing to 100), so the sum is S x 10^-4
 * with S = sum of weight x u, exact in a double (at most 10^12), and confidence = r4(S x 10^-6) is S / 100 rounded
 * half-even to a whole number of 10^-4, non-negative. The decimal route is the reference (property suite).
 */
export function confidenceOf(
  criteria: readonly { criterion: { weight: number }; freshness: Dec }[],
  units: ReadonlyMap<Dec, number> | null = null,
): Dec {
  if (units !== null) {
    let total = 0;
    for (const c of criteria) {
      const u = units.get(c.freshness);
      if (u === undefined) return decimalConfidence(criteria);
      total += c.criterion.weight * u;
    }
    return dec(fixedUnits(halfEvenQuotient(total, 100), 4));
  }
  return decimalConfidence(criteria);
}

function decimalConfidence(criteria: readonly { criterion: { weight: number }; freshness: Dec }[]): Dec {
  return r4(percent(sum(criteria.map((c) => c.freshness.times(c.criterion.weight)))));
}

/** n / d rounded half-even to a whole number, for whole n >= 0 and d > 0 within 2^53. */
export function halfEvenQuotient(n: number, d: number): number {
  const q = Math.floor(n / d);
  const r = n - q * d;
  return 2 * r > d || (2 * r === d && q % 2 === 1) ? q + 1 : q;
}

/** The text of units x 10^-places, for whole units >= 0. */
export function fixedUnits(units: number, places: number): string {
  const scale = 10 ** places;
  const whole = Math.floor(units / scale);
  return places === 0 ? `${whole}` : `${whole}.${`${units - whole * scale}`.padStart(places, '0')}`;
}
