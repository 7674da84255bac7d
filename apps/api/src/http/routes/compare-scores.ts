import { endpoints } from '@svc/contracts';
import { compareProviders } from '../../services/compare.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.compareScores, async ({ query, services }) => ({
  json: await compareProviders(services.store, query.ids),
}));
