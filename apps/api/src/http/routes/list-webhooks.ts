import { endpoints } from '@svc/contracts';
import { listWebhooks } from '../../services/webhooks/endpoints.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listWebhooks, async ({ caller, services, req }) => ({
  json: { data: await listWebhooks(serviceContextOf({ caller, services, req })) },
}));
