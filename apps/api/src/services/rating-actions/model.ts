import type { Outlook, RatingActionType, WatchDirection } from '@svc/contracts';
import type { ProviderRow } from '../../store/repositories/providers.js';
import { DEFAULT_OUTLOOK } from '../scores/served.js';
import type { RatingActionForm } from './rating-action-form.js';

/** What rating actions are made of: a proposal, a record, the standing (outlook and watch) in force, the limits. */

/** What an analyst proposed: a watch's direction and review date (null: 90 days after approval), or an outlook. */
export interface Proposal {
  direction?: WatchDirection;
  review_by?: string | null;
  outlook?: Outlook;
}

/** An action as operators list it: pending (its proposal, no effect yet) or effective (its form). */
export interface RatingActionRecord {
  id: string;
  status: 'PENDING' | 'EFFECTIVE';
  type: RatingActionType;
  provider_id: string;
  provider_name: string;
  proposal: Proposal | null;
  rationale: string | null;
  proposed_by: string | null;
  proposed_at: string | null;
  approved_by: string | null;
  effective_at: string | null;
  /** The action as it took effect; null while pending. */
  action: RatingActionForm | null;
}

/** How long a watch runs before its review when the proposal names no date; and the longest one may run. */
export const DEFAULT_REVIEW_DAYS = 90;
export const LONGEST_REVIEW_DAYS = 365;
export const RATIONALE_MAX = 2000;
export const DAY_MS = 86_400_000;

/** The outlook and watch in force, as a provider's row and an action's row hold them. */
export type Standing = Pick<ProviderRow, 'outlook' | 'watch_direction' | 'watch_since' | 'watch_review_by'>;

/** The outlook and watch a provider's row holds (the defaults for a provider not yet stored). */
export function standingOf(provider: ProviderRow | undefined): Standing {
  return {
    outlook: provider?.outlook ?? DEFAULT_OUTLOOK,
    watch_direction: provider?.watch_direction ?? null,
    watch_since: provider?.watch_since ?? null,
    watch_review_by: provider?.watch_review_by ?? null,
  };
}
