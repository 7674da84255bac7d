// Access: workspaces, the terms they accept, their API keys, and the authenticator that checks a presented key.
export { KeyAuthenticator } from './authenticator.js';
export {
  type CreatedKey,
  createKey,
  hashKey,
  isExpired,
  KEY_PREFIX,
  type KeyRequest,
  type KeyStatus,
  type KeySummary,
  listKeys,
  MAX_KEY_LIFETIME_MS,
  maskKeys,
  newKeyRow,
  revokeKey,
} from './keys.js';
export { acceptTerms, CURRENT_TERMS_VERSION, TERMS, type Terms, type TermsAcceptance } from './terms.js';
export {
  type CreatedWorkspace,
  createWorkspace,
  enableMcp,
  listWorkspaces,
  MAX_SECRET_OVERLAP_MS,
  type RotatedSecret,
  rotateWebhookSecret,
  showWorkspace,
  type WorkspaceDetail,
  type WorkspaceSummary,
} from './workspaces.js';
