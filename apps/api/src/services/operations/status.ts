import type { StatusResponse } from '@svc/contracts';
import { withinStoreTimeout } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { frameworkInForce } from '../frameworks/frameworks.js';
import type { FreshnessPolicy } from '../shared/freshness-policy.js';
import { ageSeconds, type Headline, newestScoredAt } from '../shared/public-snapshot.js';

/** What the status tells of the record: whether the store answered, the framework in force, freshness, watches, policy. */
export interface StatusFigures {
  store: StatusResponse['components']['store'];
  framework_version: string;
  data_freshness: StatusResponse['data_freshness'];
  watches: StatusResponse['watches'];
  /** The freshness policy in force: the configuration's, answered even while the store is away. */
  policy: StatusResponse['policy'];
}

/**
 * The status's figures of the record, always answered within one store timeout (`timeoutMs`): the store's round trip,
 * the freshness and the watches from the public snapshot (never a read of every provider), the framework in force.
 * A store outage (or tables locked) is `unavailable`, with no freshness and no watches, and the framework in force as
 * last read; never an error.
 */
export async function statusFigures(ctx: ServiceContext, input: { timeoutMs: number }): Promise<StatusFigures> {
  const now = ctx.clock.now();
  // Every read of the store together, within one timeout: not one timeout per read that waits on a lock.
  const reads = Promise.all([ctx.store.ping().then(() => ctx.snapshot.headlines()), frameworkInForce(ctx)]);
  const lastRead = await frameworkInForce(ctx, { asLastRead: true });
  try {
    const [headlines, framework] = await withinStoreTimeout(reads, input.timeoutMs);
    const latest = newestScoredAt(headlines);
    return {
      store: 'ok',
      framework_version: framework.definition.framework_version,
      data_freshness: { latest_scored_at: latest, age_seconds: ageSeconds(latest, now) },
      watches: watchCounts(headlines, now.toISOString().slice(0, 10)),
      policy: policyOf(ctx.freshness),
    };
  } catch {
    return {
      store: 'unavailable',
      framework_version: lastRead.definition.framework_version,
      data_freshness: { latest_scored_at: null, age_seconds: null },
      watches: null,
      policy: policyOf(ctx.freshness),
    };
  }
}

/** The freshness policy as the status shows it (decision 0053). */
function policyOf(policy: FreshnessPolicy): StatusResponse['policy'] {
  return {
    max_evaluation_age_days: policy.maxEvaluationAgeDays,
    review_cadence_days: {
      default: policy.reviewCadenceDays.default,
      by_planner_type: { ...policy.reviewCadenceDays.byPlannerType },
    },
  };
}

/** The watches in force and those past their review date (review_by before `today`, UTC). */
function watchCounts(headlines: readonly Headline[], today: string): NonNullable<StatusResponse['watches']> {
  let onWatch = 0;
  let overdue = 0;
  for (const h of headlines) {
    if (h.watch === null) continue;
    onWatch++;
    if (h.watch.review_by < today) overdue++;
  }
  return { on_watch: onWatch, overdue };
}
