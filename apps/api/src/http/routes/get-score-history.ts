import { endpoints } from '@svc/contracts';
import { scoreHistory } from '../../services/records/history.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getScoreHistory, async (route) => {
  const { params, query, req } = route;
  const history = await scoreHistory(serviceContextOf(route), {
    providerId: params.providerId,
    cursor: query.cursor,
    limit: query.limit,
  });
  return { jsonText: history.json, headers: nextLink(req.path, query, history.nextCursor) };
});
