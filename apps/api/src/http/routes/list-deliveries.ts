import { endpoints } from '@svc/contracts';
import type { Caller } from '../../services/access.js';
import { listWebhookDeliveries, withAttempts } from '../../services/webhooks/endpoints.js';
import { CreatedPosition, decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listDeliveries, async ({ params, query, caller, services, req }) => {
  const before = decodeCursor(query.cursor, CreatedPosition);
  const rows = await listWebhookDeliveries(services.store, (caller as Caller).workspaceId, params.webhookId, {
    status: query.status,
    before: before ? { created_at: before.c, id: before.id } : undefined,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ c: r.created_at, id: r.id }));
  return {
    json: { data: await withAttempts(services.store, page), next_cursor: nextCursor },
    headers: nextLink(req.path, query, nextCursor),
  };
});
