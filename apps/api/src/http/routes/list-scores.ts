import { endpoints } from '@svc/contracts';
import { frameworkInForce } from '../../services/frameworks/frameworks.js';
import { currentIndicatorsPage } from '../../services/scores/scores.js';
import { DISCLOSURE_JSON } from '../../services/scores/served.js';
import { assembledPage } from '../../services/shared/served-indicators.js';
import { nextLink } from '../pagination.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.listScores, async (route) => {
  const { query, req } = route;
  const ctx = serviceContextOf(route);
  const { data, nextCursor, kept } = await currentIndicatorsPage(ctx, {
    plannerType: query.planner_type,
    cursor: query.cursor,
    limit: query.limit,
    asOf: query.as_of,
    fields: query.fields,
  });
  const frameworkVersion = JSON.stringify((await frameworkInForce(ctx)).definition.framework_version);
  const tail = `],"framework_version":${frameworkVersion},"limitations_disclosure":${DISCLOSURE_JSON},"next_cursor":${JSON.stringify(nextCursor)}}`;
  // The rows' bytes spliced into the envelope, as they are kept (decision 0036); a kept page's whole answer is
  // spliced once (decision 0043).
  const splice = (): Buffer => {
    const parts: Buffer[] = [OPEN];
    data.forEach((row, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(row);
    });
    parts.push(Buffer.from(tail));
    return Buffer.concat(parts);
  };
  return {
    body: kept ? assembledPage(kept, tail, splice) : splice(),
    contentType: 'application/json; charset=utf-8',
    headers: nextLink(req.path, { ...query, fields: query.fields?.join(',') }, nextCursor),
  };
});

const OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
