import { endpoints } from '@svc/contracts';
import { issuanceResource } from '../../services/served.js';
import { listIssuances } from '../../store/repositories/issuances.js';
import { AnnouncedPosition, decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listIssuances, async ({ query, services, req }) => {
  const after = decodeCursor(query.cursor, AnnouncedPosition);
  const rows = await listIssuances(services.store.db, {
    status: query.status,
    type: query.type,
    includeClosed: query.include_closed,
    after: after ? { announced_at: after.a, id: after.id } : undefined,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ a: r.announced_at, id: r.id }));
  return {
    json: { data: page.map(issuanceResource), next_cursor: nextCursor },
    headers: nextLink(req.path, query, nextCursor),
  };
});
