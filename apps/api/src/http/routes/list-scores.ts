import { endpoints, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { frameworkInForce } from '../../services/frameworks.js';
import { servedIndicatorJson } from '../../services/served.js';
import { listCurrent } from '../../store/repositories/providers.js';
import { decodeCursor, NamePosition, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.listScores, async ({ query, services, req }) => {
  const after = decodeCursor(query.cursor, NamePosition);
  const rows = await listCurrent(services.store.db, { plannerType: query.planner_type, after, limit: query.limit + 1 });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ name: r.name, id: r.id }));
  const data = page.map(servedIndicatorJson).join(',');
  const frameworkVersion = JSON.stringify((await frameworkInForce(services)).definition.framework_version);
  return {
    jsonText: `{"data":[${data}],"framework_version":${frameworkVersion},"limitations_disclosure":${JSON.stringify(LIMITATIONS_DISCLOSURE)},"next_cursor":${JSON.stringify(nextCursor)}}`,
    headers: nextLink(req.path, query, nextCursor),
  };
});
