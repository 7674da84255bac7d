import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { registerWebhook } from '../../services/webhooks/endpoints.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.createWebhook, async ({ body, caller, services }) => {
  const { workspaceId } = caller as Caller;
  const endpoint = await registerWebhook(services.store, services.clock, services.webhookPolicy, workspaceId, body);
  return { status: 201, json: endpoint, headers: { Location: `/api/v1/webhooks/${endpoint.id}` } };
});
