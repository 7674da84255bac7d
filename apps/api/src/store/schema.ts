import type { Generated } from 'kysely';

/**
 * The tables, as Kysely sees them. Both engines store the same column types:
 * timestamps as ISO 8601 UTC text (YYYY-MM-DDTHH:MM:SS.sssZ, which sorts as
 * time does), booleans as 0/1 integers, JSON documents as text (packages keep
 * their exact canonical bytes), scores as double precision.
 */
export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  providers: ProvidersTable;
  approved_inputs: ApprovedInputsTable;
  risk_indicators: RiskIndicatorsTable;
  indicator_history: IndicatorHistoryTable;
  withdrawals: WithdrawalsTable;
  changelog: ChangelogTable;
  issuances: IssuancesTable;
  coverage_requests: CoverageRequestsTable;
  store_meta: StoreMetaTable;
  framework_releases: FrameworkReleasesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  operators: OperatorsTable;
  terms_acceptances: TermsAcceptancesTable;
  audit_log: AuditLogTable;
  audit_head: AuditHeadTable;
  signing_keys: SigningKeysTable;
  statements: StatementsTable;
  rating_actions: RatingActionsTable;
}

/** Every table, in dependency order. */
export const TABLES = [
  'workspaces',
  'api_keys',
  'providers',
  'approved_inputs',
  'risk_indicators',
  'indicator_history',
  'withdrawals',
  'changelog',
  'issuances',
  'coverage_requests',
  'store_meta',
  'framework_releases',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'operators',
  'terms_acceptances',
  'audit_log',
  'audit_head',
  'signing_keys',
  'statements',
  'rating_actions',
] as const satisfies readonly (keyof Database)[];

// A table added to Database but not to TABLES fails to compile here.
const everyTableListed: Exclude<keyof Database, (typeof TABLES)[number]> extends never ? true : never = true;
void everyTableListed;

export interface WorkspacesTable {
  id: string;
  name: string;
  /** AES-256-GCM ciphertext of the webhook signing secret (see services/secrets). */
  webhook_secret_enc: string;
  /** During a rotation overlap: the previous secret, sealed, still signing (a second header) until it expires. */
  previous_webhook_secret_enc: string | null;
  previous_secret_expires_at: string | null;
  mcp_enabled: number;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  /** The key's first characters, for people to recognise it; never enough to use it. */
  prefix: string;
  /** SHA-256 hex of the whole key: the key itself is never stored. */
  key_hash: string;
  tier: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** A name for people (which integration holds the key); null for keys issued without one. */
  name: string | null;
  /** When the key stops working (refused like a revoked one); null: it does not expire. */
  expires_at: string | null;
}

export interface ProvidersTable {
  id: string;
  name: string;
  planner_type: string;
  provider_subtype: string;
  yield_min: number;
  yield_max: number;
  /** The published Risk Indicator in force, null before the first publication or after a withdrawal. */
  current_indicator_id: string | null;
  /** The publication (indicator_history.seq) that put it in force. */
  current_seq: number | null;
  created_at: string;
  updated_at: string;
  withdrawn_at: string | null;
  /** The outlook in force (POSITIVE, STABLE, NEGATIVE, DEVELOPING): STABLE until an approved action sets another. */
  outlook: string;
  /** The watch in force, or all three null: its direction, since when, and its review date (YYYY-MM-DD). */
  watch_direction: string | null;
  watch_since: string | null;
  watch_review_by: string | null;
}

export interface ApprovedInputsTable {
  id: string;
  provider_id: string;
  /** The approved-inputs document as submitted (JSON text). */
  document: string;
  inputs_sha256: string;
  status: string;
  submitted_by: string;
  submitted_at: string;
  approved_by: string | null;
  approved_at: string | null;
  /** The operators behind submitted_by and approved_by; null in open mode and for submissions made before. */
  submitted_by_id: string | null;
  approved_by_id: string | null;
}

/** A published indicator, stored once per content-addressed id; its publications are in indicator_history. */
export interface RiskIndicatorsTable {
  risk_indicator_id: string;
  provider_id: string;
  framework_version: string;
  final_score: number;
  risk_band: string;
  confidence: number;
  publishable: number;
  scored_at: string;
  /** When the inputs were approved and when it was published, the first time. */
  score_verified_at: string;
  published_at: string;
  /** The Risk Indicator as the engine returned it (JSON text). */
  indicator: string;
  /** The computation package, its canonical RFC 8785 bytes. */
  package: string;
  /** The engine's path to the next band (JSON text); null only until the start-up backfill reaches it. */
  path_to_next_band: string | null;
  inputs_sha256: string;
  framework_sha256: string;
  result_sha256: string;
}

/** One row per publication, in publication order across the store. */
export interface IndicatorHistoryTable {
  seq: number;
  provider_id: string;
  risk_indicator_id: string;
  /** The framework version this publication was scored under (DCRF v1.0, …). */
  framework_version: string;
  score_verified_at: string;
  published_at: string;
}

/** A withdrawal of a provider's indicator, keyed by the publication it withdrew (indicator_history.seq). */
export interface WithdrawalsTable {
  after_seq: number;
  provider_id: string;
  /** The indicator withdrawn, and what it said. */
  risk_indicator_id: string;
  framework_version: string;
  previous_score: number;
  previous_band: string;
  reason: string | null;
  withdrawn_at: string;
}

export interface ChangelogTable {
  id: Generated<number>;
  provider_id: string;
  provider_name: string;
  change_type: string;
  previous_score: number | null;
  new_score: number | null;
  previous_band: string | null;
  new_band: string | null;
  framework_version: string;
  risk_indicator_id: string | null;
  changed_at: string;
  /** The rating action this change is (null only for an entry migration 0012 could not match). */
  rating_action_id: string | null;
}

export interface IssuancesTable {
  id: string;
  issuer_name: string;
  provider_id: string | null;
  instrument_name: string;
  ticker: string | null;
  type: string;
  status: string;
  currency: string;
  /** Decimal text, exact. */
  target_amount: string;
  coupon_rate_pct: number | null;
  coupon_frequency: string | null;
  expected_pricing_date: string | null;
  announced_at: string;
  updated_at: string;
}

export interface CoverageRequestsTable {
  id: string;
  provider_name: string;
  website: string | null;
  contact_email: string | null;
  planner_type: string | null;
  message: string | null;
  /** SHA-256 of the client and the canonical body: the same request again within 24 h gets the same id. */
  fingerprint: string;
  status: string;
  received_at: string;
  resolved_at: string | null;
  resolution: string | null;
}

export interface StoreMetaTable {
  key: string;
  value: string;
}

/** A framework version published: its definition's hash and the chief risk officer's sign-off. */
export interface FrameworkReleasesTable {
  version: string;
  framework_version: string;
  framework_sha256: string;
  signed_off_by: string;
  signed_off_at: string;
  /** YYYY-MM-DD: the release is current from this date. */
  effective_date: string;
  published_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** JSON array of the event types subscribed to. */
  events: string;
  description: string | null;
  /** active, disabled (the receiver answered 410) or deleted (kept for the deliveries that name it). */
  status: string;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  deleted_at: string | null;
}

/** The outbox: an event and the exact bytes every delivery of it sends. */
export interface WebhookEventsTable {
  id: string;
  type: string;
  created_at: string;
  body: string;
}

/** One event to one endpoint: its state, its schedule, and the lease of the dispatcher working on it. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  /** pending, delivered, failed or cancelled. */
  status: string;
  /** Attempts started: counted when a dispatcher claims the delivery, so no attempt number is sent twice. */
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  delivered_at: string | null;
  created_at: string;
  redelivery_of: string | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/** A person of the risk team: roles (comma-separated, sorted) and the SHA-256 of their token, never the token. */
export interface OperatorsTable {
  id: string;
  name: string;
  /** The name in lower case: unique, so "Alice" and "alice" cannot both exist. */
  name_key: string;
  roles: string;
  token_hash: string;
  created_at: string;
  /** When the token in force was issued (at creation, then at each rotation). */
  token_issued_at: string;
  revoked_at: string | null;
}

/** A contract administrator's acceptance of a terms document for a workspace. */
export interface TermsAcceptancesTable {
  id: string;
  workspace_id: string;
  /** `api` or `agent_tools_preview`. */
  terms: string;
  terms_version: string;
  administrator: string;
  /** Null only for the acceptances recorded by migration 0009 for workspaces that existed before. */
  email: string | null;
  accepted_at: string;
  /** Who recorded it: an operator's name, or `system`. */
  recorded_by: string;
}

/** One entry of the hash-chained audit trail (see store/audit-chain.ts); details are RFC 8785 JSON text. */
export interface AuditLogTable {
  seq: number;
  at: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  subject_type: string;
  subject_id: string;
  details: string;
  prev_hash: string;
  hash: string;
}

/** The one row (id 1) naming the last entry of the audit trail: kept apart, so removing the tail shows. */
export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
  /** When the head's entry was written: no later entry is dated before it. */
  at: string;
}

/** An Ed25519 key that signs statements, or signed them until `not_after`. */
export interface SigningKeysTable {
  /** The first 16 hex digits of the SHA-256 of the raw 32-byte public key. */
  kid: string;
  /** The raw public key, base64url (the JWK's `x`). */
  public_key: string;
  /** The PKCS#8 private key, sealed under the master key; null for a key given in SVC_SIGNING_KEY. */
  private_key_enc: string | null;
  not_before: string;
  not_after: string | null;
}

/** A signed statement of a publication or a withdrawal (decision 0026). */
export interface StatementsTable {
  id: Generated<number>;
  type: string;
  provider_id: string;
  risk_indicator_id: string;
  publication_seq: number;
  /** The statement's RFC 8785 text: the bytes signed. */
  statement: string;
  statement_sha256: string;
  /** base64url of the Ed25519 signature over the statement's bytes. */
  signature: string;
  kid: string;
  signed_at: string;
  /** The rating action a `rating_action` statement states; null for a publication's or a withdrawal's. */
  rating_action_id: string | null;
}

/**
 * A rating action (decision 0030): derived from a publication or a withdrawal, effective at once; or proposed by an
 * analyst (PENDING, its `proposal` kept) and effective once another person approves it. The effective fields are
 * null while pending.
 */
export interface RatingActionsTable {
  id: string;
  /** The order actions took effect in (1, 2, 3…, across the store); null while pending. */
  seq: number | null;
  /** PENDING or EFFECTIVE. */
  status: string;
  type: string;
  provider_id: string;
  provider_name: string;
  previous_band: string | null;
  new_band: string | null;
  previous_score: number | null;
  new_score: number | null;
  /** The outlook and the watch in force once the action took effect. */
  outlook: string | null;
  watch_direction: string | null;
  watch_since: string | null;
  watch_review_by: string | null;
  rationale: string | null;
  risk_indicator_id: string | null;
  framework_version: string | null;
  /** The publication (indicator_history.seq) published, withdrawn, or in force when an analyst action took effect. */
  publication_seq: number | null;
  /** What an analyst proposed (`direction`, `review_by`, `outlook`), RFC 8785 JSON text; null for derived actions. */
  proposal: string | null;
  proposed_by: string | null;
  proposed_by_id: string | null;
  proposed_at: string | null;
  approved_by: string | null;
  approved_by_id: string | null;
  effective_at: string | null;
}
