import { endpoints } from '@svc/contracts';
import { findIndicator } from '../../store/repositories/providers.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

/** The package's stored canonical bytes, unchanged, so an auditor can check them byte for byte. */
export default defineRoute(endpoints.getComputation, async ({ params, services }) => {
  const row = await findIndicator(services.store.db, params.id);
  if (!row) throw new ApiError('not_found', `no published Risk Indicator ${params.id}`);
  return { jsonText: row.package };
});
