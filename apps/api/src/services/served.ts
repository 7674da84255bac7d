import { LIMITATIONS_DISCLOSURE } from '@svc/contracts';

/**
 * A served Risk Indicator: the engine's JSON as stored at publication, with
 * the publication fields added as text, so a read never re-parses or
 * re-serialises the breakdown.
 */
export function servedIndicatorJson(row: {
  indicator: string;
  score_verified_at: string;
  published_at: string;
}): string {
  return `${row.indicator.slice(0, -1)},"score_verified_at":${JSON.stringify(row.score_verified_at)},"published_at":${JSON.stringify(row.published_at)},"limitations_disclosure":${DISCLOSURE_JSON}}`;
}

export const DISCLOSURE_JSON = JSON.stringify(LIMITATIONS_DISCLOSURE);
