import { endpoints } from '@svc/contracts';
import { compareProviders } from '../../services/compare.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.compareScores, async ({ query, services, req, caller }) => ({
  json: await compareProviders(routeContext({ caller, services, req }), query),
}));
