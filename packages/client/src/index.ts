export type { RawBody } from './encoding.js';
export {
  STANDARD_WEBHOOK_HEADERS,
  type StandardWebhookOptions,
  SVC_WEBHOOK_HEADERS,
  verifyStandardWebhook,
  verifyWebhookSignature,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERIFICATION_REASONS,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks.js';
