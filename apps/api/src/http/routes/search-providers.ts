import { endpoints } from '@svc/contracts';
import { searchProviders } from '../../services/search.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.searchProviders, async ({ query, services, req, caller }) => ({
  json: { query: query.q, data: await searchProviders(routeContext({ caller, services, req }), query) },
}));
