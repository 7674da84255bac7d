import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { pingWebhook } from '../../services/webhooks/endpoints.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.testWebhook, async ({ params, caller, services }) => {
  const delivery = await pingWebhook(services.store, services.clock, (caller as Caller).workspaceId, params.webhookId);
  services.dispatcher?.wake();
  return { status: 202, json: delivery };
});
