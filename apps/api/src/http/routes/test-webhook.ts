import { endpoints } from '@svc/contracts';
import { pingWebhook } from '../../services/webhooks/endpoints.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.testWebhook, async ({ params, caller, services, req }) => {
  const delivery = await pingWebhook(serviceContextOf({ caller, services, req }), params);
  return { status: 202, json: delivery };
});
