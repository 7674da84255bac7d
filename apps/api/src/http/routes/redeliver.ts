import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { redeliver } from '../../services/webhooks/endpoints.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.redeliver, async ({ params, caller, services }) => {
  const { workspaceId } = caller as Caller;
  const delivery = await redeliver(services.store, services.clock, workspaceId, params.webhookId, params.deliveryId);
  services.dispatcher?.wake();
  return { status: 202, json: delivery };
});
