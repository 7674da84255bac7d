import { endpoints } from '@svc/contracts';
import { issuancesPage } from '../../services/issuances.js';
import { routeContext } from '../context.js';
import { AnnouncedPosition, decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listIssuances, async ({ query, caller, services, req }) => {
  const after = decodeCursor(query.cursor, AnnouncedPosition);
  const rows = await issuancesPage(routeContext({ caller, services, req }), {
    status: query.status,
    type: query.type,
    includeClosed: query.include_closed,
    after: after ? { announced_at: after.a, id: after.id } : undefined,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ a: r.announced_at, id: r.id }));
  return {
    json: { data: page, next_cursor: nextCursor },
    headers: nextLink(req.path, query, nextCursor),
  };
});
