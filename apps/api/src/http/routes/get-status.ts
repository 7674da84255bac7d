import { endpoints, type StatusResponse } from '@svc/contracts';
import { statusFigures } from '../../services/operations/status.js';
import { defineRoute, serviceContextOf } from '../route.js';

/**
 * Always answers while the process is up, within one store timeout: a store outage (or tables locked) shows as
 * `degraded`, not as an error, and the framework in force is then the one last read.
 */
export default defineRoute(endpoints.getStatus, async (route) => {
  const { services } = route;
  const now = services.clock.now();
  const record = await statusFigures(serviceContextOf(route), { timeoutMs: services.storeTimeoutMs });
  const rateLimitStore = services.limiter.state();
  const body: StatusResponse = {
    status: record.store === 'ok' && rateLimitStore !== 'degraded' ? 'ok' : 'degraded',
    uptime_seconds: Math.floor((now.getTime() - services.startedAt.getTime()) / 1000),
    started_at: services.startedAt.toISOString(),
    framework_version: record.framework_version,
    data_freshness: record.data_freshness,
    components: { store: record.store, rate_limit_store: rateLimitStore },
    watches: record.watches,
    policy: record.policy,
  };
  return { json: body, headers: { 'Cache-Control': 'no-store' } };
});
