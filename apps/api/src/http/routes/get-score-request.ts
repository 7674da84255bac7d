import { type CoverageRequestStatus, endpoints } from '@svc/contracts';
import { findCoverageRequest } from '../../store/repositories/coverage-requests.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

/** A coverage request's status and resolution note: nothing the requester sent (name, website, email, message). */
export default defineRoute(endpoints.getScoreRequest, async ({ params, services }) => {
  const row = await findCoverageRequest(services.store.db, params.requestId);
  if (!row) throw new ApiError('not_found', `no coverage request ${params.requestId}`);
  const answer: CoverageRequestStatus = {
    request_id: row.id,
    status: row.status as CoverageRequestStatus['status'],
    resolution_note: row.resolution,
  };
  return { json: answer };
});
