import { endpoints, type Issuance } from '@svc/contracts';
import { type IssuanceRow, listIssuances } from '../../store/repositories/issuances.js';
import { decodeCursor, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

const isPosition = (v: unknown): v is { a: string; id: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { a?: unknown }).a === 'string' &&
  typeof (v as { id?: unknown }).id === 'string';

export function issuanceOf(row: IssuanceRow): Issuance {
  return {
    id: row.id,
    issuer_name: row.issuer_name,
    provider_id: row.provider_id,
    instrument_name: row.instrument_name,
    ticker: row.ticker,
    type: row.type as Issuance['type'],
    status: row.status as Issuance['status'],
    currency: row.currency,
    target_amount: Number(row.target_amount),
    coupon_rate_pct: row.coupon_rate_pct,
    coupon_frequency: row.coupon_frequency as Issuance['coupon_frequency'],
    expected_pricing_date: row.expected_pricing_date,
    announced_at: row.announced_at,
    updated_at: row.updated_at,
  };
}

export default defineRoute(endpoints.listIssuances, async ({ query, services, req }) => {
  const after = decodeCursor(query.cursor, isPosition);
  const rows = await listIssuances(services.store.db, {
    status: query.status,
    type: query.type,
    after: after ? { announced_at: after.a, id: after.id } : undefined,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ a: r.announced_at, id: r.id }));
  return {
    json: { data: page.map(issuanceOf), next_cursor: nextCursor },
    headers: nextLink(req.path, query, nextCursor),
  };
});
