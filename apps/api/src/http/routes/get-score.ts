import { endpoints } from '@svc/contracts';
import { servedIndicatorJson } from '../../services/served.js';
import { findCurrent } from '../../store/repositories/providers.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getScore, async ({ params, services }) => {
  const row = await findCurrent(services.store.db, params.providerId.toLowerCase());
  if (!row) throw new ApiError('not_found', `no published Risk Indicator for provider ${params.providerId}`);
  return { jsonText: servedIndicatorJson(row) };
});
