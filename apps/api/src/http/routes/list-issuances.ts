import { endpoints } from '@svc/contracts';
import { issuanceResource } from '../../services/served.js';
import { listIssuances } from '../../store/repositories/issuances.js';
import { decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

const isPosition = (v: unknown): v is { a: string; id: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { a?: unknown }).a === 'string' &&
  typeof (v as { id?: unknown }).id === 'string';

export default defineRoute(endpoints.listIssuances, async ({ query, services, req }) => {
  const after = decodeCursor(query.cursor, isPosition);
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
