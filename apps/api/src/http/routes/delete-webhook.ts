import { endpoints } from '@svc/contracts';
import { deleteWebhook } from '../../services/webhooks/endpoints.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.deleteWebhook, async ({ params, caller, services, req }) => {
  await deleteWebhook(routeContext({ caller, services, req }), params);
  return { status: 204 };
});
