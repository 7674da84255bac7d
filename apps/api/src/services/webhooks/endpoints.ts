import { randomBytes } from 'node:crypto';
import type {
  DeliveriesQuery,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from '@svc/contracts';
import { isoNow } from '../../clock.js';
import {
  type AttemptRow,
  attemptsOf,
  type DeliveryRow,
  type EndpointRow,
  endpointSummaries,
  findDelivery,
  findEndpoint,
  insertDeliveries,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockWorkspaceEndpoints,
  retireEndpoint,
} from '../../store/repositories/webhooks.js';
import type { Store } from '../../store/store.js';
import { callerOf, type ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { CreatedPosition, decodeCursor, pageOf } from '../shared/paging.js';
import { checkWebhookUrl } from '../shared/webhook-url.js';
import { emitEvent, newDeliveryId } from './events.js';

/** Endpoints a workspace may register (active and disabled ones count; deleted ones do not). */
export const MAX_ENDPOINTS = 20;

export function endpointView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEndpoint['events'],
    description: row.description,
    status: row.status as WebhookEndpoint['status'],
    created_at: row.created_at,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
  };
}

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status as WebhookDelivery['status'],
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    redelivery_of: row.redelivery_of,
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
  };
}

/**
 * Registers an endpoint for the workspace after the URL rules (https, no private or metadata
 * address, also after DNS resolution). The same URL may not be active twice in a workspace: one
 * event would be sent twice. A disabled one is replaced by registering its URL again.
 */
export async function registerWebhook(ctx: ServiceContext, body: WebhookCreateBody): Promise<WebhookEndpoint> {
  const { store, clock } = ctx;
  const { workspaceId } = callerOf(ctx);
  const check = await checkWebhookUrl(body.url, ctx.policy);
  if (!check.ok) {
    throw new ServiceError('invalid_request', `the webhook URL is refused: ${check.reason}`, [
      { path: 'body.url', message: check.reason },
    ]);
  }
  const url = check.url.href;
  return store.db.transaction().execute(async (tx) => {
    await lockWorkspaceEndpoints(tx, store.dialect, workspaceId);
    const existing = await listEndpoints(tx, workspaceId);
    const same = existing.find((e) => e.url === url && e.status === 'active');
    if (same) {
      const message = `is already registered as ${same.id}; delete that one to change its events`;
      throw new ServiceError('invalid_request', `the webhook URL ${message}`, [{ path: 'body.url', message }]);
    }
    if (existing.length >= MAX_ENDPOINTS) {
      throw new ServiceError(
        'too_many_webhooks',
        `the workspace has ${existing.length} webhook endpoints, the most it may have; delete one first`,
      );
    }
    const row: EndpointRow = {
      id: `wh_${randomBytes(12).toString('hex')}`,
      workspace_id: workspaceId,
      url,
      events: JSON.stringify(body.events),
      description: body.description ?? null,
      status: 'active',
      created_at: isoNow(clock),
      disabled_at: null,
      disabled_reason: null,
      deleted_at: null,
    };
    await insertEndpoint(tx, row);
    await recordAudit(ctx, tx, [
      {
        action: 'webhook.registered',
        subject: { type: 'webhook', id: row.id },
        // Where it sends without the query (which may carry the receiver's own token) and what.
        details: { workspace_id: workspaceId, url: `${check.url.origin}${check.url.pathname}`, events: body.events },
      },
    ]);
    return endpointView(row);
  });
}

/** The caller's workspace's endpoints (active and disabled; never a deleted one). */
export async function listWebhooks(ctx: ServiceContext): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(ctx.store.db, callerOf(ctx).workspaceId)).map(endpointView);
}

async function endpointOf(ctx: ServiceContext, webhookId: string): Promise<EndpointRow> {
  const row = await findEndpoint(ctx.store.db, callerOf(ctx).workspaceId, webhookId);
  // Another workspace's endpoint is as unknown as one that never existed.
  if (!row) throw new ServiceError('not_found', `no webhook endpoint ${webhookId}`);
  return row;
}

/** Deletes an endpoint and cancels its pending deliveries. */
export async function deleteWebhook(ctx: ServiceContext, input: { webhookId: string }): Promise<void> {
  const row = await endpointOf(ctx, input.webhookId);
  await ctx.store.db.transaction().execute(async (tx) => {
    await retireEndpoint(tx, row.id, { status: 'deleted', at: isoNow(ctx.clock) });
    await recordAudit(ctx, tx, [
      {
        action: 'webhook.deleted',
        subject: { type: 'webhook', id: row.id },
        details: { workspace_id: row.workspace_id },
      },
    ]);
  });
}

/**
 * A page of an endpoint's deliveries, newest first, each with its attempts, after the `cursor` of the previous page;
 * with the cursor of the next page (null on the last).
 */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  input: Pick<DeliveriesQuery, 'status' | 'limit' | 'cursor'> & { webhookId: string },
): Promise<{ data: WebhookDelivery[]; nextCursor: string | null }> {
  const before = decodeCursor(input.cursor, CreatedPosition);
  const endpoint = await endpointOf(ctx, input.webhookId);
  const rows = await listDeliveries(ctx.store.db, endpoint.id, {
    status: input.status,
    before: before ? { created_at: before.c, id: before.id } : undefined,
    limit: input.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ c: r.created_at, id: r.id }));
  return { data: await withAttempts(ctx.store, page), nextCursor };
}

async function withAttempts(store: Store, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
  const attempts = await attemptsOf(
    store.db,
    rows.map((r) => r.id),
  );
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return rows.map((r) => deliveryView(r, byDelivery.get(r.id) ?? []));
}

function assertActive(endpoint: EndpointRow): void {
  if (endpoint.status !== 'active') {
    throw new ServiceError(
      'webhook_disabled',
      `webhook endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'no reason recorded'}); register its URL again to resume`,
    );
  }
}

/** A new delivery of a delivery's event (same event id and bytes) to the same endpoint, due at once. */
export async function redeliver(
  ctx: ServiceContext,
  input: { webhookId: string; deliveryId: string },
): Promise<WebhookDelivery> {
  const { store, clock } = ctx;
  const { webhookId, deliveryId } = input;
  const endpoint = await endpointOf(ctx, webhookId);
  const original = await findDelivery(store.db, endpoint.id, deliveryId);
  if (!original) throw new ServiceError('not_found', `no delivery ${deliveryId} of webhook endpoint ${webhookId}`);
  assertActive(endpoint);
  const now = isoNow(clock);
  const row: DeliveryRow = {
    id: newDeliveryId(),
    event_id: original.event_id,
    endpoint_id: endpoint.id,
    event_type: original.event_type,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    delivered_at: null,
    created_at: now,
    redelivery_of: original.id,
  };
  await store.db.transaction().execute(async (tx) => {
    await insertDeliveries(tx, [row]);
    await recordAudit(ctx, tx, [
      {
        action: 'webhook.redelivered',
        subject: { type: 'webhook', id: endpoint.id },
        details: {
          workspace_id: endpoint.workspace_id,
          delivery_id: row.id,
          redelivery_of: original.id,
          event_id: original.event_id,
        },
      },
    ]);
  });
  ctx.wake?.();
  return deliveryView(row, []);
}

/** Queues a signed `ping` event for this endpoint only. */
export async function pingWebhook(ctx: ServiceContext, input: { webhookId: string }): Promise<WebhookDelivery> {
  const { store, clock } = ctx;
  const endpoint = await endpointOf(ctx, input.webhookId);
  assertActive(endpoint);
  const now = isoNow(clock);
  const type: WebhookEventType = 'ping';
  // The delivery as queued, read in the transaction that queued it: once committed, a dispatcher may already be
  // attempting it, and the answer is the queued delivery, not a moment of its first attempt.
  const row = await store.db.transaction().execute(async (tx) => {
    const emitted = await emitEvent(tx, {
      type,
      at: now,
      endpointId: endpoint.id,
      data: { webhook_id: endpoint.id, message: 'A test event: this endpoint receives signed webhooks.' },
    });
    const deliveryId = emitted?.deliveryIds[0];
    return deliveryId ? await findDelivery(tx, endpoint.id, deliveryId) : undefined;
  });
  if (!row) throw new Error(`the ping delivery of ${endpoint.id} was not stored`);
  ctx.wake?.();
  return deliveryView(row, []);
}

/** An endpoint as operators list it: where it sends, what, and its deliveries counted by status. */
export interface EndpointSummary {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  status: string;
  created_at: string;
  pending: number;
  delivered: number;
  failed: number;
}

/** Every endpoint not deleted, of every workspace or of one, by workspace then age (`svc webhooks list`). */
export async function listEndpointSummaries(
  ctx: ServiceContext,
  input: { workspaceId?: string | undefined },
): Promise<EndpointSummary[]> {
  const rows = await endpointSummaries(ctx.store.db, input.workspaceId);
  return rows.map((r) => ({ ...r, events: JSON.parse(r.events) as string[] }));
}
