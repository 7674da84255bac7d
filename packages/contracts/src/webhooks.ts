import { plainText } from '@svc/methodology';
import { z } from 'zod';
import { PageQuery, RiskBandSchema, RiskIndicatorIdSchema, TimestampSchema, UuidSchema } from './common.js';
import { RatingActionSchema } from './rating-actions.js';
import { IssuanceSchema } from './resources.js';

// ---- events ----

/** The events an endpoint can subscribe to. `ping` is sent only on request (`POST /webhooks/{id}/test`). */
export const WEBHOOK_EVENT_TYPES = [
  'risk_indicator.published',
  'risk_indicator.band_changed',
  'risk_indicator.withdrawn',
  'issuance.updated',
  'methodology.published',
  'rating_action.created',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'ping';

/** The headers of every delivery. */
export const WEBHOOK_HEADERS = {
  signature: 'x-svc-signature',
  previousSignature: 'x-svc-signature-previous',
  eventId: 'x-svc-event-id',
  timestamp: 'x-svc-timestamp',
  attempt: 'x-svc-delivery-attempt',
  standardId: 'webhook-id',
  standardTimestamp: 'webhook-timestamp',
  standardSignature: 'webhook-signature',
} as const;

const ChangeTypeSchema = z.enum(['NEW', 'SCORE_CHANGE', 'BAND_CHANGE']).nullable();

export const IndicatorPublishedDataSchema = z
  .object({
    provider_id: UuidSchema,
    provider_name: z.string(),
    risk_indicator_id: RiskIndicatorIdSchema,
    final_score: z.number(),
    risk_band: RiskBandSchema,
    confidence: z.number(),
    framework_version: z.string(),
    scored_at: TimestampSchema,
    score_verified_at: TimestampSchema,
    published_at: TimestampSchema,
    change_type: ChangeTypeSchema.meta({
      description: 'The change-feed entry this publication made; null when neither score nor band moved.',
    }),
    previous_score: z.number().nullable(),
    previous_band: RiskBandSchema.nullable(),
  })
  .meta({ id: 'IndicatorPublishedData' });

export const BandChangedDataSchema = z
  .object({
    provider_id: UuidSchema,
    provider_name: z.string(),
    risk_indicator_id: RiskIndicatorIdSchema,
    previous_band: RiskBandSchema,
    new_band: RiskBandSchema,
    previous_score: z.number(),
    new_score: z.number(),
    direction: z.enum(['improved', 'deteriorated']).meta({ description: 'improved: towards LOW risk.' }),
    framework_version: z.string(),
    published_at: TimestampSchema,
  })
  .meta({ id: 'BandChangedData' });

export const IndicatorWithdrawnDataSchema = z
  .object({
    provider_id: UuidSchema,
    provider_name: z.string(),
    previous_score: z.number(),
    previous_band: RiskBandSchema,
    framework_version: z.string(),
    withdrawn_at: TimestampSchema,
    reason: z.string().nullable(),
  })
  .meta({ id: 'IndicatorWithdrawnData' });

export const IssuanceUpdatedDataSchema = z
  .object({
    issuance: IssuanceSchema,
    changed_fields: z.array(z.string()).meta({ description: 'The fields this update changed.' }),
  })
  .meta({ id: 'IssuanceUpdatedData' });

export const MethodologyPublishedDataSchema = z
  .object({
    version: z.string().meta({ example: '1.0' }),
    framework_version: z.string().meta({ example: 'DCRF v1.0' }),
    framework_sha256: z.string(),
    effective_date: z.string().meta({ description: 'YYYY-MM-DD: current from this date.' }),
    signed_off_by: z.string(),
    signed_off_at: TimestampSchema,
  })
  .meta({ id: 'MethodologyPublishedData' });

export const PingDataSchema = z.object({ webhook_id: z.string(), message: z.string() }).meta({ id: 'PingData' });

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D, id: string, description: string) =>
  z
    .object({
      id: z.string().meta({ description: 'Event id (`evt_…`), the same on every retry: drop duplicates by it.' }),
      type: z.literal(type),
      created_at: TimestampSchema,
      data,
    })
    .meta({ id, description });

export const WEBHOOK_EVENT_SCHEMAS = {
  'risk_indicator.published': envelope(
    'risk_indicator.published',
    IndicatorPublishedDataSchema,
    'IndicatorPublishedEvent',
    'A Risk Indicator was published (every publication, including re-scores under a new framework version).',
  ),
  'risk_indicator.band_changed': envelope(
    'risk_indicator.band_changed',
    BandChangedDataSchema,
    'BandChangedEvent',
    "A publication moved a provider's risk band; sent together with its risk_indicator.published.",
  ),
  'risk_indicator.withdrawn': envelope(
    'risk_indicator.withdrawn',
    IndicatorWithdrawnDataSchema,
    'IndicatorWithdrawnEvent',
    "A provider's Risk Indicator was withdrawn: it has no indicator in force until it is published again.",
  ),
  'issuance.updated': envelope(
    'issuance.updated',
    IssuanceUpdatedDataSchema,
    'IssuanceUpdatedEvent',
    'An issuance record changed (status, pricing date, amount, …).',
  ),
  'methodology.published': envelope(
    'methodology.published',
    MethodologyPublishedDataSchema,
    'MethodologyPublishedEvent',
    'A framework version was signed off by the chief risk officer and published; re-scores follow as their own events.',
  ),
  'rating_action.created': envelope(
    'rating_action.created',
    RatingActionSchema,
    'RatingActionCreatedEvent',
    'A rating action took effect: every publication (NEW, UPGRADE, DOWNGRADE, AFFIRM, REINSTATE), every withdrawal (WITHDRAW) and every approved analyst action (WATCH_PLACED, WATCH_REMOVED, OUTLOOK_CHANGED). The data is the action as GET /api/public/rating-actions serves it, signature included.',
  ),
  ping: envelope('ping', PingDataSchema, 'PingEvent', 'Sent by `POST /api/v1/webhooks/{webhookId}/test`.'),
} as const;

export const WebhookEventSchema = z
  .discriminatedUnion('type', [
    WEBHOOK_EVENT_SCHEMAS['risk_indicator.published'],
    WEBHOOK_EVENT_SCHEMAS['risk_indicator.band_changed'],
    WEBHOOK_EVENT_SCHEMAS['risk_indicator.withdrawn'],
    WEBHOOK_EVENT_SCHEMAS['issuance.updated'],
    WEBHOOK_EVENT_SCHEMAS['methodology.published'],
    WEBHOOK_EVENT_SCHEMAS['rating_action.created'],
    WEBHOOK_EVENT_SCHEMAS.ping,
  ])
  .meta({ id: 'WebhookEvent' });

export type WebhookEvent = z.infer<typeof WebhookEventSchema>;
export type WebhookEventData<T extends WebhookEventType> = z.infer<(typeof WEBHOOK_EVENT_SCHEMAS)[T]>['data'];

// ---- endpoints ----

export const WebhookIdSchema = z
  .string()
  .regex(/^wh_[0-9a-f]{24}$/, 'must be a webhook id: wh_ followed by 24 lower-case hex digits');
export const DeliveryIdSchema = z
  .string()
  .regex(/^whd_[0-9a-f]{24}$/, 'must be a delivery id: whd_ followed by 24 lower-case hex digits');

export const WebhookParamsSchema = z.strictObject({ webhookId: WebhookIdSchema });
export const DeliveryParamsSchema = z.strictObject({ webhookId: WebhookIdSchema, deliveryId: DeliveryIdSchema });

export const WebhookCreateBodySchema = z
  .strictObject({
    url: z.string().min(1, 'must be an https URL').max(2048, 'must be at most 2048 characters').meta({
      description:
        'https only; private, loopback and metadata addresses are refused, and so are port 0 and the ports below 1024 other than 443.',
    }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
      .min(1, 'must name at least one event')
      .refine((list) => new Set(list).size === list.length, 'must not name an event twice'),
    description: plainText(z.string())
      .trim()
      .min(1, 'must not be empty')
      .max(500, 'must be at most 500 characters')
      .optional(),
  })
  .meta({ id: 'WebhookCreate' });

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;

export const WebhookEndpointSchema = z
  .object({
    id: WebhookIdSchema,
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.string().nullable(),
    status: z.enum(WEBHOOK_STATUSES).meta({ description: 'disabled: the receiver answered 410 Gone.' }),
    created_at: TimestampSchema,
    disabled_at: TimestampSchema.nullable(),
    disabled_reason: z.string().nullable(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const WebhooksListResponseSchema = z
  .object({ data: z.array(WebhookEndpointSchema) })
  .meta({ id: 'WebhooksListResponse' });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export const DeliveriesQuerySchema = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  ...PageQuery,
});

export const DeliveryAttemptSchema = z
  .object({
    attempt: z.number().int(),
    started_at: TimestampSchema,
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null without one." }),
    error: z.string().nullable().meta({ description: 'Why the attempt failed (timeout, refused, redirect, …).' }),
    response_excerpt: z.string().nullable().meta({ description: "The first 512 characters of the receiver's answer." }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const WebhookDeliverySchema = z
  .object({
    id: DeliveryIdSchema,
    webhook_id: WebhookIdSchema,
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int().meta({ description: 'Attempts made so far.' }),
    next_attempt_at: TimestampSchema.nullable().meta({
      description: 'When the next attempt is due; null unless pending.',
    }),
    delivered_at: TimestampSchema.nullable(),
    created_at: TimestampSchema,
    redelivery_of: DeliveryIdSchema.nullable(),
    attempt_log: z.array(DeliveryAttemptSchema),
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveriesResponseSchema = z
  .object({ data: z.array(WebhookDeliverySchema), next_cursor: z.string().nullable() })
  .meta({ id: 'DeliveriesResponse' });

export type WebhookCreateBody = z.infer<typeof WebhookCreateBodySchema>;
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;
export type DeliveriesQuery = z.infer<typeof DeliveriesQuerySchema>;
