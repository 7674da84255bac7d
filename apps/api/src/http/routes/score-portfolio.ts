import { endpoints } from '@svc/contracts';
import { portfolioScore } from '../../services/analysis/analysis.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.scorePortfolio, async ({ body, services, req, caller }) => ({
  json: await portfolioScore(serviceContextOf({ caller, services, req }), body),
}));
