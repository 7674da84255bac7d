import { endpoints } from '@svc/contracts';
import { searchProviders } from '../../services/scores/search.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.searchProviders, async ({ query, services, req, caller }) => ({
  json: { query: query.q, data: await searchProviders(serviceContextOf({ caller, services, req }), query) },
}));
