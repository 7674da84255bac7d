import { endpoints } from '@svc/contracts';
import { deleteWebhook } from '../../services/webhooks/endpoints.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.deleteWebhook, async ({ params, caller, services, req }) => {
  await deleteWebhook(serviceContextOf({ caller, services, req }), params);
  return { status: 204 };
});
