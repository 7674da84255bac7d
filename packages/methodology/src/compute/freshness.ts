import { type Dec, dec, ONE, r4, ZERO } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';

/**
 * Freshness factor of methodology section 7: 0 when missing, 1 while fresh, a
 * linear decay (r4) to the decay horizon, the stale factor beyond it.
 */
export function freshnessFactor(rule: FrameworkDefinition['freshness'], ageDays: number | null): Dec {
  if (ageDays === null) return ZERO;
  if (ageDays <= rule.full_until_days) return ONE;
  if (ageDays > rule.decay_until_days) return dec(rule.stale_factor);
  const span = rule.decay_until_days - rule.full_until_days;
  return r4(
    ONE.minus(
      dec(rule.decay)
        .times(ageDays - rule.full_until_days)
        .div(span),
    ),
  );
}
