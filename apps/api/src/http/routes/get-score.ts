import { endpoints } from '@svc/contracts';
import { currentIndicator } from '../../services/scores/scores.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getScore, async ({ params, query, caller, services, req }) => ({
  jsonText: await currentIndicator(serviceContextOf({ caller, services, req }), {
    providerId: params.providerId,
    asOf: query.as_of,
    fields: query.fields,
  }),
}));
