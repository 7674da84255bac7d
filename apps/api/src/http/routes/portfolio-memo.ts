import { endpoints } from '@svc/contracts';
import { MEMO_CSP, portfolioMemo } from '../../pages/memo.js';
import { portfolioScore } from '../../services/analysis/analysis.js';

import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.portfolioMemo, async ({ body, query, services, req, caller }) => {
  const portfolio = await portfolioScore(serviceContextOf({ caller, services, req }), body);
  const memo = portfolioMemo(portfolio, { preparedAt: services.clock.now().toISOString() }, query.format);
  return {
    body: memo.body,
    contentType: memo.contentType,
    headers: query.format === 'html' ? { 'Content-Security-Policy': MEMO_CSP } : ({} as Record<string, string>),
  };
});
