import { endpoints } from '@svc/contracts';
import { compareProviders } from '../../services/analysis/compare.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.compareScores, async ({ query, services, req, caller }) => ({
  json: await compareProviders(serviceContextOf({ caller, services, req }), query),
}));
