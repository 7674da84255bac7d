import { operationsEndpoints, type ReadyResponse } from '@svc/contracts';
import { readiness } from '../../services/operations/operations.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

const RETRY_AFTER_SECONDS = 5;

/** 200 when the store answers and its migrations are applied; otherwise 503 naming the failed check. */
export default defineRoute(operationsEndpoints.getReadyz, async ({ services, req }) => {
  const { ready, checks, failure } = await readiness(services.store, services.storeTimeoutMs);
  if (ready) {
    const body: ReadyResponse = { status: 'ready', checks: { store: 'ok', migrations: 'ok' } };
    return { json: body, headers: { 'Cache-Control': 'no-store' } };
  }
  if (checks.store !== 'ok') services.metrics?.storeError('readiness');
  services.logger.warn({ req_id: req.res?.locals.requestId, checks, err: failure }, 'not ready');
  const detail =
    checks.store === 'ok'
      ? `not ready: migrations this instance needs are not applied (${checks.migrations.replace(/^pending: /, '')}); run svc db migrate`
      : `not ready: the store did not answer within ${services.storeTimeoutMs} ms`;
  throw new ApiError(
    'unavailable',
    detail,
    { retry_after_seconds: RETRY_AFTER_SECONDS, checks },
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
});
