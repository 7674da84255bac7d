import { endpoints } from '@svc/contracts';
import { changes } from '../../services/records/changelog.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getChangelog, async (route) => {
  const { query, req } = route;
  const { data, nextCursor } = await changes(serviceContextOf(route), query);
  return {
    json: { data, next_cursor: nextCursor },
    headers: { 'Cache-Control': 'public, max-age=30', ...nextLink(req.path, query, nextCursor) },
  };
});
