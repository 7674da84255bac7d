import { endpoints } from '@svc/contracts';
import { listWebhookDeliveries } from '../../services/webhooks/endpoints.js';
import { routeContext } from '../context.js';
import { CreatedPosition, decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listDeliveries, async ({ params, query, caller, services, req }) => {
  const before = decodeCursor(query.cursor, CreatedPosition);
  const rows = await listWebhookDeliveries(routeContext({ caller, services, req }), {
    webhookId: params.webhookId,
    status: query.status,
    before: before ? { created_at: before.c, id: before.id } : undefined,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ c: r.created_at, id: r.id }));
  return {
    json: { data: page, next_cursor: nextCursor },
    headers: nextLink(req.path, query, nextCursor),
  };
});
