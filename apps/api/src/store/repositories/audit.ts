import { canonicalJson, readJson } from '@svc/methodology';
import { type Kysely, sql } from 'kysely';
import { type AuditActor, type AuditEntry, type AuditSubject, auditHash } from '../audit-chain.js';
import type { AuditLogTable, Database } from '../schema.js';

/** What a change appends: the chain fields (seq, prev_hash, hash) are the writer's. */
export interface AuditRecord {
  at: string;
  actor: AuditActor;
  action: string;
  subject: AuditSubject;
  details: Record<string, unknown>;
}

/**
 * Appends entries to the chain, inside the transaction of the change they record. Moving the head first takes its
 * row's write lock (PostgreSQL) within the write lock SQLite's immediate transactions hold: two writers, in one
 * process or several, append one after the other and never fork the chain. Call it last in the transaction, so the
 * head is held for the shortest time and always after the change's own locks (no lock-order deadlock).
 */
export async function appendAudit(db: Kysely<Database>, records: readonly AuditRecord[]): Promise<AuditEntry[]> {
  if (records.length === 0) return [];
  // A transaction that appended already holds the head, and knows it: it moved it last (decision 0040).
  const held = db.isTransaction ? heads.get(db) : undefined;
  let seq: number;
  let prev: string;
  let prevAt: string;
  if (held) {
    ({ seq, hash: prev, at: prevAt } = held);
  } else {
    const head = await db
      .updateTable('audit_head')
      .set({ seq: sql<number>`seq + ${sql.lit(records.length)}` })
      .where('id', '=', 1)
      .returning(['seq', 'hash', 'at'])
      .executeTakeFirstOrThrow();
    seq = Number(head.seq) - records.length;
    prev = head.hash;
    prevAt = head.at;
  }
  const entries: AuditEntry[] = [];
  for (const r of records) {
    seq++;
    // The trail's time never goes backwards: a clock behind the last entry's (another machine's, a replayed one)
    // dates the entry at the last entry's time.
    prevAt = r.at > prevAt ? r.at : prevAt;
    const body = {
      seq,
      at: prevAt,
      actor: r.actor,
      action: r.action,
      subject: r.subject,
      details: r.details,
      prev_hash: prev,
    };
    const hash = auditHash(body);
    entries.push({ ...body, hash });
    prev = hash;
  }
  await db.insertInto('audit_log').values(entries.map(rowOf)).execute();
  const moved = held ? { seq, hash: prev, at: prevAt } : { hash: prev, at: prevAt };
  await db.updateTable('audit_head').set(moved).where('id', '=', 1).execute();
  if (db.isTransaction) heads.set(db, { seq, hash: prev, at: prevAt });
  return entries;
}

/**
 * The head as each transaction that appended left it. Exact until the transaction ends: its first append moved the
 * head with its row's lock (PostgreSQL) or inside SQLite's write lock, held until commit or rollback, and every
 * later change to the head in it goes through appendAudit. A transaction rolled back is not used again.
 */
const heads = new WeakMap<Kysely<Database>, { seq: number; hash: string; at: string }>();

/**
 * Takes the head's write lock now, without moving it: a transaction that must not interleave with another of its
 * kind (adding the first operator, revoking an administrator) starts with it, as every append ends with it.
 */
export async function lockAuditHead(db: Kysely<Database>): Promise<void> {
  await db.updateTable('audit_head').set({ seq: sql<number>`seq` }).where('id', '=', 1).execute();
}

function rowOf(e: AuditEntry): AuditLogTable {
  return {
    seq: e.seq,
    at: e.at,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_name: e.actor.name,
    action: e.action,
    subject_type: e.subject.type,
    subject_id: e.subject.id,
    details: canonicalJson(e.details),
    prev_hash: e.prev_hash,
    hash: e.hash,
  };
}

/** A stored row as the entry it records; details that are not a JSON object read as an empty object. */
export function entryOf(row: AuditLogTable): AuditEntry {
  let details: Record<string, unknown> = {};
  try {
    const parsed = readJson(row.details);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      details = parsed as Record<string, unknown>;
  } catch {
    // An unreadable details text fails verification by its hash; it reads as {} here.
  }
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id, name: row.actor_name },
    action: row.action,
    subject: { type: row.subject_type, id: row.subject_id },
    details,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

export async function readAuditHead(db: Kysely<Database>): Promise<{ seq: number; hash: string } | undefined> {
  const row = await db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
}

export interface AuditFilter {
  since?: string | undefined;
  actor?: string | undefined;
  /** The actor's name as operators are keyed (store/name-key.ts); the name itself without it. */
  actorKey?: string | undefined;
  action?: string | undefined;
  afterSeq?: number | undefined;
  limit: number;
}

/** Entries in seq order: from a moment, by an actor's name (any case) or id, of an action or an action family (`inputs.`). */
export async function listAuditRows(db: Kysely<Database>, filter: AuditFilter): Promise<AuditLogTable[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.afterSeq !== undefined) query = query.where('seq', '>', filter.afterSeq);
  const actor = filter.actor;
  if (actor !== undefined) {
    // An operator by name in any case (their name_key, folded beyond ASCII, which SQLite's lower() is not), any actor
    // by id or by the name recorded (exactly, or in another ASCII case).
    const operatorIds = db
      .selectFrom('operators')
      .select('id')
      .where('name_key', '=', filter.actorKey ?? actor);
    query = query.where((eb) =>
      eb.or([
        eb('actor_id', 'in', operatorIds),
        eb('actor_id', '=', actor),
        eb('actor_name', '=', actor),
        eb(eb.fn('lower', ['actor_name']), '=', actor.toLowerCase()),
      ]),
    );
  }
  const action = filter.action;
  if (action !== undefined) {
    query = action.endsWith('.')
      ? query.where(sql<string>`substr(action, 1, ${sql.lit(action.length)})`, '=', action)
      : query.where('action', '=', action);
  }
  return query.orderBy('seq').limit(filter.limit).execute();
}

/** The hashes of the entries at these seqs (those that exist). */
export async function auditHashesAt(db: Kysely<Database>, seqs: readonly number[]): Promise<Map<number, string>> {
  if (seqs.length === 0) return new Map();
  const rows = await db
    .selectFrom('audit_log')
    .select(['seq', 'hash'])
    .where('seq', 'in', [...seqs])
    .execute();
  return new Map(rows.map((r) => [Number(r.seq), r.hash]));
}
