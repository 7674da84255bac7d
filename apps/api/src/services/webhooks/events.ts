import { randomBytes } from 'node:crypto';
import type { WebhookEventData, WebhookEventType } from '@svc/contracts';
import type { Kysely } from 'kysely';
import {
  type DeliveryRow,
  type EndpointRow,
  type EventRow,
  insertDeliveries,
  insertEvent,
  subscribedEndpoints,
} from '../../store/repositories/webhooks.js';
import type { Database } from '../../store/schema.js';

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;
export const newDeliveryId = () => `whd_${randomBytes(12).toString('hex')}`;

export interface EmittedEvent {
  id: string;
  deliveryIds: string[];
}

/**
 * Writes an event to the outbox, with one delivery for each active endpoint subscribed to its type
 * (or for the one endpoint given, as a ping is), due at once. Call it with the transaction of the
 * change that causes the event: the event is stored exactly when the change is. An event nobody
 * subscribed to is not stored. `subscribed`: the endpoints subscribed to its type, when the
 * transaction has read them already (subscribedEndpointsByType).
 */
export async function emitEvent<T extends WebhookEventType>(
  tx: Kysely<Database>,
  event: { type: T; data: WebhookEventData<T>; at: string; endpointId?: string },
  subscribed?: readonly Pick<EndpointRow, 'id'>[],
): Promise<EmittedEvent | null> {
  const endpoints = event.endpointId
    ? [{ id: event.endpointId }]
    : (subscribed ?? (await subscribedEndpoints(tx, event.type)));
  if (endpoints.length === 0) return null;
  const row = eventRowOf(event.type, event.data, event.at);
  await insertEvent(tx, row);
  const deliveries = endpoints.map((endpoint) => deliveryRowOf(row, endpoint.id));
  await insertDeliveries(tx, deliveries);
  return { id: row.id, deliveryIds: deliveries.map((d) => d.id) };
}

/** A new outbox event: its id and the body every delivery of it sends, byte for byte. */
export function eventRowOf<T extends WebhookEventType>(type: T, data: WebhookEventData<T>, at: string): EventRow {
  const id = newEventId();
  return { id, type, created_at: at, body: JSON.stringify({ id, type, created_at: at, data }) };
}

/** The first delivery of an event to an endpoint, pending and due when the event was made. */
export function deliveryRowOf(event: EventRow, endpointId: string): DeliveryRow {
  return {
    id: newDeliveryId(),
    event_id: event.id,
    endpoint_id: endpointId,
    event_type: event.type,
    status: 'pending',
    attempts: 0,
    next_attempt_at: event.created_at,
    lease_owner: null,
    lease_until: null,
    delivered_at: null,
    created_at: event.created_at,
    redelivery_of: null,
  };
}
