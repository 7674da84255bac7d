import { endpoints } from '@svc/contracts';
import { portfolioScore } from '../../services/analysis.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.scorePortfolio, async ({ body, services }) => ({
  json: await portfolioScore(services, body),
}));
