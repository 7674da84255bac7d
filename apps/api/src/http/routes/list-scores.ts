import { endpoints, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { currentFramework } from '@svc/methodology';
import { currentIndicatorsPage } from '../../services/scores.js';
import { routeContext } from '../context.js';
import { decodeCursor, NamePosition, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listScores, async ({ query, caller, services, req }) => {
  const after = decodeCursor(query.cursor, NamePosition);
  const rows = await currentIndicatorsPage(routeContext({ caller, services, req }), {
    plannerType: query.planner_type,
    after,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ name: r.name, id: r.id }));
  const data = page.map((r) => r.json).join(',');
  const frameworkVersion = JSON.stringify(currentFramework().definition.framework_version);
  return {
    jsonText: `{"data":[${data}],"framework_version":${frameworkVersion},"limitations_disclosure":${JSON.stringify(LIMITATIONS_DISCLOSURE)},"next_cursor":${JSON.stringify(nextCursor)}}`,
    headers: nextLink(req.path, query, nextCursor),
  };
});
