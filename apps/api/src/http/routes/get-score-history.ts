import { endpoints } from '@svc/contracts';
import { servedIndicatorJson } from '../../services/served.js';
import { findProvider, listHistory } from '../../store/repositories/providers.js';
import { decodeCursor, NumberPosition, nextLink, pageOf } from '../pagination.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getScoreHistory, async ({ params, query, services, req }) => {
  const providerId = params.providerId.toLowerCase();
  const provider = await findProvider(services.store.db, providerId);
  if (!provider) throw new ApiError('not_found', `no provider ${params.providerId}`);
  const before = decodeCursor(query.cursor, NumberPosition);
  const rows = await listHistory(services.store.db, providerId, { beforeSeq: before?.n, limit: query.limit + 1 });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ n: r.seq }));
  return {
    jsonText: `{"provider_id":${JSON.stringify(providerId)},"data":[${page.map(servedIndicatorJson).join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`,
    headers: nextLink(req.path, query, nextCursor),
  };
});
