import { endpoints, type StatusResponse } from '@svc/contracts';
import { frameworkInForce } from '../../services/frameworks.js';
import { ageSeconds, type Headline, newestScoredAt } from '../../services/public-snapshot.js';
import { withinStoreTimeout } from '../../store/store.js';
import { defineRoute } from '../route.js';

/** The watches in force and those past their review date (review_by before today, UTC). */
function watchCounts(headlines: readonly Headline[], today: string): { on_watch: number; overdue: number } {
  let onWatch = 0;
  let overdue = 0;
  for (const h of headlines) {
    if (h.watch === null) continue;
    onWatch++;
    if (h.watch.review_by < today) overdue++;
  }
  return { on_watch: onWatch, overdue };
}

/**
 * Always answers while the process is up, within one store timeout: a store outage (or tables locked) shows as
 * `degraded`, not as an error, and the framework in force is then the one last read.
 */
export default defineRoute(endpoints.getStatus, async ({ services }) => {
  const now = services.clock.now();
  let store: 'ok' | 'unavailable' = 'ok';
  let latest: string | null = null;
  let watches: StatusResponse['watches'] = null;
  // Every read of the store together, within one timeout: not one timeout per read that waits on a lock.
  const reads = Promise.all([
    // A round trip proves the store answers; the freshness and the watches come from the public snapshot, so a
    // status call never reads every provider (tens of milliseconds at 10,000 on either engine).
    services.store.ping().then(() => services.snapshot.headlines()),
    frameworkInForce(services),
  ]);
  let framework = await frameworkInForce(services, { asLastRead: true });
  try {
    const [headlines, inForce] = await withinStoreTimeout(reads, services.storeTimeoutMs);
    latest = newestScoredAt(headlines);
    watches = watchCounts(headlines, now.toISOString().slice(0, 10));
    framework = inForce;
  } catch {
    store = 'unavailable';
  }
  const rateLimitStore = services.limiter.state();
  const body: StatusResponse = {
    status: store === 'ok' && rateLimitStore !== 'degraded' ? 'ok' : 'degraded',
    uptime_seconds: Math.floor((now.getTime() - services.startedAt.getTime()) / 1000),
    started_at: services.startedAt.toISOString(),
    framework_version: framework.definition.framework_version,
    data_freshness: {
      latest_scored_at: latest,
      age_seconds: ageSeconds(latest, now),
    },
    components: { store, rate_limit_store: rateLimitStore },
    watches,
  };
  return { json: body, headers: { 'Cache-Control': 'no-store' } };
});
