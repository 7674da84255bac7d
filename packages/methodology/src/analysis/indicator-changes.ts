import { dec, r2, r4, toNumber } from '../decimal.js';
import type { CriterionScore, RiskIndicator } from '../indicator.js';
import type { InputValue } from '../inputs/document.js';
import { messages as M } from './messages.js';

export interface CriterionChange {
  criterion_id: string;
  input_key: string;
  value_before: InputValue | null;
  value_after: InputValue | null;
  points_before: number;
  points_after: number;
  /** Exact difference, rounded like the engine's points (4 places, half-even). */
  points_delta: number;
}

export interface IndicatorChanges {
  /** Exact difference of the final scores (2 places). */
  final_score_delta: number;
  band_from: string;
  band_to: string;
  /** Only the criteria whose input value or points changed, in framework order. */
  criteria: CriterionChange[];
}

/** What changed between two Risk Indicators of one provider under one framework (a what-if and its base). */
export function indicatorChanges(before: RiskIndicator, after: RiskIndicator): IndicatorChanges {
  if (before.framework_version !== after.framework_version) {
    throw new Error(M.differentFrameworks(before.framework_version, after.framework_version));
  }
  const earlier = new Map(before.criterion_scores.map((c) => [c.criterion_id, c]));
  const criteria = after.criterion_scores.flatMap((now): CriterionChange[] => {
    const then = earlier.get(now.criterion_id) as CriterionScore<number>;
    if (then.input_value === now.input_value && then.points === now.points) return [];
    return [
      {
        criterion_id: now.criterion_id,
        input_key: now.input_key,
        value_before: then.input_value,
        value_after: now.input_value,
        points_before: then.points,
        points_after: now.points,
        points_delta: toNumber(r4(dec(now.points).minus(dec(then.points)))),
      },
    ];
  });
  return {
    final_score_delta: toNumber(r2(dec(after.final_score).minus(dec(before.final_score)))),
    band_from: before.risk_band,
    band_to: after.risk_band,
    criteria,
  };
}
