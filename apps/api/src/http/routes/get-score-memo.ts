import { endpoints } from '@svc/contracts';
import { MEMO_CSP, providerMemo } from '../../pages/memo.js';
import { memoFacts } from '../../services/scores/scores.js';

import { siteUrlOf } from '../problem.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getScoreMemo, async ({ params, query, caller, services, req }) => {
  const { indicator, history, bands } = await memoFacts(serviceContextOf({ caller, services, req }), params);
  const memo = providerMemo(
    indicator,
    history,
    { preparedAt: services.clock.now().toISOString(), siteUrl: siteUrlOf(req), bands },
    query.format,
  );
  return {
    body: memo.body,
    contentType: memo.contentType,
    headers: query.format === 'html' ? { 'Content-Security-Policy': MEMO_CSP } : ({} as Record<string, string>),
  };
});
