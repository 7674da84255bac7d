import { endpoints } from '@svc/contracts';
import { portfolioScore } from '../../services/analysis.js';
import { routeContext } from '../context.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.scorePortfolio, async ({ body, services, req, caller }) => ({
  json: await portfolioScore(routeContext({ caller, services, req }), body),
}));
