import { canonicalJson } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import {
  type AuditActor,
  type AuditEntry,
  type AuditSubject,
  auditHash,
  GENESIS_HASH,
} from '../../store/audit-chain.js';
import { nameKey } from '../../store/name-key.js';
import { appendAudit, entryOf, listAuditRows, readAuditHead } from '../../store/repositories/audit.js';
import { findOperatorById } from '../../store/repositories/operators.js';
import type { Database } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';

export type { AuditActor, AuditEntry, AuditSubject } from '../../store/audit-chain.js';

/**
 * The audit trail (decision 0025): every change to the record appends an entry, in the transaction of the change,
 * naming who made it. The chain rule is in store/audit-chain.ts; this module says who the actor is, lists entries
 * and verifies the chain.
 */

/** One change as a verb records it; the time and the actor come from the context. */
export interface AuditNote {
  action: string;
  subject: AuditSubject;
  details?: Record<string, unknown>;
}

/** Who the context acts for, as the trail names them. */
export function auditActorOf(ctx: ServiceContext): AuditActor {
  const { actor } = ctx;
  switch (actor.kind) {
    case 'operator':
      return { type: 'operator', id: actor.id, name: actor.name };
    case 'key':
      return { type: 'api_key', id: actor.caller.keyId, name: null };
    case 'system':
      return { type: 'system', id: null, name: actor.name ?? 'service' };
    case 'public':
      // Nothing a client without a key does changes the record (a coverage request is its own record).
      throw new Error('a change to the record was attempted for a client without a key');
  }
}

/** Appends the changes a verb made, last in its transaction (see appendAudit). */
export async function recordAudit(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  notes: readonly AuditNote[],
): Promise<AuditEntry[]> {
  const at = isoNow(ctx.recording?.clock ?? ctx.clock);
  const actor = auditActorOf(ctx.recording ? { ...ctx, actor: ctx.recording.actor } : ctx);
  const entries = await appendAudit(
    tx,
    notes.map((n) => ({ at, actor, action: n.action, subject: n.subject, details: n.details ?? {} })),
  );
  // Checked again holding the head, which a revocation holds too: no change is recorded, or made, for an operator
  // after their revocation committed, however close the two were. Once in a transaction: it holds the head from its
  // first entry to its end, so no revocation can commit between two of its entries (a publishing batch's, decision
  // 0040).
  if (actor.type === 'operator' && actor.id !== null && entries.length > 0 && !checkedIn(tx).has(actor.id)) {
    const operator = await findOperatorById(tx, actor.id);
    if (!operator || operator.revoked_at !== null) {
      throw new ServiceError('refused', `operator ${actor.name} was revoked meanwhile; nothing was changed`);
    }
    checkedIn(tx).add(actor.id);
  }
  return entries;
}

/** The operators found not revoked while the transaction held the audit head (none outside a transaction). */
const checked = new WeakMap<Kysely<Database>, Set<string>>();

function checkedIn(tx: Kysely<Database>): Set<string> {
  if (!tx.isTransaction) return new Set();
  let ids = checked.get(tx);
  if (!ids) {
    ids = new Set();
    checked.set(tx, ids);
  }
  return ids;
}

export interface AuditQuery {
  /** From this moment on (an ISO 8601 UTC instant, or a date meaning its first instant). */
  since?: string | undefined;
  /** An actor's name (any case) or id. */
  actor?: string | undefined;
  /** An action (`inputs.approved`) or a family of them ending in a dot (`inputs.`). */
  action?: string | undefined;
  /** Only entries after this seq (the next page). */
  afterSeq?: number | undefined;
  /** At most this many (1 to 10,000; default 1,000). */
  limit?: number | undefined;
}

export const MAX_AUDIT_PAGE = 10_000;

/** Entries in seq order, filtered. */
export async function listAudit(ctx: ServiceContext, query: AuditQuery = {}): Promise<AuditEntry[]> {
  const limit = query.limit ?? 1000;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) {
    throw new ServiceError('invalid_value', `the limit is a whole number from 1 to ${MAX_AUDIT_PAGE}`);
  }
  const { afterSeq } = query;
  if (afterSeq !== undefined && (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || afterSeq > HIGHEST_SEQ)) {
    throw new ServiceError('invalid_value', `an entry's seq is a whole number from 0 to ${HIGHEST_SEQ}`);
  }
  const since = query.since === undefined ? undefined : instantOf(query.since);
  if (query.action !== undefined && !/^[a-z_.]{1,100}$/.test(query.action)) {
    throw new ServiceError(
      'invalid_value',
      'an action is lower-case letters, "_" and "." (e.g. inputs.approved or inputs.)',
    );
  }
  const rows = await listAuditRows(ctx.store.db, {
    since,
    actor: query.actor,
    actorKey: query.actor === undefined ? undefined : nameKey(query.actor),
    action: query.action,
    afterSeq,
    limit,
  });
  return rows.map(entryOf);
}

/** YYYY-MM-DD, optionally THH:MM[:SS[.fraction]] and Z or an offset. */
const SINCE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * A date (YYYY-MM-DD) as its first instant, or an ISO 8601 instant in the stored form (UTC, milliseconds). A day the
 * calendar does not have (2026-02-30) is refused, not carried into the next month as Date.parse would.
 */
function instantOf(text: string): string {
  const m = SINCE.exec(text);
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = (m?.slice(1) ?? []).map((v) =>
    v === undefined ? 0 : Number(v),
  ) as number[];
  const calendar =
    m !== null &&
    (month ?? 0) >= 1 &&
    (month ?? 0) <= 12 &&
    (day ?? 0) >= 1 &&
    (day ?? 0) <= new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate() &&
    (hour ?? 0) <= 23 &&
    (minute ?? 0) <= 59 &&
    (second ?? 0) <= 59 &&
    (offsetHour ?? 0) <= 23 &&
    (offsetMinute ?? 0) <= 59;
  const ms = Date.parse(m?.[4] === undefined ? `${text}T00:00:00.000Z` : text);
  if (!calendar || Number.isNaN(ms)) {
    throw new ServiceError(
      'invalid_value',
      `--since must be a date on the calendar (2026-11-26) or an ISO 8601 instant, not ${JSON.stringify(text)}`,
    );
  }
  return new Date(ms).toISOString();
}

/** The recorded head: the seq and hash of the last entry (null before migration 0009). */
export async function auditHead(ctx: ServiceContext): Promise<{ seq: number; hash: string } | null> {
  return (await readAuditHead(ctx.store.db)) ?? null;
}

export type AuditVerification =
  | { intact: true; entries: number; head: { seq: number; hash: string } }
  | {
      intact: false;
      entries: number;
      /** The first seq at which the chain does not hold. */
      broken_seq: number;
      reason: string;
      head: { seq: number; hash: string } | null;
    };

/** The action of the first entry of every trail, written by migration 0009 with the state it found. */
const GENESIS_ACTION = 'audit.started';

/** The bounds of the seq column (a 32-bit integer on PostgreSQL). */
const LOWEST_SEQ = -2_147_483_648;
const HIGHEST_SEQ = 2_147_483_647;

/** How many rows the verifier reads at a time: memory stays flat however long the chain. */
const VERIFY_PAGE = 5000;

/**
 * Recomputes the chain from the first entry: seqs 1, 2, 3… without a gap, each entry's hash the hash of its body,
 * each prev_hash the hash before, and the recorded head naming the last entry. The first place it fails is reported.
 */
export async function verifyAudit(ctx: ServiceContext): Promise<AuditVerification> {
  const { db } = ctx.store;
  const head = (await readAuditHead(db)) ?? null;
  let expectedSeq = 1;
  let prev = GENESIS_HASH;
  let prevAt = '';
  const broken = (seq: number, reason: string): AuditVerification => ({
    intact: false,
    entries: expectedSeq - 1,
    broken_seq: seq,
    reason,
    head,
  });
  for (;;) {
    // The first page starts below any seq, so a row slipped in before entry 1 is seen too.
    const rows = await listAuditRows(db, {
      afterSeq: expectedSeq === 1 ? LOWEST_SEQ : expectedSeq - 1,
      limit: VERIFY_PAGE,
    });
    if (rows.length === 0) break;
    for (const row of rows) {
      const entry = entryOf(row);
      if (entry.seq !== expectedSeq) {
        return broken(expectedSeq, `entry ${expectedSeq} is missing (the next entry is ${entry.seq})`);
      }
      if (expectedSeq === 1 && (entry.action !== GENESIS_ACTION || entry.actor.type !== 'system')) {
        return broken(1, `entry 1 is not the trail's genesis entry (${GENESIS_ACTION}, by the system)`);
      }
      if (entry.prev_hash !== prev) {
        return broken(expectedSeq, `entry ${expectedSeq} does not name the hash of entry ${expectedSeq - 1}`);
      }
      if (entry.at < prevAt) {
        return broken(
          expectedSeq,
          `entry ${expectedSeq} is dated ${entry.at}, before entry ${expectedSeq - 1} (${prevAt})`,
        );
      }
      // Details are stored in their RFC 8785 form: any other text was not written by the service.
      if (auditHash(entry) !== entry.hash || canonicalJson(entry.details) !== row.details) {
        return broken(expectedSeq, `entry ${expectedSeq} was changed after it was written (its hash does not match)`);
      }
      prev = entry.hash;
      prevAt = entry.at;
      expectedSeq++;
    }
    if (rows.length < VERIFY_PAGE) break;
  }
  const last = expectedSeq - 1;
  // Every store's trail starts with its genesis entry (migration 0009): a trail without one was emptied.
  if (last === 0) return broken(1, `the trail is empty: its genesis entry (${GENESIS_ACTION}) is missing`);
  if (!head) return broken(Math.max(last, 1), 'the recorded head of the trail is missing');
  if (head.seq > last) return broken(last + 1, `entry ${last + 1} is missing (the recorded head is entry ${head.seq})`);
  if (head.seq < last)
    return broken(head.seq + 1, `entry ${head.seq + 1} follows the recorded head (entry ${head.seq})`);
  if (head.hash !== prev) return broken(last, `the recorded head's hash is not entry ${last}'s`);
  return { intact: true, entries: last, head };
}
