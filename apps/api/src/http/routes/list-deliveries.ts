import { endpoints } from '@svc/contracts';
import { listWebhookDeliveries } from '../../services/webhooks/endpoints.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listDeliveries, async (route) => {
  const { params, query, req } = route;
  const { data, nextCursor } = await listWebhookDeliveries(serviceContextOf(route), { ...query, ...params });
  return { json: { data, next_cursor: nextCursor }, headers: nextLink(req.path, query, nextCursor) };
});
