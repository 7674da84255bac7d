import { endpoints } from '@svc/contracts';
import { listWebhooks } from '../../services/webhooks/endpoints.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listWebhooks, async ({ caller, services, req }) => ({
  json: { data: await listWebhooks(routeContext({ caller, services, req })) },
}));
