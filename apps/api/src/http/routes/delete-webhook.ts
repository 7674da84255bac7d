import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { deleteWebhook } from '../../services/webhooks/endpoints.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.deleteWebhook, async ({ params, caller, services }) => {
  await deleteWebhook(services.store, services.clock, (caller as Caller).workspaceId, params.webhookId);
  return { status: 204 };
});
