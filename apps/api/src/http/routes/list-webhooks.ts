import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { listWebhooks } from '../../services/webhooks/endpoints.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listWebhooks, async ({ caller, services }) => ({
  json: { data: await listWebhooks(services.store, (caller as Caller).workspaceId) },
}));
