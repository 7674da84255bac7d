import { endpoints, type RiskIndicatorResponse } from '@svc/contracts';
import { MEMO_CSP, providerMemo } from '../../services/memo.js';
import { servedIndicatorJson } from '../../services/served.js';
import { findCurrent, listHistory } from '../../store/repositories/providers.js';
import { ApiError, siteUrlOf } from '../problem.js';
import { defineRoute } from '../route.js';

const HISTORY_ROWS = 10;

export default defineRoute(endpoints.getScoreMemo, async ({ params, query, services, req }) => {
  const providerId = params.providerId.toLowerCase();
  const row = await findCurrent(services.store.db, providerId);
  if (!row) throw new ApiError('not_found', `no published Risk Indicator for provider ${params.providerId}`);
  const indicator = JSON.parse(servedIndicatorJson(row)) as RiskIndicatorResponse;
  const history = (await listHistory(services.store.db, providerId, { limit: HISTORY_ROWS })).map((h) => {
    const past = JSON.parse(h.indicator) as RiskIndicatorResponse;
    return {
      published_at: h.published_at,
      final_score: past.final_score,
      risk_band: past.risk_band,
      framework_version: past.framework_version,
      risk_indicator_id: past.risk_indicator_id,
    };
  });
  const memo = providerMemo(
    indicator,
    history,
    { preparedAt: services.clock.now().toISOString(), siteUrl: siteUrlOf(req) },
    query.format,
  );
  return {
    body: memo.body,
    contentType: memo.contentType,
    headers: query.format === 'html' ? { 'Content-Security-Policy': MEMO_CSP } : ({} as Record<string, string>),
  };
});
