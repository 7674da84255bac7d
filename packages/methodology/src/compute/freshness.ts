import { type Dec, ONE, r4, ZERO } from '../decimal.js';
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
