import { randomBytes } from 'node:crypto';
import type { WebhookEventData, WebhookEventType } from '@svc/contracts';
import type { Kysely } from 'kysely';
import { insertDeliveries, insertEvent, subscribedEndpoints } from '../../store/repositories/webhooks.js';
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
 * subscribed to is not stored.
 */
export async function emitEvent<T extends WebhookEventType>(
  tx: Kysely<Database>,
  event: { type: T; data: WebhookEventData<T>; at: string; endpointId?: string },
): Promise<EmittedEvent | null> {
  const endpoints = event.endpointId ? [{ id: event.endpointId }] : await subscribedEndpoints(tx, event.type);
  if (endpoints.length === 0) return null;
  const id = newEventId();
  await insertEvent(tx, {
    id,
    type: event.type,
    created_at: event.at,
    body: JSON.stringify({ id, type: event.type, created_at: event.at, data: event.data }),
  });
  const deliveries = endpoints.map((endpoint) => ({
    id: newDeliveryId(),
    event_id: id,
    endpoint_id: endpoint.id,
    event_type: event.type,
    status: 'pending',
    attempts: 0,
    next_attempt_at: event.at,
    lease_owner: null,
    lease_until: null,
    delivered_at: null,
    created_at: event.at,
    redelivery_of: null,
  }));
  await insertDeliveries(tx, deliveries);
  return { id, deliveryIds: deliveries.map((d) => d.id) };
}
