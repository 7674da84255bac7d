import { type Dec, ONE, percent, r4, sum, ZERO } from '../decimal.js';
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
 */
export function confidenceOf(criteria: readonly { criterion: { weight: number }; freshness: Dec }[]): Dec {
  return r4(percent(sum(criteria.map((c) => c.freshness.times(c.criterion.weight)))));
}
