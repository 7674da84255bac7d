import { ISSUANCE_CLOSED_STATUSES, ISSUANCE_STATUSES, ISSUANCE_TYPES, type Issuance, UuidSchema } from '@svc/contracts';
import { plainText } from '@svc/methodology';
import { z } from 'zod';
import { isoNow } from '../../clock.js';
import { findIssuance, type IssuanceRow, listIssuances, upsertIssuance } from '../../store/repositories/issuances.js';
import { findProvider } from '../../store/repositories/providers.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { type AuditNote, recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { issuanceResource } from '../scores/served.js';
import { newId } from '../shared/ids.js';
import { AnnouncedPosition, decodeCursor, pageOf } from '../shared/paging.js';
import { emitEvent } from '../webhooks/events.js';

/** The issuance calendar: operators add, change and close issuances; the API lists them. */

/** An issuance as the store keeps it, with its own id and times: what importIssuances takes. */
export type IssuanceRecord = IssuanceRow;
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
  throw new ServiceError('invalid_value', `not a valid issuance (${count}); nothing was written`, problems);
}

async function checkProvider(db: Store['db'], providerId: string | null): Promise<void> {
  if (providerId !== null && !(await findProvider(db, providerId))) {
    throw new ServiceError('not_found', `no provider ${providerId}`);
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
export async function addIssuance(ctx: ServiceContext, input: IssuanceFields): Promise<Issuance> {
  const { store, clock } = ctx;
  const fields = validIssuance({
    ...input,
    provider_id: input.provider_id ?? null,
    ticker: input.ticker ?? null,
    coupon_rate_pct: input.coupon_rate_pct ?? null,
    coupon_frequency: input.coupon_frequency ?? null,
    expected_pricing_date: input.expected_pricing_date ?? null,
  });
  await authorise(ctx, 'analyst', 'recording an issuance');
  return store.db.transaction().execute(async (tx) => {
    await checkProvider(tx, fields.provider_id);
    const now = isoNow(clock);
    const row = rowOf(newId('iss'), fields, now, now);
    await upsertIssuance(tx, row);
    await recordAudit(ctx, tx, [
      issuanceNote(
        row,
        'added',
        Object.keys(row).filter((k) => k !== 'id'),
      ),
    ]);
    return issuanceResource(row);
  });
}

/**
 * Changes the given fields of an issuance; the others keep their values. When a value changed, an
 * `issuance.updated` webhook event names the changed fields, in the same transaction.
 */
export async function updateIssuance(
  ctx: ServiceContext,
  input: { id: string; changes: IssuanceChanges },
): Promise<Issuance> {
  const { store, clock } = ctx;
  const { id, changes } = input;
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) throw new ServiceError('invalid_value', 'give at least one field to change');
  await authorise(ctx, 'analyst', 'changing an issuance');
  return store.db.transaction().execute(async (tx) => {
    const existing = await findIssuance(tx, id);
    if (!existing) throw new ServiceError('not_found', `no issuance ${id}`);
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
      await recordAudit(ctx, tx, [issuanceNote(row, 'updated', changed)]);
    }
    return issuanceResource(row);
  });
}

function refuseClosed(row: IssuanceRow): void {
  if ((ISSUANCE_CLOSED_STATUSES as readonly string[]).includes(row.status)) {
    throw new ServiceError(
      'refused',
      `issuance ${row.id} is closed (${row.status} at ${row.updated_at}); it changes no more`,
    );
  }
}

/**
 * Closes an issuance: PRICED (it was issued) or CANCELLED. It leaves the upcoming list (GET /api/v1/issuances
 * shows it only with include_closed=true) and an `issuance.updated` event says so. A closed one is not changed.
 */
export async function closeIssuance(ctx: ServiceContext, input: { id: string; status: string }): Promise<Issuance> {
  const { store, clock } = ctx;
  const { id, status } = input;
  const closing = status.trim().toUpperCase();
  if (!(ISSUANCE_CLOSED_STATUSES as readonly string[]).includes(closing)) {
    throw new ServiceError('invalid_value', `an issuance closes as ${ISSUANCE_CLOSED_STATUSES.join(' or ')}`, [
      { path: '--status', message: `must be ${ISSUANCE_CLOSED_STATUSES.join(' or ')}` },
    ]);
  }
  await authorise(ctx, 'analyst', 'closing an issuance');
  return store.db.transaction().execute(async (tx) => {
    const existing = await findIssuance(tx, id);
    if (!existing) throw new ServiceError('not_found', `no issuance ${id}`);
    refuseClosed(existing);
    const row = { ...existing, status: closing, updated_at: isoNow(clock) };
    await upsertIssuance(tx, row);
    await emitEvent(tx, {
      type: 'issuance.updated',
      at: row.updated_at,
      data: { issuance: issuanceResource(row), changed_fields: ['status'] },
    });
    await recordAudit(ctx, tx, [issuanceNote(row, 'closed', ['status'])]);
    return issuanceResource(row);
  });
}

/** Issuances as the API serves them, newest announced first: the upcoming ones, or every one with includeClosed. */
export async function listIssuanceRecords(
  ctx: ServiceContext,
  filter: { status?: string | undefined; type?: string | undefined; includeClosed?: boolean | undefined },
): Promise<Issuance[]> {
  const { store } = ctx;
  const statuses = [...ISSUANCE_STATUSES, ...ISSUANCE_CLOSED_STATUSES] as readonly string[];
  if (filter.status !== undefined && !statuses.includes(filter.status)) {
    throw new ServiceError('invalid_value', `status must be one of ${statuses.join(', ')}`);
  }
  if (filter.type !== undefined && !(ISSUANCE_TYPES as readonly string[]).includes(filter.type)) {
    throw new ServiceError('invalid_value', `type must be one of ${ISSUANCE_TYPES.join(', ')}`);
  }
  const rows = await listIssuances(store.db, {
    status: filter.status,
    type: filter.type,
    includeClosed: filter.includeClosed,
    limit: 10_000,
  });
  return rows.map(issuanceResource);
}

/**
 * A page of issuances for the API, newest announced first, after the `cursor` of the previous page (the filters
 * already checked by the contract), with the cursor of the next page (null on the last).
 */
export async function issuancesPage(
  ctx: ServiceContext,
  input: {
    status?: string | undefined;
    type?: string | undefined;
    includeClosed?: boolean | undefined;
    cursor?: string | undefined;
    limit: number;
  },
): Promise<{ data: Issuance[]; nextCursor: string | null }> {
  const after = decodeCursor(input.cursor, AnnouncedPosition);
  const rows = await listIssuances(ctx.store.db, {
    status: input.status,
    type: input.type,
    includeClosed: input.includeClosed,
    after: after ? { announced_at: after.a, id: after.id } : undefined,
    limit: input.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ a: r.announced_at, id: r.id }));
  return { data: page.map(issuanceResource), nextCursor };
}

/**
 * Records issuances that come with their own ids and times (a data set moved from elsewhere, the demo): each is
 * checked by the rules addIssuance applies, then inserted, updated or, when stored exactly so already, left alone.
 * All in one transaction: one invalid record and nothing is written.
 */
export async function importIssuances(
  ctx: ServiceContext,
  input: { issuances: readonly IssuanceRecord[] },
): Promise<{ inserted: number; updated: number; unchanged: number }> {
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  await authorise(ctx, 'analyst', 'importing issuances');
  await ctx.store.db.transaction().execute(async (tx) => {
    const notes: AuditNote[] = [];
    for (const record of input.issuances) {
      const fields = validIssuance({
        ...record,
        coupon_rate_pct: record.coupon_rate_pct === null ? null : String(record.coupon_rate_pct),
      });
      await checkProvider(tx, fields.provider_id);
      const row = rowOf(record.id, fields, record.announced_at, record.updated_at);
      const existing = await findIssuance(tx, record.id);
      if (existing && sameIssuance(existing, row)) {
        counts.unchanged += 1;
        continue;
      }
      await upsertIssuance(tx, row);
      counts[existing ? 'updated' : 'inserted'] += 1;
      notes.push(issuanceNote(row, existing ? 'imported over' : 'imported', []));
    }
    await recordAudit(ctx, tx, notes);
  });
  return counts;
}

/** One change to an issuance as the audit trail records it: how, which fields, and the status it is left in. */
function issuanceNote(row: IssuanceRow, change: string, fields: readonly string[]): AuditNote {
  return {
    action: 'issuance.changed',
    subject: { type: 'issuance', id: row.id },
    details: { change, fields: [...fields], status: row.status, provider_id: row.provider_id },
  };
}

/** Field by field; numbers compared as numbers (PostgreSQL and SQLite both return them as such). */
function sameIssuance(a: IssuanceRow, b: IssuanceRow): boolean {
  return (Object.keys(b) as (keyof IssuanceRow)[]).every((key) => a[key] === b[key]);
}
