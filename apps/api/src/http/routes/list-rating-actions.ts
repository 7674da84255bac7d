import { endpoints } from '@svc/contracts';
import { ratingActionsPage } from '../../services/rating-actions/rating-actions.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listRatingActions, async (route) => {
  const { query, req } = route;
  const { data, nextCursor } = await ratingActionsPage(serviceContextOf(route), query);
  return {
    json: { data, next_cursor: nextCursor },
    headers: { 'Cache-Control': 'public, max-age=30', ...nextLink(req.path, query, nextCursor) },
  };
});
