import { endpoints, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { frameworkInForce } from '../../services/frameworks.js';
import { currentIndicatorsPage } from '../../services/scores.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listScores, async (route) => {
  const { query, req } = route;
  const ctx = serviceContextOf(route);
  const { data, nextCursor } = await currentIndicatorsPage(ctx, {
    plannerType: query.planner_type,
    cursor: query.cursor,
    limit: query.limit,
    asOf: query.as_of,
  });
  const frameworkVersion = JSON.stringify((await frameworkInForce(ctx)).definition.framework_version);
  return {
    jsonText: `{"data":[${data.join(',')}],"framework_version":${frameworkVersion},"limitations_disclosure":${JSON.stringify(LIMITATIONS_DISCLOSURE)},"next_cursor":${JSON.stringify(nextCursor)}}`,
    headers: nextLink(req.path, query, nextCursor),
  };
});
