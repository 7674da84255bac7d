// @svc/api: what the CLI, the clients' tests and the bench use. Transports call service verbs; every verb is
// `verb(ctx, input)` with a ServiceContext (docs/architecture.md).
export { type Clock, systemClock } from './clock.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { MetricsListenError } from './metrics/listener.js';
export { createDispatcher, createLogger, type RunningServer, startServer } from './server.js';
export {
  acceptTerms,
  CURRENT_TERMS_VERSION,
  createKey,
  createWorkspace,
  enableMcp,
  type KeySummary,
  listKeys,
  listWorkspaces,
  MAX_KEY_LIFETIME_MS,
  MAX_SECRET_OVERLAP_MS,
  type RotatedSecret,
  revokeKey,
  rotateWebhookSecret,
  showWorkspace,
  type TermsAcceptance,
} from './services/access/access.js';
export { evidenceSchedule } from './services/analysis/evidence-schedule.js';
export {
  WATCHLIST_MAX_DAYS,
  type WatchlistCode,
  type WatchlistEntry,
  type WatchlistReason,
  watchlist,
} from './services/analysis/watchlist.js';
export type { Actor, Caller, ServiceContext } from './services/context.js';
export { listRequests, setRequestStatus } from './services/coverage-requests/coverage-requests.js';
export { ServiceError, type ServiceProblem } from './services/errors.js';
export { frameworkInForce, frameworkNamed, publishFramework } from './services/frameworks/frameworks.js';
export {
  approveAllPending,
  approveInputs,
  listInputs,
  type PendingApproval,
  type SubmissionRecord,
  type SubmittedDocument,
  submissionProblems,
  submitInputs,
} from './services/inputs/inputs.js';
export { redateInputs } from './services/inputs/redate.js';
export {
  diffPending,
  type InputChange,
  type PendingDiff,
  type PendingOutcome,
  type PendingSubmission,
  type PendingSummary,
  reviewAllPending,
  showPending,
} from './services/inputs/review.js';
export {
  addIssuance,
  closeIssuance,
  type IssuanceChanges,
  type IssuanceFields,
  type IssuanceRecord,
  importIssuances,
  listIssuanceRecords,
  updateIssuance,
} from './services/issuances/issuances.js';
export {
  type AuditEntry,
  type AuditQuery,
  type AuditVerification,
  auditHead,
  listAudit,
  MAX_AUDIT_PAGE,
  verifyAudit,
} from './services/operators/audit.js';
export {
  addOperator,
  authorise,
  type IssuedOperator,
  isOpenMode,
  listOperators,
  OPEN_MODE_WARNING,
  OPERATOR_ROLES,
  OPERATOR_TOKEN_VARIABLE,
  type OperatorRole,
  type OperatorSummary,
  resolveOperator,
  revokeOperator,
  rotateOperatorToken,
} from './services/operators/operators.js';
export { countProviders, listProviders, providerStanding, withdrawProvider } from './services/providers/providers.js';
export { publishRun, type RunOutcome, type RunReport, RunStopped } from './services/publishing/publication-run.js';
export {
  type ChangeType,
  PUBLICATION_BATCH,
  type PublishOutcome,
  preparePublication,
  publishIndicator,
  publishPrepared,
} from './services/publishing/publishing.js';
export {
  approveRatingActions,
  listRatingActions,
  type Proposal,
  proposeOutlook,
  proposeWatch,
  proposeWatchRemoval,
  type RatingActionForm,
  type RatingActionRecord,
  ratingActionStatement,
  ratingActionsPage,
  watchesInForce,
} from './services/rating-actions/rating-actions.js';
export { currentIndicator } from './services/scores/scores.js';
export { type StandaloneOptions, standaloneContext } from './services/services.js';
export { DEFAULT_FRESHNESS_POLICY, type FreshnessPolicy, freshnessPolicy } from './services/shared/freshness-policy.js';
export { loadMasterKey, MasterKeyError, type SecretBox, secretBox } from './services/shared/secrets.js';
export {
  admitSigner,
  generateSigner,
  kidOf,
  listSigningKeys,
  resolveSigner,
  rotateSigningKey,
  SIGNING_KEY_VARIABLE,
  type Signer,
  type SigningJwk,
  type SigningKeySummary,
  signerFromText,
  signerOf,
  signingJwks,
} from './services/shared/signing.js';
export {
  backfillStatements,
  ensureStatements,
  publicationStatement,
  type SignedStatement,
  type Statement,
  signPastPublications,
} from './services/statements/statements.js';
export { type StatementsVerification, verifyStatements } from './services/statements/statements-verification.js';
export { WebhookDispatcher } from './services/webhooks/dispatcher.js';
export { type EndpointSummary, listEndpointSummaries, registerWebhook } from './services/webhooks/endpoints.js';
export { parseDuration } from './services/webhooks/schedule.js';
export { migrate } from './store/migrate.js';
export { TABLES } from './store/schema.js';
export { isStoreUnavailable, openStore, type Store, type StoreLocation } from './store/store.js';
