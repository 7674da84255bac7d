import type { Outlook, RatingAction, RatingActionType, RiskBand } from '@svc/contracts';
import type { RatingActionsTable } from '../../store/schema.js';
import { DEFAULT_OUTLOOK, watchOf } from '../scores/served.js';

/** A rating action as it took effect: what the feed serves without its signature, and what its statement states. */
export type RatingActionForm = Omit<RatingAction, 'signature'>;

/** The form of an effective action's row; a pending one has none (a programming error to ask). */
export function actionFormOf(row: RatingActionsTable): RatingActionForm {
  if (row.effective_at === null || row.risk_indicator_id === null || row.framework_version === null) {
    throw new Error(`rating action ${row.id} is not effective`);
  }
  return {
    id: row.id,
    provider_id: row.provider_id,
    provider_name: row.provider_name,
    type: row.type as RatingActionType,
    previous_band: row.previous_band as RiskBand | null,
    new_band: row.new_band as RiskBand | null,
    previous_score: row.previous_score === null ? null : Number(row.previous_score),
    new_score: row.new_score === null ? null : Number(row.new_score),
    outlook: (row.outlook ?? DEFAULT_OUTLOOK) as Outlook,
    watch: watchOf(row),
    rationale: row.rationale,
    risk_indicator_id: row.risk_indicator_id,
    framework_version: row.framework_version,
    proposed_by: row.proposed_by,
    approved_by: row.approved_by,
    effective_at: row.effective_at,
  };
}
