import { type Dec, ONE, percent, r4, sum, ZERO } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import type { CompiledFramework } from './compiled.js';

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
  const span = rule.decay_until_days - rule.full_until_days;
  return r4(ONE.minus(compiled.decay.times(ageDays - rule.full_until_days).div(span)));
}

/**
 * Confidence of methodology section 7, r4(sum of weight x freshness / 100), from each criterion's freshness (a
 * missing criterion's is 0, so leaving it out changes nothing).
 */
export function confidenceOf(criteria: readonly { criterion: { weight: number }; freshness: Dec }[]): Dec {
  return r4(percent(sum(criteria.map((c) => c.freshness.times(c.criterion.weight)))));
}
