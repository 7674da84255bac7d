import { endpoints } from '@svc/contracts';
import { changes } from '../../services/changelog.js';
import { routeContext } from '../context.js';
import { decodeCursor, NumberPosition, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getChangelog, async ({ query, caller, services, req }) => {
  const before = decodeCursor(query.cursor, NumberPosition);
  const rows = await changes(routeContext({ caller, services, req }), {
    since: query.since,
    beforeId: before?.n,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ n: Number(r.id) }));
  return {
    json: { data: page, next_cursor: nextCursor },
    headers: { 'Cache-Control': 'public, max-age=30', ...nextLink(req.path, query, nextCursor) },
  };
});
