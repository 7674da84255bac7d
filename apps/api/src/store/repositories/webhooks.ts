import { type Kysely, sql } from 'kysely';
import type {
  Database,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from '../schema.js';
import type { Dialect, Store } from '../store.js';

export type EndpointRow = WebhookEndpointsTable;
export type EventRow = WebhookEventsTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookAttemptsTable;

// ---- endpoints ----

export async function insertEndpoint(db: Kysely<Database>, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** A workspace's endpoints that are not deleted, oldest first. */
export function listEndpoints(db: Kysely<Database>, workspaceId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'deleted')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Holds a workspace's registrations back until this transaction ends, so the endpoint limit and the
 * one-active-URL rule are read and written as one. PostgreSQL locks the workspace row; SQLite needs
 * nothing, as it runs one transaction at a time.
 */
export async function lockWorkspaceEndpoints(db: Kysely<Database>, dialect: Dialect, workspaceId: string) {
  if (dialect === 'postgres') {
    await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
  }
}

/** An endpoint of the workspace (never another workspace's), unless deleted. */
export function findEndpoint(db: Kysely<Database>, workspaceId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'deleted')
    .executeTakeFirst();
}

/** Active endpoints subscribed to an event type (the events column is a JSON array of quoted names). */
export function subscribedEndpoints(db: Kysely<Database>, type: string): Promise<Pick<EndpointRow, 'id'>[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('status', '=', 'active')
    .where('events', 'like', `%${JSON.stringify(type)}%`)
    .orderBy('id')
    .execute();
}

/**
 * The active endpoints subscribed to each of several event types, read in one query: for each type, what
 * subscribedEndpoints answers (the events column holds each name once, quoted, so a substring test is the same one).
 */
export async function subscribedEndpointsByType<T extends string>(
  db: Kysely<Database>,
  types: readonly T[],
): Promise<Record<T, Pick<EndpointRow, 'id'>[]>> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('status', '=', 'active')
    .where((eb) => eb.or(types.map((type) => eb('events', 'like', `%${JSON.stringify(type)}%`))))
    .orderBy('id')
    .execute();
  const byType = {} as Record<T, Pick<EndpointRow, 'id'>[]>;
  for (const type of types) {
    const quoted = JSON.stringify(type);
    byType[type] = rows.filter((r) => r.events.includes(quoted)).map((r) => ({ id: r.id }));
  }
  return byType;
}

/** Sets an endpoint's status (deleted or disabled) and cancels its pending deliveries; false when it was not active. */
export async function retireEndpoint(
  db: Kysely<Database>,
  id: string,
  change: { status: 'deleted' | 'disabled'; at: string; reason?: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('webhook_endpoints')
    .set(
      change.status === 'deleted'
        ? { status: 'deleted', deleted_at: change.at }
        : { status: 'disabled', disabled_at: change.at, disabled_reason: change.reason ?? null },
    )
    .where('id', '=', id)
    .where('status', change.status === 'deleted' ? '!=' : '=', change.status === 'deleted' ? 'deleted' : 'active')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return false;
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, lease_owner: null, lease_until: null })
    .where('endpoint_id', '=', id)
    .where('status', '=', 'pending')
    .execute();
  return true;
}

// ---- the outbox ----

export async function insertEvent(db: Kysely<Database>, row: EventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

export async function insertDeliveries(db: Kysely<Database>, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export function findEvent(db: Kysely<Database>, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A delivery claimed for an attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  body: string;
  workspace_id: string;
  webhook_secret_enc: string;
  previous_webhook_secret_enc: string | null;
  previous_secret_expires_at: string | null;
}

/**
 * Claims up to `limit` due deliveries for one dispatcher: pending, due, and not leased by another one
 * whose lease still runs. The claim counts the attempt (attempts + 1) and sets the lease in one
 * statement, so two dispatchers never start the same attempt: on PostgreSQL the rows are locked and
 * others skip them; SQLite runs one writer at a time.
 */
export async function claimDue(
  store: Store,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<ClaimedDelivery[]> {
  const { db } = store;
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', claim.now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(claim.limit);
  if (store.dialect === 'postgres') due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({
      lease_owner: claim.owner,
      lease_until: claim.leaseUntil,
      // A literal: better-sqlite3 would bind a JS number as REAL.
      attempts: sql<number>`attempts + ${sql.lit(1)}`,
    })
    .where('id', 'in', due)
    .returning('id')
    .execute();
  if (claimed.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as p', 'p.id', 'd.endpoint_id')
    .innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.attempts',
      'p.url',
      'e.body',
      'w.id as workspace_id',
      'w.webhook_secret_enc',
      'w.previous_webhook_secret_enc',
      'w.previous_secret_expires_at',
    ])
    .where(
      'd.id',
      'in',
      claimed.map((r) => r.id),
    )
    .where('d.lease_owner', '=', claim.owner)
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .execute();
}

/** When the next pending delivery falls due (null when none is pending). */
export async function nextDue(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/** An attempt's outcome for the delivery; applied only while this dispatcher still holds the lease. */
export type AttemptOutcome =
  | { status: 'delivered'; at: string }
  | { status: 'pending'; nextAttemptAt: string }
  | { status: 'failed' };

/** Logs an attempt and applies its outcome (only while this dispatcher still holds the lease); call in a transaction. */
export async function recordAttempt(
  db: Kysely<Database>,
  owner: string,
  attempt: AttemptRow,
  outcome: AttemptOutcome,
): Promise<boolean> {
  await db
    .insertInto('webhook_attempts')
    .values(attempt)
    .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
    .execute();
  const updated = await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      delivered_at: outcome.status === 'delivered' ? outcome.at : null,
      lease_owner: null,
      lease_until: null,
    })
    .where('id', '=', attempt.delivery_id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

// ---- the delivery log ----

export function findDelivery(
  db: Kysely<Database>,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/** An endpoint's deliveries, newest first, from after a (created_at, id) position. */
export function listDeliveries(
  db: Kysely<Database>,
  endpointId: string,
  options: { status?: string | undefined; before?: { created_at: string; id: string } | undefined; limit: number },
): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (options.status) query = query.where('status', '=', options.status);
  const before = options.before;
  if (before) {
    // Before (created_at, id): the time bounds the index range, so a page far down starts where it is.
    query = query
      .where('created_at', '<=', before.created_at)
      .where((eb) => eb.or([eb('created_at', '<', before.created_at), eb('id', '<', before.id)]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

export function attemptsOf(db: Kysely<Database>, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}

/** Every endpoint with its deliveries counted by status (for operators: `svc webhooks list`). */
export async function endpointSummaries(db: Kysely<Database>, workspaceId?: string) {
  let query = db
    .selectFrom('webhook_endpoints as p')
    .leftJoin('webhook_deliveries as d', 'd.endpoint_id', 'p.id')
    .select((eb) => [
      'p.id',
      'p.workspace_id',
      'p.url',
      'p.events',
      'p.status',
      'p.created_at',
      eb.fn.count<number>('d.id').filterWhere('d.status', '=', 'pending').as('pending'),
      eb.fn.count<number>('d.id').filterWhere('d.status', '=', 'delivered').as('delivered'),
      eb.fn.count<number>('d.id').filterWhere('d.status', '=', 'failed').as('failed'),
    ])
    .where('p.status', '!=', 'deleted')
    .groupBy(['p.id', 'p.workspace_id', 'p.url', 'p.events', 'p.status', 'p.created_at'])
    .orderBy('p.workspace_id')
    .orderBy('p.created_at');
  if (workspaceId) query = query.where('p.workspace_id', '=', workspaceId);
  const rows = await query.execute();
  return rows.map((r) => ({
    ...r,
    pending: Number(r.pending),
    delivered: Number(r.delivered),
    failed: Number(r.failed),
  }));
}
