export { type Clock, systemClock } from './clock.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { buildApp } from './http/app.js';
export {
  closeServices,
  createDispatcher,
  createLogger,
  createServices,
  type RunningServer,
  startServer,
} from './server.js';
export {
  AccessError,
  createKey,
  createWorkspace,
  enableMcp,
  hashKey,
  isExpired,
  KEY_PREFIX,
  type KeyStatus,
  type KeySummary,
  listKeys,
  listWorkspaces,
  MAX_KEY_LIFETIME_MS,
  MAX_SECRET_OVERLAP_MS,
  type RotatedSecret,
  revokeKey,
  rotateWebhookSecret,
  showWorkspace,
  type WorkspaceDetail,
  type WorkspaceSummary,
} from './services/access.js';
export {
  AdminError,
  addIssuance,
  closeIssuance,
  type IssuanceChanges,
  type IssuanceFields,
  listIssuanceRecords,
  listProviders,
  listRequests,
  type ProviderSummary,
  REQUEST_STATUSES,
  setRequestStatus,
  updateIssuance,
  type Withdrawal,
  withdrawProvider,
} from './services/admin.js';
export { ServiceError } from './services/errors.js';
export {
  currentPublishedFramework,
  type FrameworkRelease,
  findRelease,
  listReleases,
  type PublishFrameworkResult,
  publishedFramework,
  publishFramework,
} from './services/frameworks.js';
export {
  approveAllPending,
  approveInputs,
  listInputs,
  type PendingApproval,
  SubmissionError,
  type SubmissionProblem,
  type SubmissionRecord,
  type SubmissionStatus,
  type SubmittedDocument,
  submissionProblems,
  submitInputs,
} from './services/inputs.js';
export { type PublishRunRequest, publishRun, type RunOutcome, type RunReport } from './services/publication-run.js';
export { type ChangeType, type PublishOutcome, publishIndicator } from './services/publishing.js';
export { MemoryRateLimiter, RedisRateLimiter } from './services/rate-limit.js';
export { loadMasterKey, type SecretBox, secretBox } from './services/secrets.js';
export type { Services } from './services/services.js';
export { WebhookDispatcher } from './services/webhooks/dispatcher.js';
export { registerWebhook } from './services/webhooks/endpoints.js';
export { parseDuration } from './services/webhooks/schedule.js';
export { findIssuance, type IssuanceRow, upsertIssuance } from './store/repositories/issuances.js';
export { findProvider, type ProviderRow } from './store/repositories/providers.js';
export { endpointSummaries } from './store/repositories/webhooks.js';
export { TABLES } from './store/schema.js';
export { isStoreUnavailable, migrate, openStore, type Store, type StoreLocation } from './store/store.js';
