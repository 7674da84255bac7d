import { endpoints } from '@svc/contracts';
import { redeliver } from '../../services/webhooks/endpoints.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.redeliver, async ({ params, caller, services, req }) => {
  const delivery = await redeliver(serviceContextOf({ caller, services, req }), params);
  return { status: 202, json: delivery };
});
