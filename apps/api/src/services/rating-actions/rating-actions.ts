import {
  type AnalystActionType,
  OUTLOOKS,
  type Outlook,
  type RatingAction,
  type RatingActionType,
  WATCH_DIRECTIONS,
  type Watch,
  type WatchDirection,
} from '@svc/contracts';
import { canonicalJson, controlCharacterProblem, readJson } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { derivedActionId, type PublicationActionType, publicationActionType } from '../../store/rating-action-rules.js';
import { approvedAtInstant } from '../../store/repositories/approved-inputs.js';
import { increment, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import { findIndicator, findProvider, type ProviderRow, setStanding } from '../../store/repositories/providers.js';
import {
  findRatingAction,
  insertRatingAction,
  listEffectiveActions,
  listPendingActions,
  makeEffective,
  RATING_ACTION_SEQ,
  type RatingActionRow,
  type SignedActionRow,
} from '../../store/repositories/rating-actions.js';
import { actionStatementsOf } from '../../store/repositories/statements.js';
import type { Database, RatingActionsTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { type AuditNote, auditActorOf, recordAudit } from '../operators/audit.js';
import { actingPerson, samePerson } from '../operators/operators.js';
import { DEFAULT_OUTLOOK, watchOf } from '../scores/served.js';
import { newId } from '../shared/ids.js';
import { decodeCursor, NumberPosition, pageOf } from '../shared/paging.js';
import {
  ensureStatements,
  type SignedStatement,
  signActionStatement,
  signedOf,
  statingRow,
} from '../statements/statements.js';
import { emitEvent } from '../webhooks/events.js';
import { actionFormOf, type RatingActionForm } from './rating-action-form.js';

/**
 * Rating actions (decision 0030; DESIGN-record section 4). A publication or a withdrawal is an action, derived in
 * its own transaction (NEW, UPGRADE, DOWNGRADE, AFFIRM, REINSTATE, WITHDRAW); an analyst proposes a watch, its
 * removal or a new outlook, and another person with the approver role makes it effective. Every effective action is
 * numbered, signed as a statement in its provider's chain and sent as `rating_action.created`; the outlook and watch
 * in force live on the provider's row, so every indicator form reads them at no cost.
 */

export type { RatingActionForm } from './rating-action-form.js';

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
const DEFAULT_REVIEW_DAYS = 90;
const LONGEST_REVIEW_DAYS = 365;
const RATIONALE_MAX = 2000;
const DAY_MS = 86_400_000;

// ---- actions derived from publications and withdrawals ----

/** The outlook and watch in force, as a provider's row and an action's row hold them. */
type Standing = Pick<ProviderRow, 'outlook' | 'watch_direction' | 'watch_since' | 'watch_review_by'>;

/** The outlook and watch a provider's row holds (the defaults for a provider not yet stored). */
function standingOf(provider: ProviderRow | undefined): Standing {
  return {
    outlook: provider?.outlook ?? DEFAULT_OUTLOOK,
    watch_direction: provider?.watch_direction ?? null,
    watch_since: provider?.watch_since ?? null,
    watch_review_by: provider?.watch_review_by ?? null,
  };
}

/** An effective action's row: numbered next, effective now. */
async function effectiveRow(
  tx: Kysely<Database>,
  row: Omit<RatingActionsTable, 'seq' | 'status' | 'proposal' | 'proposed_by_id' | 'proposed_at' | 'approved_by_id'>,
): Promise<RatingActionsTable> {
  const full: RatingActionsTable = {
    ...row,
    seq: await increment(tx, RATING_ACTION_SEQ),
    status: 'EFFECTIVE',
    proposal: null,
    proposed_by_id: null,
    proposed_at: null,
    approved_by_id: null,
  };
  await insertRatingAction(tx, full);
  return full;
}

/** What a publication's action is derived from. */
export interface PublishedAction {
  /** The provider's row before this publication (undefined for a provider not stored before). */
  provider: ProviderRow | undefined;
  providerName: string;
  publicationSeq: number;
  indicator: {
    risk_indicator_id: string;
    provider_id: string;
    final_score: number;
    risk_band: string;
    framework_version: string;
  };
  /** The indicator in force before, if any. */
  previous: { risk_band: string; final_score: number } | undefined;
  now: string;
}

/**
 * The row of the action a publication is, numbered `seq`: NEW for the provider's first publication, REINSTATE for
 * the first after a withdrawal, else UPGRADE, DOWNGRADE or AFFIRM by the band of the indicator it replaced; the
 * outlook and watch in force carry on (a publication does not end a watch). Built here for the verb and for bulk
 * loads (the bench data set).
 */
export function publicationActionRow(
  p: PublishedAction,
  seq: number,
  maker: { submitted_by: string; approved_by: string | null } | undefined,
): RatingActionsTable {
  const { provider, indicator, previous } = p;
  const type: PublicationActionType = publicationActionType(
    provider?.withdrawn_at != null
      ? { published: true, withdrawn: true }
      : previous
        ? { published: true, band: previous.risk_band }
        : { published: false },
    indicator.risk_band,
  );
  return {
    id: derivedActionId('publication', {
      seq: p.publicationSeq,
      providerId: indicator.provider_id,
      riskIndicatorId: indicator.risk_indicator_id,
      at: p.now,
    }),
    seq,
    status: 'EFFECTIVE',
    type,
    provider_id: indicator.provider_id,
    provider_name: p.providerName,
    previous_band: previous?.risk_band ?? null,
    new_band: indicator.risk_band,
    previous_score: previous?.final_score ?? null,
    new_score: indicator.final_score,
    ...standingOf(type === 'REINSTATE' ? undefined : provider),
    rationale: null,
    risk_indicator_id: indicator.risk_indicator_id,
    framework_version: indicator.framework_version,
    publication_seq: p.publicationSeq,
    proposal: null,
    proposed_by: maker?.submitted_by ?? null,
    proposed_by_id: null,
    proposed_at: null,
    approved_by: maker?.approved_by ?? null,
    approved_by_id: null,
    effective_at: p.now,
  };
}

/** Who made and checked a publication: the inputs approved at its score_verified_at (`approvedAt`). */
export const publicationMaker = (tx: Kysely<Database>, providerId: string, approvedAt: string) =>
  approvedAtInstant(tx, providerId, approvedAt);
export type PublicationMaker = Awaited<ReturnType<typeof approvedAtInstant>>;

/**
 * Records the action a publication is (publicationActionRow), in its transaction, before its audit entry. Its maker
 * and checker are the submission's (`maker`: publicationMaker), its sequence number taken with the publication's
 * counters: both read before the transaction writes anything (decision 0038).
 */
export async function recordPublicationAction(
  tx: Kysely<Database>,
  p: PublishedAction & { actionSeq: number; maker: PublicationMaker },
): Promise<RatingActionsTable> {
  const row = publicationActionRow(p, p.actionSeq, p.maker);
  await insertRatingAction(tx, row);
  return row;
}

/**
 * Records the WITHDRAW action of a withdrawal, in its transaction, before its audit entry: the indicator withdrawn,
 * the reason as its rationale, the person withdrawing as its approver. The outlook and watch end with the rating.
 */
export async function recordWithdrawalAction(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  w: {
    provider: ProviderRow;
    publicationSeq: number;
    withdrawn: { risk_indicator_id: string; final_score: number; risk_band: string; framework_version: string };
    reason: string | null;
    now: string;
  },
): Promise<RatingActionsTable> {
  const { provider, withdrawn } = w;
  await setStanding(tx, provider.id, standingOf(undefined));
  return effectiveRow(tx, {
    id: derivedActionId('withdrawal', {
      seq: w.publicationSeq,
      providerId: provider.id,
      riskIndicatorId: withdrawn.risk_indicator_id,
      at: w.now,
    }),
    type: 'WITHDRAW',
    provider_id: provider.id,
    provider_name: provider.name,
    previous_band: withdrawn.risk_band,
    new_band: null,
    previous_score: withdrawn.final_score,
    new_score: null,
    ...standingOf(undefined),
    rationale: w.reason,
    risk_indicator_id: withdrawn.risk_indicator_id,
    framework_version: withdrawn.framework_version,
    publication_seq: w.publicationSeq,
    proposed_by: null,
    approved_by: auditActorOf(ctx).name,
    effective_at: w.now,
  });
}

/**
 * What follows an effective action's audit entry, in its transaction: its signed statement (chained after its
 * provider's latest, naming that entry) and its `rating_action.created` event, which carries the signature.
 */
export async function completeAction(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  row: RatingActionsTable,
  auditHead: { seq: number; hash: string },
  /** The endpoints subscribed to `rating_action.created`, when the transaction has read them already. */
  subscribed?: readonly { id: string }[],
): Promise<RatingAction> {
  const { action, ...signed } = await signActionStatement(ctx, tx, row, auditHead);
  const served: RatingAction = {
    ...action,
    signature: { kid: signed.kid, value: signed.signature, statement_sha256: signed.statement_sha256 },
  };
  await emitEvent(tx, { type: 'rating_action.created', at: action.effective_at, data: served }, subscribed);
  return served;
}

// ---- analyst actions: proposed by one person, approved by another ----

/** A watch on the provider, in a direction, reviewed by a date (default: 90 days after it takes effect). */
export async function proposeWatch(
  ctx: ServiceContext,
  input: { providerId: string; direction: string; reviewBy?: string | undefined; rationale: string },
): Promise<RatingActionRecord> {
  const direction = oneOf(input.direction, WATCH_DIRECTIONS, 'direction');
  const reviewBy = input.reviewBy === undefined ? null : reviewDate(input.reviewBy, today(ctx));
  return propose(ctx, {
    type: 'WATCH_PLACED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: { direction, review_by: reviewBy },
  });
}

/** The end of the provider's watch. */
export async function proposeWatchRemoval(
  ctx: ServiceContext,
  input: { providerId: string; rationale: string },
): Promise<RatingActionRecord> {
  return propose(ctx, {
    type: 'WATCH_REMOVED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: {},
  });
}

/** A new outlook for the provider. */
export async function proposeOutlook(
  ctx: ServiceContext,
  input: { providerId: string; outlook: string; rationale: string },
): Promise<RatingActionRecord> {
  const outlook = oneOf(input.outlook, OUTLOOKS, 'outlook');
  return propose(ctx, {
    type: 'OUTLOOK_CHANGED',
    providerId: input.providerId,
    rationale: input.rationale,
    proposal: { outlook },
  });
}

/**
 * Records a proposal (PENDING) by an analyst: refused, with nothing written, on a provider with no indicator in
 * force or when it would change nothing (a watch already on, no watch to remove, the outlook in force).
 */
async function propose(
  ctx: ServiceContext,
  p: { type: AnalystActionType; providerId: string; rationale: string; proposal: Proposal },
): Promise<RatingActionRecord> {
  const rationale = rationaleOf(p.rationale);
  const providerId = p.providerId.trim().toLowerCase();
  const by = await actingPerson(ctx, 'analyst', 'proposing a rating action', 'proposer');
  return ctx.store.db.transaction().execute(async (tx) => {
    const provider = await inForce(tx, providerId);
    standingAfter(p.type, provider, p.proposal, isoNow(ctx.clock));
    const now = isoNow(ctx.clock);
    const row: RatingActionsTable = {
      id: newId('ra'),
      seq: null,
      status: 'PENDING',
      type: p.type,
      provider_id: provider.id,
      provider_name: provider.name,
      previous_band: null,
      new_band: null,
      previous_score: null,
      new_score: null,
      outlook: null,
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
      rationale,
      risk_indicator_id: null,
      framework_version: null,
      publication_seq: null,
      proposal: canonicalJson(p.proposal),
      proposed_by: by.name,
      proposed_by_id: by.id,
      proposed_at: now,
      approved_by: null,
      approved_by_id: null,
      effective_at: null,
    };
    await insertRatingAction(tx, row);
    await recordAudit(ctx, tx, [
      {
        action: 'rating_action.proposed',
        subject: { type: 'rating_action', id: row.id },
        details: { provider_id: provider.id, type: p.type, proposal: p.proposal, rationale },
      },
    ]);
    return recordOf(row);
  });
}

/**
 * Makes pending actions effective, all or none, in one transaction: each approved by a person with the approver
 * role who did not propose it, applied in the order proposed (so a watch placed and removed in one approval ends
 * removed), each checked again against the provider as it then stands, numbered, signed and sent. The publication
 * version moves, so every instance rebuilds its public list with the new outlook and watch.
 */
export async function approveRatingActions(
  ctx: ServiceContext,
  input: { ids: readonly string[] },
): Promise<RatingAction[]> {
  const ids = [...new Set(input.ids.map((id) => id.trim()))];
  if (ids.length === 0) throw new ServiceError('invalid_value', 'name at least one rating action to approve');
  const malformed = ids.filter((id) => !/^ra_[0-9a-f]{24}$/.test(id));
  if (malformed.length > 0) {
    const message = `is not a rating action id (ra_ and 24 lower-case hex digits): ${malformed.map((id) => JSON.stringify(id)).join(', ')}`;
    throw new ServiceError('invalid_value', `id ${message}`, [{ path: 'id', message }]);
  }
  const by = await actingPerson(ctx, 'approver', 'approving rating actions', 'approver');
  await ensureStatements(ctx);
  const approved = await ctx.store.db.transaction().execute(async (tx) => {
    // Taken first, as publishing does: approvals, publications and withdrawals write one at a time.
    await increment(tx, PUBLICATION_VERSION);
    const rows: RatingActionRow[] = [];
    for (const id of ids) {
      const row = await findRatingAction(tx, id);
      if (!row) throw new ServiceError('not_found', `no rating action ${id}`);
      if (row.status !== 'PENDING') {
        throw new ServiceError('refused', `rating action ${id} is not pending: it took effect at ${row.effective_at}`);
      }
      if (samePerson({ id: row.proposed_by_id, name: row.proposed_by ?? '' }, by)) {
        throw new ServiceError(
          'refused',
          `rating action ${id}: ${by.name} proposed it and cannot approve it; another person with the approver role must`,
        );
      }
      rows.push(row);
    }
    rows.sort((a, b) => compare(a.proposed_at ?? '', b.proposed_at ?? '') || compare(a.id, b.id));
    const now = isoNow(ctx.clock);
    const effective: RatingActionsTable[] = [];
    for (const row of rows) {
      const provider = await inForce(tx, row.provider_id, row.id);
      const proposal = (row.proposal === null ? {} : readJson(row.proposal)) as Proposal;
      const standing = standingAfter(row.type as AnalystActionType, provider, proposal, now);
      const indicator = await findIndicator(tx, provider.current_indicator_id as string);
      if (!indicator) throw new Error(`provider ${provider.id} points at no stored indicator`);
      await setStanding(tx, provider.id, standing);
      const done: RatingActionsTable = {
        ...row,
        seq: await increment(tx, RATING_ACTION_SEQ),
        status: 'EFFECTIVE',
        provider_name: provider.name,
        previous_band: indicator.risk_band,
        new_band: indicator.risk_band,
        previous_score: indicator.final_score,
        new_score: indicator.final_score,
        ...standing,
        risk_indicator_id: indicator.risk_indicator_id,
        framework_version: indicator.framework_version,
        publication_seq: provider.current_seq,
        approved_by: by.name,
        approved_by_id: by.id,
        effective_at: now,
      };
      if (!(await makeEffective(tx, row.id, done))) {
        throw new ServiceError('refused', `rating action ${row.id} was approved meanwhile`);
      }
      effective.push(done);
    }
    const entries = await recordAudit(ctx, tx, effective.map(approvedNote));
    const served: RatingAction[] = [];
    for (const [i, row] of effective.entries()) {
      const entry = entries[i];
      if (!entry) throw new Error('the audit entry of an approval was not written');
      served.push(await completeAction(ctx, tx, row, { seq: entry.seq, hash: entry.hash }));
    }
    return served;
  });
  ctx.wake?.();
  return approved;
}

function approvedNote(row: RatingActionsTable): AuditNote {
  return {
    action: 'rating_action.approved',
    subject: { type: 'rating_action', id: row.id },
    details: {
      provider_id: row.provider_id,
      type: row.type,
      seq: row.seq,
      proposed_by: row.proposed_by,
      outlook: row.outlook,
      watch: watchOf(row),
    },
  };
}

/** Pending proposals (oldest first), or those then the latest `limit` effective actions (newest first). */
export async function listRatingActions(
  ctx: ServiceContext,
  input: { pendingOnly?: boolean | undefined; limit?: number | undefined } = {},
): Promise<RatingActionRecord[]> {
  const limit = input.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
    throw new ServiceError('invalid_value', 'the limit is a whole number from 1 to 10000', [
      { path: 'limit', message: 'must be a whole number from 1 to 10000' },
    ]);
  }
  const pending = (await listPendingActions(ctx.store.db)).map(recordOf);
  if (input.pendingOnly) return pending;
  const effective = await listEffectiveActions(ctx.store.db, { limit });
  return [...pending, ...effective.map(recordOf)];
}

// ---- reading the record ----

/**
 * A page of effective actions, newest first, after the `cursor` of the previous page, optionally one provider's, one
 * type's, at or after `since` (a date or a timestamp); with the cursor of the next page (null on the last).
 */
export async function ratingActionsPage(
  ctx: ServiceContext,
  input: {
    provider_id?: string | undefined;
    type?: string | undefined;
    since?: string | undefined;
    cursor?: string | undefined;
    limit: number;
  },
): Promise<{ data: RatingAction[]; nextCursor: string | null }> {
  const before = decodeCursor(input.cursor, NumberPosition);
  const since = input.since === undefined ? undefined : new Date(Date.parse(input.since)).toISOString();
  const rows = await listEffectiveActions(ctx.store.db, {
    providerId: input.provider_id?.toLowerCase(),
    type: input.type,
    since,
    beforeSeq: before?.n,
    limit: input.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ n: Number(r.seq) }));
  return { data: page.map(servedAction), nextCursor };
}

/** An effective action as the feed serves it: its form and its signature (null until it is signed). */
function servedAction(row: SignedActionRow): RatingAction {
  const signature =
    row.statement_kid === null || row.statement_signature === null || row.statement_sha256 === null
      ? null
      : { kid: row.statement_kid, value: row.statement_signature, statement_sha256: row.statement_sha256 };
  return { ...actionFormOf(row), signature };
}

/** The signed statement of an effective action; not_found for an unknown id or a pending proposal. */
export async function ratingActionStatement(
  ctx: ServiceContext,
  input: { ratingActionId: string },
): Promise<SignedStatement> {
  const rows = await actionStatementsOf(ctx.store.db, input.ratingActionId);
  const row = statingRow(rows, { type: 'rating_action', ratingActionId: input.ratingActionId });
  if (!row) throw new ServiceError('not_found', `no effective rating action ${input.ratingActionId}`);
  return signedOf(row);
}

/** Every provider on watch now, soonest review first, and whether its review is overdue (before today, UTC). */
export async function watchesInForce(
  ctx: ServiceContext,
): Promise<{ provider_id: string; name: string; watch: NonNullable<Watch>; overdue: boolean }[]> {
  const day = today(ctx);
  const on = [];
  for (const h of await ctx.snapshot.headlines()) {
    if (h.watch !== null)
      on.push({ provider_id: h.id, name: h.name, watch: h.watch, overdue: h.watch.review_by < day });
  }
  return on.sort((a, b) => compare(a.watch.review_by, b.watch.review_by) || compare(a.provider_id, b.provider_id));
}

// ---- the rules ----

/** The provider, which must have an indicator in force (an analyst action is about a rating in force). */
async function inForce(tx: Kysely<Database>, providerId: string, actionId?: string): Promise<ProviderRow> {
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
function standingAfter(type: AnalystActionType, provider: ProviderRow, proposal: Proposal, now: string): Standing {
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
function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const message = `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`;
  throw new ServiceError('invalid_value', `${field} ${message}`, [{ path: field, message }]);
}

/** A rationale: 1 to 2,000 characters once trimmed, line breaks allowed, no other control character. */
function rationaleOf(raw: string): string {
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
function reviewDate(text: string, day: string): string {
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

function today(ctx: ServiceContext): string {
  return isoNow(ctx.clock).slice(0, 10);
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function recordOf(row: RatingActionRow): RatingActionRecord {
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
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
