import { endpoints, type StatusResponse } from '@svc/contracts';
import { currentFramework } from '@svc/methodology';
import { latestScoredAt } from '../../store/repositories/providers.js';
import { defineRoute } from '../route.js';

/** Always answers while the process is up: a store outage shows as `degraded`, not as an error. */
export default defineRoute(endpoints.getStatus, async ({ services }) => {
  const now = services.clock.now();
  let store: 'ok' | 'unavailable' = 'ok';
  let latest: string | null = null;
  try {
    latest = await latestScoredAt(services.store.db);
  } catch {
    store = 'unavailable';
  }
  const rateLimitStore = services.limiter.state();
  const body: StatusResponse = {
    status: store === 'ok' && rateLimitStore !== 'degraded' ? 'ok' : 'degraded',
    uptime_seconds: Math.floor((now.getTime() - services.startedAt.getTime()) / 1000),
    started_at: services.startedAt.toISOString(),
    framework_version: currentFramework().definition.framework_version,
    data_freshness: {
      latest_scored_at: latest,
      age_seconds: latest === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(latest)) / 1000)),
    },
    components: { store, rate_limit_store: rateLimitStore },
  };
  return { json: body, headers: { 'Cache-Control': 'no-store' } };
});
