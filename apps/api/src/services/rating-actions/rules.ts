import type { AnalystActionType } from '@svc/contracts';
import { controlCharacterProblem, readJson } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { findProvider, type ProviderRow } from '../../store/repositories/providers.js';
import type { RatingActionRow } from '../../store/repositories/rating-actions.js';
import type { Database } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { DEFAULT_OUTLOOK, watchOf } from '../scores/served.js';
import {
  DAY_MS,
  DEFAULT_REVIEW_DAYS,
  LONGEST_REVIEW_DAYS,
  type Proposal,
  RATIONALE_MAX,
  type RatingActionRecord,
  type Standing,
  standingOf,
} from './model.js';
import { actionFormOf } from './rating-action-form.js';

/** The rules of analyst actions: the provider in force, the standing after, the values a proposal may hold. */

// ---- the rules ----

/** The provider, which must have an indicator in force (an analyst action is about a rating in force). */
export async function inForce(tx: Kysely<Database>, providerId: string, actionId?: string): Promise<ProviderRow> {
  const provider = await findProvider(tx, providerId);
  const about = actionId ? `rating action ${actionId}: ` : '';
  if (!provider) throw new ServiceError('not_found', `${about}no provider ${providerId}`);
  if (provider.withdrawn_at !== null || provider.current_indicator_id === null) {
    const why = provider.withdrawn_at !== null ? `was withdrawn at ${provider.withdrawn_at}` : 'was never published';
    throw new ServiceError(
      'refused',
      `${about}provider ${providerId} has no indicator in force (it ${why}): rating actions are about a rating in force`,
    );
  }
  return provider;
}

/**
 * The outlook and watch an analyst action leaves in force, or a refusal when it would change nothing: a watch
 * placed while one is on, removed while none is, an outlook already in force. A watch placed with no review date
 * is reviewed 90 days after it takes effect (`now`).
 */
export function standingAfter(
  type: AnalystActionType,
  provider: ProviderRow,
  proposal: Proposal,
  now: string,
): Standing {
  const current = standingOf(provider);
  const watch = watchOf(current);
  switch (type) {
    case 'WATCH_PLACED': {
      if (watch) {
        throw new ServiceError(
          'refused',
          `provider ${provider.id} is already on watch (${watch.direction} since ${watch.since}, review by ${watch.review_by}): remove it first`,
        );
      }
      const reviewBy = proposal.review_by ?? addDays(now.slice(0, 10), DEFAULT_REVIEW_DAYS);
      if (reviewBy <= now.slice(0, 10)) {
        const message = `${reviewBy} is no longer after today (${now.slice(0, 10)}): propose the watch again with a later date`;
        throw new ServiceError('refused', `review_by ${message}`, [{ path: 'review_by', message }]);
      }
      return {
        ...current,
        watch_direction: proposal.direction ?? null,
        watch_since: now,
        watch_review_by: reviewBy,
      };
    }
    case 'WATCH_REMOVED':
      if (!watch)
        throw new ServiceError('refused', `provider ${provider.id} is not on watch: there is no watch to remove`);
      return { ...current, watch_direction: null, watch_since: null, watch_review_by: null };
    case 'OUTLOOK_CHANGED':
      if (proposal.outlook === current.outlook) {
        throw new ServiceError('refused', `provider ${provider.id}'s outlook is ${current.outlook} already`);
      }
      return { ...current, outlook: proposal.outlook ?? DEFAULT_OUTLOOK };
  }
}

/** A value of a closed set, or invalid_value naming the field and the set. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const message = `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`;
  throw new ServiceError('invalid_value', `${field} ${message}`, [{ path: field, message }]);
}

/** A rationale: 1 to 2,000 characters once trimmed, line breaks allowed, no other control character. */
export function rationaleOf(raw: string): string {
  const text = raw.trim();
  const fail = (message: string) =>
    new ServiceError('invalid_value', `rationale ${message}`, [{ path: 'rationale', message }]);
  // Characters as people count them (code points): an emoji or a CJK extension character is one, not two.
  const length = [...text].length;
  if (length === 0) throw fail('must not be empty: say why');
  if (length > RATIONALE_MAX) throw fail(`must be at most ${RATIONALE_MAX} characters (${length} given)`);
  const unreadable = controlCharacterProblem(raw, 'multiline');
  if (unreadable) throw fail(unreadable);
  return text;
}

/** A review date: a real YYYY-MM-DD after today and at most a year ahead. */
export function reviewDate(text: string, day: string): string {
  const fail = (message: string) =>
    new ServiceError('invalid_value', `review_by ${message}`, [{ path: 'review_by', message }]);
  const time = Date.parse(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text) {
    throw fail(`must be a date (YYYY-MM-DD) on the calendar, not ${JSON.stringify(text)}`);
  }
  if (text <= day) throw fail(`must be after today (${day}), not ${text}`);
  const latest = addDays(day, LONGEST_REVIEW_DAYS);
  if (text > latest)
    throw fail(`must be at most ${LONGEST_REVIEW_DAYS} days ahead (${latest} at the latest), not ${text}`);
  return text;
}

export function today(ctx: ServiceContext): string {
  return isoNow(ctx.clock).slice(0, 10);
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function recordOf(row: RatingActionRow): RatingActionRecord {
  return {
    id: row.id,
    status: row.status as RatingActionRecord['status'],
    type: row.type as RatingActionRecord['type'],
    provider_id: row.provider_id,
    provider_name: row.provider_name,
    proposal: row.proposal === null ? null : (readJson(row.proposal) as Proposal),
    rationale: row.rationale,
    proposed_by: row.proposed_by,
    proposed_at: row.proposed_at,
    approved_by: row.approved_by,
    effective_at: row.effective_at,
    action: row.status === 'EFFECTIVE' ? actionFormOf(row) : null,
  };
}

/** Code-unit order, never locale order. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
