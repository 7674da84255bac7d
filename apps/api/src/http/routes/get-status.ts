import { endpoints, type StatusResponse } from '@svc/contracts';
import { frameworkInForce } from '../../services/frameworks.js';
import type { Headline } from '../../services/public-snapshot.js';
import { defineRoute } from '../route.js';

/** The newest evaluation among the current indicators. */
function newestScoredAt(headlines: readonly Headline[]): string | null {
  let newest: string | null = null;
  for (const h of headlines) if (newest === null || h.scored_at > newest) newest = h.scored_at;
  return newest;
}

/** Always answers while the process is up: a store outage shows as `degraded`, not as an error. */
export default defineRoute(endpoints.getStatus, async ({ services }) => {
  const now = services.clock.now();
  let store: 'ok' | 'unavailable' = 'ok';
  let latest: string | null = null;
  try {
    // A round trip proves the store answers; the freshness comes from the public snapshot, so a status call
    // never reads every provider (tens of milliseconds at 10,000 on either engine).
    await services.store.ping();
    latest = newestScoredAt(await services.snapshot.headlines());
  } catch {
    store = 'unavailable';
  }
  const rateLimitStore = services.limiter.state();
  const body: StatusResponse = {
    status: store === 'ok' && rateLimitStore !== 'degraded' ? 'ok' : 'degraded',
    uptime_seconds: Math.floor((now.getTime() - services.startedAt.getTime()) / 1000),
    started_at: services.startedAt.toISOString(),
    framework_version: (await frameworkInForce(services)).definition.framework_version,
    data_freshness: {
      latest_scored_at: latest,
      age_seconds: latest === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(latest)) / 1000)),
    },
    components: { store, rate_limit_store: rateLimitStore },
  };
  return { json: body, headers: { 'Cache-Control': 'no-store' } };
});
