import { type Issuance, LIMITATIONS_DISCLOSURE, type Outlook, type Watch, type WatchDirection } from '@svc/contracts';
import type { IssuanceRow } from '../../store/repositories/issuances.js';

/**
 * A served Risk Indicator: the engine's JSON as stored at publication, with
 * the publication fields added as text, so a read never re-parses or
 * re-serialises the breakdown.
 */
export function servedIndicatorJson(row: {
  indicator: string;
  path_to_next_band: string | null;
  score_verified_at: string;
  published_at: string;
  statement_kid: string | null;
  statement_signature: string | null;
  statement_sha256: string | null;
  outlook: string | null;
  watch_direction: string | null;
  watch_since: string | null;
  watch_review_by: string | null;
}): string {
  return `${row.indicator.slice(0, -1)},"score_verified_at":${JSON.stringify(row.score_verified_at)},"published_at":${JSON.stringify(row.published_at)},"outlook":${JSON.stringify(row.outlook ?? DEFAULT_OUTLOOK)},"watch":${JSON.stringify(watchOf(row))},"path_to_next_band":${row.path_to_next_band ?? 'null'},"signature":${signatureJson(row)},"limitations_disclosure":${DISCLOSURE_JSON}}`;
}

/** The outlook a rating has until an approved action sets another. */
export const DEFAULT_OUTLOOK: Outlook = 'STABLE';

/** The watch in force as the forms carry it: null, or its direction, since when and its review date. */
export function watchOf(row: {
  watch_direction: string | null;
  watch_since: string | null;
  watch_review_by: string | null;
}): Watch {
  if (row.watch_direction === null || row.watch_since === null || row.watch_review_by === null) return null;
  return {
    direction: row.watch_direction as WatchDirection,
    since: row.watch_since,
    review_by: row.watch_review_by,
  };
}

/** The publication's signature as the indicator carries it: the key, the value and the hash of the statement signed. */
function signatureJson(row: {
  statement_kid: string | null;
  statement_signature: string | null;
  statement_sha256: string | null;
}): string {
  if (row.statement_kid === null || row.statement_signature === null || row.statement_sha256 === null) return 'null';
  return JSON.stringify({
    kid: row.statement_kid,
    value: row.statement_signature,
    statement_sha256: row.statement_sha256,
  });
}

export const DISCLOSURE_JSON = JSON.stringify(LIMITATIONS_DISCLOSURE);

/** An issuance record as the API serves it (and as the issuance.updated event carries it). */
export function issuanceResource(row: IssuanceRow): Issuance {
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
