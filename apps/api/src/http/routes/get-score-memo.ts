import { endpoints } from '@svc/contracts';
import { MEMO_CSP } from '../../services/memo.js';
import { scoreMemo } from '../../services/scores.js';

import { siteUrlOf } from '../problem.js';
import { defineRoute, serviceContextOf } from '../route.js';

export default defineRoute(endpoints.getScoreMemo, async ({ params, query, caller, services, req }) => {
  const memo = await scoreMemo(serviceContextOf({ caller, services, req }), {
    providerId: params.providerId,
    format: query.format,
    siteUrl: siteUrlOf(req),
  });
  return {
    body: memo.body,
    contentType: memo.contentType,
    headers: query.format === 'html' ? { 'Content-Security-Policy': MEMO_CSP } : ({} as Record<string, string>),
  };
});
