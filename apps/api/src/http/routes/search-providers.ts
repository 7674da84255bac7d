import { endpoints } from '@svc/contracts';
import { searchProviders } from '../../services/search.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.searchProviders, async ({ query, services }) => ({
  json: { query: query.q, data: await searchProviders(services.snapshot, query) },
}));
