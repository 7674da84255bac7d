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
export type { Actor, Caller, ServiceContext } from './services/context.js';
export { listRequests, REQUEST_STATUSES, setRequestStatus } from './services/coverage-requests.js';
export { ServiceError, type ServiceProblem } from './services/errors.js';
export {
  type FrameworkRelease,
  findRelease,
  frameworkInForce,
  frameworkNamed,
  listReleases,
  type PublishFrameworkResult,
  publishFramework,
} from './services/frameworks.js';
export {
  approveAllPending,
  approveInputs,
  listInputs,
  type PendingApproval,
  type SubmissionProblem,
  type SubmissionRecord,
  type SubmissionStatus,
  type SubmittedDocument,
  submissionProblems,
  submitInputs,
} from './services/inputs.js';
export {
  addIssuance,
  closeIssuance,
  type IssuanceChanges,
  type IssuanceFields,
  type IssuanceRecord,
  importIssuances,
  listIssuanceRecords,
  updateIssuance,
} from './services/issuances.js';
export {
  listProviders,
  type ProviderSummary,
  providerStanding,
  type Withdrawal,
  withdrawProvider,
} from './services/providers.js';
export { type PublishRunRequest, publishRun, type RunOutcome, type RunReport } from './services/publication-run.js';
export { type ChangeType, type PublishOutcome, publishIndicator } from './services/publishing.js';
export { MemoryRateLimiter, RedisRateLimiter } from './services/rate-limit.js';
export { loadMasterKey, type SecretBox, secretBox } from './services/secrets.js';
export { type Services, type StandaloneOptions, standaloneContext } from './services/services.js';
export { WebhookDispatcher } from './services/webhooks/dispatcher.js';
export { type EndpointSummary, listEndpointSummaries, registerWebhook } from './services/webhooks/endpoints.js';
export { parseDuration } from './services/webhooks/schedule.js';
export { TABLES } from './store/schema.js';
export { isStoreUnavailable, migrate, openStore, type Store, type StoreLocation } from './store/store.js';
