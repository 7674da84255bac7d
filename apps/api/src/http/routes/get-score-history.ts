import { endpoints } from '@svc/contracts';
import { HistoryPosition, historyPage } from '../../services/history.js';
import { findProvider } from '../../store/repositories/providers.js';
import { decodeCursor, nextLink } from '../pagination.js';
import { ApiError } from '../problem.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.getScoreHistory, async ({ params, query, services, req }) => {
  const providerId = params.providerId.toLowerCase();
  const provider = await findProvider(services.store.db, providerId);
  if (!provider) throw new ApiError('not_found', `no provider ${params.providerId}`);
  const before = decodeCursor(query.cursor, HistoryPosition);
  const { dataJson, nextCursor } = await historyPage(services.store.db, providerId, before, query.limit);
  return {
    jsonText: `{"provider_id":${JSON.stringify(providerId)},"data":${dataJson},"next_cursor":${JSON.stringify(nextCursor)}}`,
    headers: nextLink(req.path, query, nextCursor),
  };
});
