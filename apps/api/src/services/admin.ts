import { randomBytes } from 'node:crypto';
import {
  COVERAGE_REQUEST_STATUSES,
  ISSUANCE_CLOSED_STATUSES,
  ISSUANCE_STATUSES,
  ISSUANCE_TYPES,
  type Issuance,
  type RiskBand,
  UuidSchema,
} from '@svc/contracts';
import { controlCharacterProblem, plainText } from '@svc/methodology';
import { z } from 'zod';
import { type Clock, isoNow } from '../clock.js';
import { insertChange } from '../store/repositories/changelog.js';
import {
  type CoverageRequestRow,
  findCoverageRequest,
  listCoverageRequests,
  updateCoverageRequest,
} from '../store/repositories/coverage-requests.js';
import { findIssuance, type IssuanceRow, listIssuances, upsertIssuance } from '../store/repositories/issuances.js';
import { increment, PUBLICATION_VERSION } from '../store/repositories/meta.js';
import { findIndicator, findProvider, listProvidersWithIndicator } from '../store/repositories/providers.js';
import { insertWithdrawal } from '../store/repositories/withdrawals.js';
import type { Store } from '../store/store.js';
import { issuanceResource } from './served.js';
import { emitEvent } from './webhooks/events.js';

/**
 * An administrative verb refused: `not_found` for an unknown id, `invalid_value` for data it cannot take,
 * `refused` when the records' state does not allow it (already withdrawn, already resolved).
 */
export class AdminError extends Error {
  override readonly name = 'AdminError';
  constructor(
    readonly code: 'not_found' | 'invalid_value' | 'refused',
    message: string,
    readonly problems: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

// ---- providers ----

export interface ProviderSummary {
  id: string;
  name: string;
  planner_type: string;
  final_score: number | null;
  risk_band: string | null;
  withdrawn: boolean;
  withdrawn_at: string | null;
}

/** Every provider by name: its indicator in force (none before publication or after withdrawal) and whether it is withdrawn. */
export async function listProviders(store: Store): Promise<ProviderSummary[]> {
  const rows = await listProvidersWithIndicator(store.db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    planner_type: r.planner_type,
    final_score: r.withdrawn_at === null ? (r.final_score ?? null) : null,
    risk_band: r.withdrawn_at === null ? (r.risk_band ?? null) : null,
    withdrawn: r.withdrawn_at !== null,
    withdrawn_at: r.withdrawn_at,
  }));
}

export interface Withdrawal {
  provider_id: string;
  provider_name: string;
  withdrawn_at: string;
  previous_score: number;
  previous_band: string;
  framework_version: string;
  reason: string | null;
}

/**
 * Withdraws a published provider in one transaction: marks it withdrawn, takes its indicator out of
 * force, writes the WITHDRAWN change-feed entry and bumps the publication version, so every instance
 * rebuilds its public snapshot without it. Publishing it again reinstates it (a NEW entry).
 */
export async function withdrawProvider(
  store: Store,
  clock: Clock,
  providerId: string,
  reason?: string,
): Promise<Withdrawal> {
  const why = reason === undefined ? null : reason.trim();
  if (why !== null && (why.length < 1 || why.length > 2000)) {
    throw new AdminError('invalid_value', 'a withdrawal reason is 1 to 2000 characters');
  }
  const unreadable = reason === undefined ? null : controlCharacterProblem(reason);
  if (unreadable) throw new AdminError('invalid_value', `a withdrawal reason ${unreadable}`);
  return store.db.transaction().execute(async (tx) => {
    // Taken first, as publishing does: it serialises writers on PostgreSQL.
    await increment(tx, PUBLICATION_VERSION);
    const provider = await findProvider(tx, providerId);
    if (!provider) throw new AdminError('not_found', `no provider ${providerId}`);
    if (provider.withdrawn_at !== null) {
      throw new AdminError('refused', `provider ${providerId} was already withdrawn at ${provider.withdrawn_at}`);
    }
    const current = provider.current_indicator_id ? await findIndicator(tx, provider.current_indicator_id) : undefined;
    if (!current || provider.current_seq === null)
      throw new AdminError('refused', `provider ${providerId} has no published indicator to withdraw`);
    const now = isoNow(clock);
    // Kept in the provider's history, right after the publication it ends.
    await insertWithdrawal(tx, {
      after_seq: provider.current_seq,
      provider_id: providerId,
      risk_indicator_id: current.risk_indicator_id,
      framework_version: current.framework_version,
      previous_score: current.final_score,
      previous_band: current.risk_band,
      reason: why,
      withdrawn_at: now,
    });
    await tx
      .updateTable('providers')
      .set({ withdrawn_at: now, current_indicator_id: null, current_seq: null, updated_at: now })
      .where('id', '=', providerId)
      .execute();
    await insertChange(tx, {
      provider_id: providerId,
      provider_name: provider.name,
      change_type: 'WITHDRAWN',
      previous_score: current.final_score,
      new_score: null,
      previous_band: current.risk_band,
      new_band: null,
      framework_version: current.framework_version,
      risk_indicator_id: null,
      changed_at: now,
    });
    const withdrawal = {
      provider_id: providerId,
      provider_name: provider.name,
      withdrawn_at: now,
      previous_score: current.final_score,
      previous_band: current.risk_band,
      framework_version: current.framework_version,
      reason: why,
    };
    await emitEvent(tx, {
      type: 'risk_indicator.withdrawn',
      at: now,
      data: { ...withdrawal, previous_band: current.risk_band as RiskBand },
    });
    return withdrawal;
  });
}

// ---- issuances ----

const FREQUENCIES = ['monthly', 'quarterly', 'semiannual', 'annual'] as const;

/** A positive decimal written exactly: digits, an optional fraction, no sign, no exponent. */
const DECIMAL = /^(0|[1-9]\d{0,17})(\.\d{1,8})?$/;

function calendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const text = (what: string, max: number) =>
  plainText(z.string())
    .trim()
    .min(1, `${what} is 1 to ${max} characters`)
    .max(max, `${what} is 1 to ${max} characters`);

/** The issuance record's field rules (the contracts' IssuanceSchema, made strict for writing). */
const IssuanceFieldsSchema = z.object({
  issuer_name: text('an issuer name', 200),
  instrument_name: text('an instrument name', 200),
  type: z.enum(ISSUANCE_TYPES, { error: `type must be one of ${ISSUANCE_TYPES.join(', ')}` }),
  status: z.enum(ISSUANCE_STATUSES, { error: `status must be one of ${ISSUANCE_STATUSES.join(', ')}` }),
  currency: z.string().regex(/^[A-Z]{3}$/, 'currency must be a three-letter ISO 4217 code in capitals, e.g. USD'),
  target_amount: z
    .string()
    .refine(
      (v) => DECIMAL.test(v) && /[1-9]/.test(v),
      'target amount must be a positive decimal number (greater than zero), e.g. 25000000 or 1250.50',
    ),
  provider_id: UuidSchema.nullable(),
  ticker: text('a ticker', 20).nullable(),
  coupon_rate_pct: z
    .string()
    .refine(
      (v) => /^\d{1,3}(\.\d{1,4})?$/.test(v) && Number(v) <= 100,
      'coupon rate must be a percentage from 0 to 100, e.g. 7.5',
    )
    .nullable(),
  coupon_frequency: z
    .enum(FREQUENCIES, { error: `coupon frequency must be one of ${FREQUENCIES.join(', ')}` })
    .nullable(),
  expected_pricing_date: z
    .string()
    .refine(calendarDate, 'expected pricing date must be a calendar date YYYY-MM-DD, e.g. 2026-09-30')
    .nullable(),
});

/** The fields of an issuance as an operator writes them: text, as typed (the coupon rate too). */
export interface IssuanceFields {
  issuer_name: string;
  instrument_name: string;
  type: string;
  status: string;
  currency: string;
  target_amount: string;
  provider_id?: string | undefined;
  ticker?: string | undefined;
  coupon_rate_pct?: string | undefined;
  coupon_frequency?: string | undefined;
  expected_pricing_date?: string | undefined;
}

export type IssuanceChanges = Partial<IssuanceFields>;

type Fields = z.infer<typeof IssuanceFieldsSchema>;

function validIssuance(fields: Record<string, unknown>): Fields {
  const parsed = IssuanceFieldsSchema.safeParse(fields);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const count = `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
  throw new AdminError('invalid_value', `not a valid issuance (${count}); nothing was written`, problems);
}

async function checkProvider(db: Store['db'], providerId: string | null): Promise<void> {
  if (providerId !== null && !(await findProvider(db, providerId))) {
    throw new AdminError('not_found', `no provider ${providerId}`);
  }
}

function rowOf(id: string, fields: Fields, announcedAt: string, updatedAt: string): IssuanceRow {
  return {
    id,
    issuer_name: fields.issuer_name,
    provider_id: fields.provider_id,
    instrument_name: fields.instrument_name,
    ticker: fields.ticker,
    type: fields.type,
    status: fields.status,
    currency: fields.currency,
    target_amount: fields.target_amount,
    coupon_rate_pct: fields.coupon_rate_pct === null ? null : Number(fields.coupon_rate_pct),
    coupon_frequency: fields.coupon_frequency,
    expected_pricing_date: fields.expected_pricing_date,
    announced_at: announcedAt,
    updated_at: updatedAt,
  };
}

/** Records a new issuance (id iss_ + 24 hex digits), announced now; answers it as the API serves it. */
export async function addIssuance(store: Store, clock: Clock, input: IssuanceFields): Promise<Issuance> {
  const fields = validIssuance({
    ...input,
    provider_id: input.provider_id ?? null,
    ticker: input.ticker ?? null,
    coupon_rate_pct: input.coupon_rate_pct ?? null,
    coupon_frequency: input.coupon_frequency ?? null,
    expected_pricing_date: input.expected_pricing_date ?? null,
  });
  return store.db.transaction().execute(async (tx) => {
    await checkProvider(tx, fields.provider_id);
    const now = isoNow(clock);
    const row = rowOf(newId('iss'), fields, now, now);
    await upsertIssuance(tx, row);
    return issuanceResource(row);
  });
}

/**
 * Changes the given fields of an issuance; the others keep their values. When a value changed, an
 * `issuance.updated` webhook event names the changed fields, in the same transaction.
 */
export async function updateIssuance(
  store: Store,
  clock: Clock,
  id: string,
  changes: IssuanceChanges,
): Promise<Issuance> {
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) throw new AdminError('invalid_value', 'give at least one field to change');
  return store.db.transaction().execute(async (tx) => {
    const existing = await findIssuance(tx, id);
    if (!existing) throw new AdminError('not_found', `no issuance ${id}`);
    refuseClosed(existing);
    const fields = validIssuance({
      ...existing,
      coupon_rate_pct: existing.coupon_rate_pct === null ? null : String(existing.coupon_rate_pct),
      ...given,
    });
    await checkProvider(tx, fields.provider_id);
    const now = isoNow(clock);
    const row = rowOf(id, fields, existing.announced_at, now);
    await upsertIssuance(tx, row);
    const changed = (Object.keys(row) as (keyof IssuanceRow)[]).filter(
      (k) => k !== 'updated_at' && row[k] !== existing[k],
    );
    if (changed.length > 0) {
      await emitEvent(tx, {
        type: 'issuance.updated',
        at: now,
        data: { issuance: issuanceResource(row), changed_fields: changed },
      });
    }
    return issuanceResource(row);
  });
}

function refuseClosed(row: IssuanceRow): void {
  if ((ISSUANCE_CLOSED_STATUSES as readonly string[]).includes(row.status)) {
    throw new AdminError(
      'refused',
      `issuance ${row.id} is closed (${row.status} at ${row.updated_at}); it changes no more`,
    );
  }
}

/**
 * Closes an issuance: PRICED (it was issued) or CANCELLED. It leaves the upcoming list (GET /api/v1/issuances
 * shows it only with include_closed=true) and an `issuance.updated` event says so. A closed one is not changed.
 */
export async function closeIssuance(store: Store, clock: Clock, id: string, status: string): Promise<Issuance> {
  const closing = status.trim().toUpperCase();
  if (!(ISSUANCE_CLOSED_STATUSES as readonly string[]).includes(closing)) {
    throw new AdminError('invalid_value', `an issuance closes as ${ISSUANCE_CLOSED_STATUSES.join(' or ')}`, [
      { path: '--status', message: `must be ${ISSUANCE_CLOSED_STATUSES.join(' or ')}` },
    ]);
  }
  return store.db.transaction().execute(async (tx) => {
    const existing = await findIssuance(tx, id);
    if (!existing) throw new AdminError('not_found', `no issuance ${id}`);
    refuseClosed(existing);
    const row = { ...existing, status: closing, updated_at: isoNow(clock) };
    await upsertIssuance(tx, row);
    await emitEvent(tx, {
      type: 'issuance.updated',
      at: row.updated_at,
      data: { issuance: issuanceResource(row), changed_fields: ['status'] },
    });
    return issuanceResource(row);
  });
}

/** Issuances as the API serves them, newest announced first: the upcoming ones, or every one with includeClosed. */
export async function listIssuanceRecords(
  store: Store,
  filter: { status?: string | undefined; type?: string | undefined; includeClosed?: boolean | undefined } = {},
): Promise<Issuance[]> {
  const statuses = [...ISSUANCE_STATUSES, ...ISSUANCE_CLOSED_STATUSES] as readonly string[];
  if (filter.status !== undefined && !statuses.includes(filter.status)) {
    throw new AdminError('invalid_value', `status must be one of ${statuses.join(', ')}`);
  }
  if (filter.type !== undefined && !(ISSUANCE_TYPES as readonly string[]).includes(filter.type)) {
    throw new AdminError('invalid_value', `type must be one of ${ISSUANCE_TYPES.join(', ')}`);
  }
  const rows = await listIssuances(store.db, {
    status: filter.status,
    type: filter.type,
    includeClosed: filter.includeClosed,
    limit: 10_000,
  });
  return rows.map(issuanceResource);
}

// ---- coverage requests ----

export const REQUEST_STATUSES = COVERAGE_REQUEST_STATUSES;
type RequestStatus = (typeof COVERAGE_REQUEST_STATUSES)[number];
/** COVERED and DECLINED are final: the requester has had the answer. */
const FINAL_STATUSES: readonly string[] = ['COVERED', 'DECLINED'];

/** Coverage requests, newest first, optionally of one status. */
export async function listRequests(store: Store, status?: string): Promise<CoverageRequestRow[]> {
  if (status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(status)) {
    throw new AdminError('invalid_value', `status must be one of ${REQUEST_STATUSES.join(', ')}`);
  }
  return listCoverageRequests(store.db, { status, limit: 10_000 });
}

/**
 * Moves a coverage request on: RECEIVED to IN_REVIEW, and either of them to COVERED or DECLINED (final, and
 * with a note for the requester, who reads it at GET /api/public/score-request/{id}). A note given replaces the
 * previous one; none keeps it. A final request is not changed again; a refusal changes nothing.
 */
export async function setRequestStatus(
  store: Store,
  clock: Clock,
  requestId: string,
  change: { status: string; note?: string | undefined },
): Promise<CoverageRequestRow> {
  const status = change.status.trim().toUpperCase();
  const settable = REQUEST_STATUSES.filter((s) => s !== 'RECEIVED');
  if (!(settable as readonly string[]).includes(status)) {
    throw new AdminError('invalid_value', `the status must be one of ${settable.join(', ')}`, [
      { path: '--status', message: `must be one of ${settable.join(', ')}` },
    ]);
  }
  const note = change.note === undefined ? undefined : change.note.trim();
  if (note !== undefined && (note.length < 1 || note.length > 2000)) {
    throw new AdminError('invalid_value', 'a note is 1 to 2000 characters', [
      { path: '--note', message: 'must be 1 to 2000 characters' },
    ]);
  }
  const unreadable = note === undefined ? null : controlCharacterProblem(note, 'multiline');
  if (unreadable)
    throw new AdminError('invalid_value', `a note ${unreadable}`, [{ path: '--note', message: unreadable }]);
  return store.db.transaction().execute(async (tx) => {
    const existing = await findCoverageRequest(tx, requestId);
    if (!existing) throw new AdminError('not_found', `no coverage request ${requestId}`);
    if (FINAL_STATUSES.includes(existing.status)) {
      throw new AdminError(
        'refused',
        `coverage request ${requestId} is already ${existing.status} (at ${existing.resolved_at}); a final status is not changed`,
      );
    }
    if (existing.status === status) {
      throw new AdminError('refused', `coverage request ${requestId} is already ${status}`);
    }
    const final = FINAL_STATUSES.includes(status);
    const resolution = note ?? existing.resolution;
    if (final && resolution === null) {
      throw new AdminError('invalid_value', `${status} needs a note for the requester (--note)`, [
        { path: '--note', message: `is required for ${status}` },
      ]);
    }
    const resolvedAt = final ? isoNow(clock) : null;
    await updateCoverageRequest(tx, requestId, { status, resolution, resolvedAt });
    return { ...existing, status: status as RequestStatus, resolution, resolved_at: resolvedAt };
  });
}
