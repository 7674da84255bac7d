export { DEFAULT_TIMEOUT_MS, SvcClient, type SvcClientOptions } from './client.js';
export type { RawBody } from './encoding.js';
export {
  type NetworkFailure,
  SvcApiError,
  type SvcApiErrorFields,
  SvcError,
  type SvcErrorCode,
  SvcNetworkError,
  UNEXPECTED_RESPONSE,
} from './errors.js';
export { isWithdrawal } from './history.js';
export type { Page } from './pagination.js';
export type { RateLimitInfo } from './rate-limit.js';
export { DEFAULT_RETRY, RETRYABLE_STATUSES, type RetryOptions } from './retry.js';
export type { RequestOptions } from './transport.js';
export type * from './types.js';
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
