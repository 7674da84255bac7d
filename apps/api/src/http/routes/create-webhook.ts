import { endpoints } from '@svc/contracts';
import { registerWebhook } from '../../services/webhooks/endpoints.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.createWebhook, async ({ body, caller, services, req }) => {
  const endpoint = await registerWebhook(serviceContextOf({ caller, services, req }), body);
  return { status: 201, json: endpoint, headers: { Location: `/api/v1/webhooks/${endpoint.id}` } };
});
