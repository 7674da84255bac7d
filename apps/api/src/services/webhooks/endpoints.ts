import { randomBytes } from 'node:crypto';
import type {
  DeliveriesQuery,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from '@svc/contracts';
import { type Clock, isoNow } from '../../clock.js';
import {
  type AttemptRow,
  attemptsOf,
  type DeliveryRow,
  type EndpointRow,
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
import { ServiceError } from '../errors.js';
import { checkWebhookUrl, type UrlPolicy } from '../webhook-url.js';
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
export async function registerWebhook(
  store: Store,
  clock: Clock,
  policy: UrlPolicy,
  workspaceId: string,
  body: WebhookCreateBody,
): Promise<WebhookEndpoint> {
  const check = await checkWebhookUrl(body.url, policy);
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
    return endpointView(row);
  });
}

export async function listWebhooks(store: Store, workspaceId: string): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(store.db, workspaceId)).map(endpointView);
}

async function endpointOf(store: Store, workspaceId: string, webhookId: string): Promise<EndpointRow> {
  const row = await findEndpoint(store.db, workspaceId, webhookId);
  // Another workspace's endpoint is as unknown as one that never existed.
  if (!row) throw new ServiceError('not_found', `no webhook endpoint ${webhookId}`);
  return row;
}

/** Deletes an endpoint and cancels its pending deliveries. */
export async function deleteWebhook(store: Store, clock: Clock, workspaceId: string, webhookId: string) {
  const row = await endpointOf(store, workspaceId, webhookId);
  await store.db.transaction().execute((tx) => retireEndpoint(tx, row.id, { status: 'deleted', at: isoNow(clock) }));
}

/** An endpoint's deliveries, newest first, each with its attempts. */
export async function listWebhookDeliveries(
  store: Store,
  workspaceId: string,
  webhookId: string,
  query: Pick<DeliveriesQuery, 'status' | 'limit'> & { before?: { created_at: string; id: string } | undefined },
): Promise<DeliveryRow[]> {
  const endpoint = await endpointOf(store, workspaceId, webhookId);
  return listDeliveries(store.db, endpoint.id, { status: query.status, before: query.before, limit: query.limit });
}

export async function withAttempts(store: Store, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
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
  store: Store,
  clock: Clock,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const endpoint = await endpointOf(store, workspaceId, webhookId);
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
  await insertDeliveries(store.db, [row]);
  return deliveryView(row, []);
}

/** Queues a signed `ping` event for this endpoint only. */
export async function pingWebhook(
  store: Store,
  clock: Clock,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookDelivery> {
  const endpoint = await endpointOf(store, workspaceId, webhookId);
  assertActive(endpoint);
  const now = isoNow(clock);
  const type: WebhookEventType = 'ping';
  const emitted = await store.db.transaction().execute((tx) =>
    emitEvent(tx, {
      type,
      at: now,
      endpointId: endpoint.id,
      data: { webhook_id: endpoint.id, message: 'A test event: this endpoint receives signed webhooks.' },
    }),
  );
  const deliveryId = emitted?.deliveryIds[0];
  const row = deliveryId ? await findDelivery(store.db, endpoint.id, deliveryId) : undefined;
  if (!row) throw new Error(`the ping delivery of ${endpoint.id} was not stored`);
  return deliveryView(row, []);
}
