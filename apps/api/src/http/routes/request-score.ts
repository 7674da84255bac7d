import { type CoverageRequestBody, endpoints } from '@svc/contracts';
import { earlierRequest, requestCoverage } from '../../services/coverage-requests/coverage-requests.js';

import { defineRoute, type RouteModule, serviceContextOf } from '../route.js';

/**
 * Stores a coverage request. The same body again from the same client within 24 hours gets the same receipt and
 * spends nothing of the 5-an-hour budget (see RouteModule.replay): resubmitting is asking, not a new request.
 */
const route = defineRoute(endpoints.requestScore, async ({ body, caller, services, req }) => ({
  status: 202,
  json: await requestCoverage(serviceContextOf({ caller, services, req }), body),
}));

export default {
  ...route,
  replay: {
    limit: 'score_request_status',
    answer: async ({ body, caller, services, req }) => {
      const receipt = await earlierRequest(serviceContextOf({ caller, services, req }), body as CoverageRequestBody);
      return receipt ? { status: 202, json: receipt } : null;
    },
  },
} satisfies RouteModule;
