import { endpoints } from '@svc/contracts';
import { coverageRequestStatus } from '../../services/coverage-requests/coverage-requests.js';

import { defineRoute, serviceContextOf } from '../route.js';

/** A coverage request's status and resolution note: nothing the requester sent (name, website, email, message). */
export default defineRoute(endpoints.getScoreRequest, async ({ params, caller, services, req }) => ({
  json: await coverageRequestStatus(serviceContextOf({ caller, services, req }), params),
}));
