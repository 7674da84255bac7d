import { PLANNER_TYPES, type PlannerType } from '@svc/methodology';

/**
 * The freshness policy (configuration, decision 0053): how old an evaluation may be when it is published, and how
 * often a rating in force is due for review, by planner type.
 */
export interface FreshnessPolicy {
  /** A provider whose evaluation_date is more than this many days before today (UTC) is not published. */
  maxEvaluationAgeDays: number;
  /** Days from an evaluation to its review: a default, and each planner type's (the default unless set). */
  reviewCadenceDays: { default: number; byPlannerType: Record<PlannerType, number> };
}

export const DEFAULT_MAX_EVALUATION_AGE_DAYS = 31;
export const DEFAULT_REVIEW_CADENCE_DAYS = 180;

/** The policy from its settings: each planner type's cadence the default unless it has its own. */
export function freshnessPolicy(settings: {
  maxEvaluationAgeDays?: number | undefined;
  reviewCadenceDays?: number | undefined;
  byPlannerType?: Partial<Record<PlannerType, number>> | undefined;
}): FreshnessPolicy {
  const cadence = settings.reviewCadenceDays ?? DEFAULT_REVIEW_CADENCE_DAYS;
  const byPlannerType = Object.fromEntries(
    PLANNER_TYPES.map((type) => [type, settings.byPlannerType?.[type] ?? cadence]),
  ) as Record<PlannerType, number>;
  return {
    maxEvaluationAgeDays: settings.maxEvaluationAgeDays ?? DEFAULT_MAX_EVALUATION_AGE_DAYS,
    reviewCadenceDays: { default: cadence, byPlannerType },
  };
}

/** The policy with every default: what a context is given when nothing else is configured. */
export const DEFAULT_FRESHNESS_POLICY: FreshnessPolicy = freshnessPolicy({});

const DAY_MS = 86_400_000;

/** Whole days from a YYYY-MM-DD date to the UTC day of `now` (negative when the date is later). */
export function daysBefore(date: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((today - Date.parse(`${date.slice(0, 10)}T00:00:00Z`)) / DAY_MS);
}

/** Why an evaluation is too old to publish today under the policy, or null when it is not (exactly the limit is allowed). */
export function evaluationTooOld(
  evaluationDate: string,
  now: Date,
  policy: FreshnessPolicy,
): { days: number; limit: number; today: string; message: string } | null {
  const days = daysBefore(evaluationDate, now);
  const limit = policy.maxEvaluationAgeDays;
  if (days <= limit) return null;
  const today = now.toISOString().slice(0, 10);
  const message = `${evaluationDate} is ${days} days before today (${today}, UTC), more than max_evaluation_age_days (${limit})`;
  return { days, limit, today, message };
}
