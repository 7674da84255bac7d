import { endpoints } from '@svc/contracts';
import { whatIf } from '../../services/analysis/analysis.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.whatIf, async ({ params, body, services, req, caller }) => ({
  json: await whatIf(serviceContextOf({ caller, services, req }), {
    providerId: params.providerId.toLowerCase(),
    body,
  }),
}));
