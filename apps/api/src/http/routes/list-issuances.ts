import { endpoints } from '@svc/contracts';
import { issuancesPage } from '../../services/issuances/issuances.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listIssuances, async (route) => {
  const { query, req } = route;
  const { data, nextCursor } = await issuancesPage(serviceContextOf(route), {
    status: query.status,
    type: query.type,
    includeClosed: query.include_closed,
    cursor: query.cursor,
    limit: query.limit,
  });
  return { json: { data, next_cursor: nextCursor }, headers: nextLink(req.path, query, nextCursor) };
});
