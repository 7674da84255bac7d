import { endpoints } from '@svc/contracts';
import { portfolioScore } from '../../services/analysis.js';
import { MEMO_CSP, portfolioMemo } from '../../services/memo.js';
import { defineRoute } from '../route.js';

export default defineRoute(endpoints.portfolioMemo, async ({ body, query, services }) => {
  const portfolio = await portfolioScore(services, body);
  const memo = portfolioMemo(portfolio, { preparedAt: services.clock.now().toISOString() }, query.format);
  return {
    body: memo.body,
    contentType: memo.contentType,
    headers: query.format === 'html' ? { 'Content-Security-Policy': MEMO_CSP } : ({} as Record<string, string>),
  };
});
