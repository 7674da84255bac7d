import { FrameworkDefinitionSchema } from '@svc/methodology';
import type { z } from 'zod';
import {
  CompareQuerySchema,
  ComparisonSchema,
  EvidenceScheduleQuerySchema,
  EvidenceScheduleResponseSchema,
  ExportQuerySchema,
  MemoQuerySchema,
  PortfolioBodySchema,
  PortfolioScoreSchema,
  ProviderSearchQuerySchema,
  ProviderSearchResponseSchema,
  WhatIfBodySchema,
  WhatIfResponseSchema,
} from './analysis.js';
import type { Tier } from './common.js';
import { checkedDeprecation, type Deprecation } from './deprecation.js';
import type { ErrorCode } from './errors.js';
import { McpManifestSchema, McpPostResponseSchema, McpRequestBodySchema } from './mcp.js';
import { RatingActionParamsSchema, RatingActionsQuerySchema, RatingActionsResponseSchema } from './rating-actions.js';
import {
  ChangelogQuerySchema,
  ChangelogResponseSchema,
  ComputationPackageSchema,
  ComputationParamsSchema,
  CoverageRequestBodySchema,
  CoverageRequestParamsSchema,
  CoverageRequestResponseSchema,
  CoverageRequestStatusResponseSchema,
  FrameworkParamsSchema,
  FrameworksResponseSchema,
  IssuancesQuerySchema,
  IssuancesResponseSchema,
  LiveResponseSchema,
  MethodologyQuerySchema,
  MethodologyResponseSchema,
  ReadyResponseSchema,
  StatusResponseSchema,
} from './resources.js';
import {
  HistoryQuerySchema,
  ProviderParamsSchema,
  PublicScoresQuerySchema,
  PublicScoresResponseSchema,
  RiskIndicatorSchema,
  ScoreHistoryResponseSchema,
  ScoreQuerySchema,
  ScoresListResponseSchema,
  ScoresQuerySchema,
} from './scores.js';
import {
  PublicationParamsSchema,
  SignedStatementSchema,
  SigningKeysResponseSchema,
  StatementParamsSchema,
} from './statements.js';
import {
  BandsQuerySchema,
  BandsResponseSchema,
  TransitionsQuerySchema,
  TransitionsResponseSchema,
} from './statistics.js';
import {
  DeliveriesQuerySchema,
  DeliveriesResponseSchema,
  DeliveryParamsSchema,
  WebhookCreateBodySchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookParamsSchema,
  WebhooksListResponseSchema,
} from './webhooks.js';

/** Which limit a route spends: the key's hourly budget, or a per-client-IP public limit. */
export type LimitName =
  | 'key'
  | 'public_scores'
  | 'public_changelog'
  | 'public_frameworks'
  | 'score_request'
  | 'score_request_status'
  | 'public_records'
  | 'none';

export interface Endpoint {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form, e.g. `/api/v1/scores/{providerId}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Lowest tier entitled; absent for public routes. */
  tier?: Tier;
  limit: LimitName;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    contentType?: string;
    /** Media types served instead of `contentType` when a query parameter asks (a memo's `format=html`). */
    otherContentTypes?: readonly string[];
    schema?: z.ZodType;
  };
  /** Answers with no body besides the success and the errors: 202 to an MCP notification, 304 to a matching ETag. */
  bodiless?: { status: 202 | 304; description: string }[];
  errors: ErrorCode[];
  /** Set when the route is deprecated: announced, sunset, the page explaining it (docs/compatibility.md). */
  deprecation?: Deprecation;
}

/**
 * The HTTP layer's own refusals, which any operation can meet: a request head over 16 KiB (431), a request that does
 * not arrive in time (408), and, for an operation that serves a body, an Accept header excluding its media types (406).
 */
function withTransportErrors<T extends Record<string, Endpoint>>(list: T): T {
  for (const e of Object.values(list)) {
    const transport: ErrorCode[] = ['request_timeout', 'headers_too_large'];
    if (e.success.contentType) transport.push('not_acceptable');
    e.errors = [...new Set([...e.errors, ...transport])];
  }
  return list;
}

const keyed: ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'insufficient_tier', 'rate_limited', 'unavailable'];
const json = 'application/json';
const memo = {
  status: 200,
  description: 'The memo, as Markdown (its figures in tables) or HTML (charts of them too, before the tables).',
  contentType: 'text/markdown',
  otherContentTypes: ['text/html'],
} as const satisfies Endpoint['success'];

export const endpoints = withTransportErrors({
  listScores: {
    operationId: 'listScores',
    method: 'get',
    path: '/api/v1/scores',
    summary: 'List current Risk Indicators',
    description:
      'Every provider with a published Risk Indicator, by name, with the full breakdown. With `as_of`, the ' +
      'indicators in force at that instant, exactly as they were published then; providers with none then are left ' +
      'out. A `next_cursor` holds the `as_of` it was made with and is refused with another one (or without).',
    tag: 'Scores',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: ScoresQuerySchema,
    success: {
      status: 200,
      description: 'A page of Risk Indicators.',
      contentType: json,
      schema: ScoresListResponseSchema,
    },
    errors: ['invalid_request', ...keyed],
  },
  getScore: {
    operationId: 'getScore',
    method: 'get',
    path: '/api/v1/scores/{providerId}',
    summary: "A provider's current Risk Indicator",
    description:
      'The Risk Indicator in force now; with `as_of`, the one in force at that instant, exactly as it was published ' +
      'then (404 when the provider had none in force then: not yet published, or withdrawn).',
    tag: 'Scores',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: ProviderParamsSchema,
    query: ScoreQuerySchema,
    success: {
      status: 200,
      description: 'The Risk Indicator in force (now, or at `as_of`).',
      contentType: json,
      schema: RiskIndicatorSchema,
    },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  getScoreHistory: {
    operationId: 'getScoreHistory',
    method: 'get',
    path: '/api/v1/scores/{providerId}/history',
    summary: "A provider's published Risk Indicators and withdrawals, newest first",
    description:
      'Every publication (`entry_type: "publication"`, then the Risk Indicator as GET /api/v1/scores/{providerId} ' +
      'serves it) and every withdrawal (an entry of its own, `entry_type: "withdrawal"`, with the indicator ' +
      'withdrawn, its score and band, and the reason), newest first. A withdrawal follows the ' +
      'publication it withdrew, so a provider withdrawn and published again from the same inputs lists the same ' +
      '`risk_indicator_id` twice with its withdrawal between.',
    tag: 'Scores',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: ProviderParamsSchema,
    query: HistoryQuerySchema,
    success: {
      status: 200,
      description: 'A page of the history.',
      contentType: json,
      schema: ScoreHistoryResponseSchema,
    },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  getMethodology: {
    operationId: 'getMethodology',
    method: 'get',
    path: '/api/v1/methodology',
    summary: 'The methodology framework as published data',
    tag: 'Methodology',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: MethodologyQuerySchema,
    success: {
      status: 200,
      description: 'The framework definition.',
      contentType: json,
      schema: MethodologyResponseSchema,
    },
    errors: ['invalid_request', ...keyed],
  },
  getComputation: {
    operationId: 'getComputation',
    method: 'get',
    path: '/api/v1/computation/{id}',
    summary: 'The computation package of a published Risk Indicator',
    description: 'Canonical RFC 8785 JSON bytes, exactly as stored; reproduce it with `svc verify`.',
    tag: 'Scores',
    tier: 'ENTERPRISE',
    limit: 'key',
    params: ComputationParamsSchema,
    success: {
      status: 200,
      description: 'The computation package.',
      contentType: json,
      schema: ComputationPackageSchema,
    },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  listIssuances: {
    operationId: 'listIssuances',
    method: 'get',
    path: '/api/v1/issuances',
    summary: 'Upcoming issuances (preferred shares and bonds)',
    tag: 'Issuances',
    tier: 'FREE',
    limit: 'key',
    query: IssuancesQuerySchema,
    success: {
      status: 200,
      description: 'A page of issuances, newest first.',
      contentType: json,
      schema: IssuancesResponseSchema,
    },
    errors: ['invalid_request', ...keyed],
  },
  getStatus: {
    operationId: 'getStatus',
    method: 'get',
    path: '/api/v1/status',
    summary: 'Platform status, data freshness and framework version',
    tag: 'Status',
    limit: 'none',
    success: { status: 200, description: 'The status.', contentType: json, schema: StatusResponseSchema },
    errors: ['invalid_request'],
  },
  listPublicScores: {
    operationId: 'listPublicScores',
    method: 'get',
    path: '/api/public/scores',
    summary: 'Headline scores and bands of every provider (public)',
    description:
      'Rate limited per client IP (120/minute). Served from a snapshot with a strong ETag. Every provider by default; with `limit` or `cursor`, pages of the same list in name order. ' +
      'With `as_of`, the headlines in force at that instant (providers with none then left out), built once per `as_of` and publication; a `next_cursor` holds its `as_of`.',
    tag: 'Public',
    limit: 'public_scores',
    query: PublicScoresQuerySchema,
    success: { status: 200, description: 'Headline scores.', contentType: json, schema: PublicScoresResponseSchema },
    bodiless: [{ status: 304, description: 'Not modified: `If-None-Match` names the current ETag.' }],
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getChangelog: {
    operationId: 'getChangelog',
    method: 'get',
    path: '/api/public/changelog',
    summary: 'Change feed of Risk Indicator changes, newest first (public)',
    tag: 'Public',
    limit: 'public_changelog',
    query: ChangelogQuerySchema,
    success: { status: 200, description: 'A page of changes.', contentType: json, schema: ChangelogResponseSchema },
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getChangelogAtom: {
    operationId: 'getChangelogAtom',
    method: 'get',
    path: '/api/public/changelog.atom',
    summary: 'The change feed as Atom (public)',
    tag: 'Public',
    limit: 'public_changelog',
    success: {
      status: 200,
      description: 'An Atom feed of the latest 100 changes.',
      contentType: 'application/atom+xml',
    },
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  listFrameworks: {
    operationId: 'listFrameworks',
    method: 'get',
    path: '/api/public/frameworks',
    summary: 'Every released framework version with its SHA-256 and sign-off (public)',
    description:
      'The versions a computation package can name: each with the `framework_sha256` its packages carry, its effective date and who signed it off. With a strong ETag.',
    tag: 'Public',
    limit: 'public_frameworks',
    success: {
      status: 200,
      description: 'The released frameworks.',
      contentType: json,
      schema: FrameworksResponseSchema,
    },
    bodiless: [{ status: 304, description: 'Not modified: `If-None-Match` names the current ETag.' }],
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getFramework: {
    operationId: 'getFramework',
    method: 'get',
    path: '/api/public/frameworks/{version}',
    summary: 'The canonical definition of a released framework (public)',
    description:
      'The RFC 8785 canonical JSON bytes of the definition, exactly those whose SHA-256 is the `framework_sha256` listed (and named by computation packages as `framework.sha256`): hash the body as received. The ETag is that SHA-256.',
    tag: 'Public',
    limit: 'public_frameworks',
    params: FrameworkParamsSchema,
    success: {
      status: 200,
      description: 'The framework definition, canonical bytes.',
      contentType: json,
      schema: FrameworkDefinitionSchema,
    },
    bodiless: [{ status: 304, description: 'Not modified: `If-None-Match` names the current ETag.' }],
    errors: ['invalid_request', 'not_found', 'rate_limited', 'unavailable'],
  },
  requestScore: {
    operationId: 'requestScore',
    method: 'post',
    path: '/api/public/score-request',
    summary: 'Ask for a provider to be covered (public)',
    description:
      'Rate limited per client IP (5/hour). The same request again from the same client within 24 hours answers ' +
      'the same request_id and its current status, and does not spend that budget (it counts with the status ' +
      'lookups, 120/minute). Follow a request with GET /api/public/score-request/{requestId}.',
    tag: 'Public',
    limit: 'score_request',
    body: CoverageRequestBodySchema,
    success: { status: 202, description: 'Received.', contentType: json, schema: CoverageRequestResponseSchema },
    errors: ['invalid_request', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'unavailable'],
  },
  getScoreRequest: {
    operationId: 'getScoreRequest',
    method: 'get',
    path: '/api/public/score-request/{requestId}',
    summary: 'What became of a coverage request (public)',
    description:
      'Its status (RECEIVED, IN_REVIEW, COVERED, DECLINED) and the resolution note, nothing else: nothing the ' +
      'requester sent is shown. The request id is the capability. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'score_request_status',
    params: CoverageRequestParamsSchema,
    success: {
      status: 200,
      description: 'The status of the request.',
      contentType: json,
      schema: CoverageRequestStatusResponseSchema,
    },
    errors: ['invalid_request', 'not_found', 'rate_limited', 'unavailable'],
  },
  getPublicationStatement: {
    operationId: 'getPublicationStatement',
    method: 'get',
    path: '/api/public/publications/{riskIndicatorId}',
    summary: "A publication's signed statement (public)",
    description:
      'The statement of the publication of a Risk Indicator, signed with Ed25519 over its RFC 8785 bytes: the figures, ' +
      'the framework, inputs, result and package hashes, the previous statement of the provider and the audit trail head. ' +
      'Check it against the key of `kid` at /.well-known/svc-signing-keys.json: the verification page ' +
      '/verify/{risk_indicator_id} shows how, with curl, python3 and openssl. An indicator published again after a ' +
      'withdrawal answers its latest statement. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    params: PublicationParamsSchema,
    success: { status: 200, description: 'The signed statement.', contentType: json, schema: SignedStatementSchema },
    errors: ['invalid_request', 'not_found', 'rate_limited', 'unavailable'],
  },
  getStatement: {
    operationId: 'getStatement',
    method: 'get',
    path: '/api/public/statements/{statementSha256}',
    summary: 'Any signed statement, by its hash (public)',
    description:
      'Every statement the service has signed, of every type (a publication, a withdrawal, a rating action), by the ' +
      'SHA-256 of its RFC 8785 bytes: the `prev_statement_sha256` of the next statement of its provider, or the ' +
      '`statement_sha256` a served indicator or action carries. Following `prev_statement_sha256` from any statement ' +
      "walks the provider's chain back to its first. Statements are never rewritten, so the answer " +
      'may be kept for ever. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    params: StatementParamsSchema,
    success: { status: 200, description: 'The signed statement.', contentType: json, schema: SignedStatementSchema },
    errors: ['invalid_request', 'not_found', 'rate_limited', 'unavailable'],
  },
  getTransitionStatistics: {
    operationId: 'getTransitionStatistics',
    method: 'get',
    path: '/api/public/statistics/transitions',
    summary: 'The band transition matrix between two instants (public)',
    description:
      'The track record: the providers whose rating was in force at `from`, by their band then (rows), against their ' +
      'band at `to` (default: the present) or WITHDRAWN when none was in force then (columns); counts and row shares, ' +
      'with the upgrades, downgrades, unchanged, withdrawn and newly rated providers counted. In force means as for ' +
      '`as_of`: the latest publication at or before the instant, unless withdrawn by then. `format=csv` answers one ' +
      'row per band. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    query: TransitionsQuerySchema,
    success: {
      status: 200,
      description: 'The transition matrix.',
      contentType: json,
      otherContentTypes: ['text/csv'],
      schema: TransitionsResponseSchema,
    },
    bodiless: [{ status: 304, description: 'Not modified: `If-None-Match` names the current ETag.' }],
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getBandStatistics: {
    operationId: 'getBandStatistics',
    method: 'get',
    path: '/api/public/statistics/bands',
    summary: 'Providers per band at an instant (public)',
    description:
      'How many providers had a rating in force in each band at `as_of` (default: the present), with their shares. ' +
      '`format=csv` answers one row per band. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    query: BandsQuerySchema,
    success: {
      status: 200,
      description: 'The band counts.',
      contentType: json,
      otherContentTypes: ['text/csv'],
      schema: BandsResponseSchema,
    },
    bodiless: [{ status: 304, description: 'Not modified: `If-None-Match` names the current ETag.' }],
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  listRatingActions: {
    operationId: 'listRatingActions',
    method: 'get',
    path: '/api/public/rating-actions',
    summary: 'Rating actions, newest first (public)',
    description:
      'Every rating action that took effect: those of publications (NEW, UPGRADE, DOWNGRADE, AFFIRM, REINSTATE) and ' +
      'withdrawals (WITHDRAW), and the analyst actions approved by another person of the risk team (WATCH_PLACED, ' +
      'WATCH_REMOVED, OUTLOOK_CHANGED), each with the outlook and watch in force after it and its signature. Newest ' +
      'first, in the order they took effect; filter by provider, type and time. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    query: RatingActionsQuerySchema,
    success: {
      status: 200,
      description: 'A page of rating actions.',
      contentType: json,
      schema: RatingActionsResponseSchema,
    },
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getRatingActionsAtom: {
    operationId: 'getRatingActionsAtom',
    method: 'get',
    path: '/api/public/rating-actions.atom',
    summary: 'Rating actions as Atom (public)',
    description: 'The latest 100 rating actions as an Atom 1.0 feed. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    success: {
      status: 200,
      description: 'An Atom feed of the latest 100 rating actions.',
      contentType: 'application/atom+xml',
    },
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  getRatingActionStatement: {
    operationId: 'getRatingActionStatement',
    method: 'get',
    path: '/api/public/rating-actions/{ratingActionId}/statement',
    summary: "A rating action's signed statement (public)",
    description:
      'The statement of a rating action, signed with Ed25519 over its RFC 8785 bytes: the action as it took effect ' +
      '(`action`, the fields the feed serves), the previous statement of the provider and the audit trail head. Check ' +
      "it against the key of `kid` at /.well-known/svc-signing-keys.json, as a publication's (the verification page " +
      '/verify/{risk_indicator_id} shows how). A pending proposal has none (404). Rate limited per client IP ' +
      '(120/minute).',
    tag: 'Public',
    limit: 'public_records',
    params: RatingActionParamsSchema,
    success: { status: 200, description: 'The signed statement.', contentType: json, schema: SignedStatementSchema },
    errors: ['invalid_request', 'not_found', 'rate_limited', 'unavailable'],
  },
  getSigningKeys: {
    operationId: 'getSigningKeys',
    method: 'get',
    path: '/.well-known/svc-signing-keys.json',
    summary: 'The public keys statements are signed with (JWKS, public)',
    description:
      'Every Ed25519 key that signs or signed statements (RFC 7517, RFC 8037): the active one, and the retired ones, ' +
      'whose statements keep verifying. Rate limited per client IP (120/minute).',
    tag: 'Public',
    limit: 'public_records',
    success: { status: 200, description: 'The keys.', contentType: json, schema: SigningKeysResponseSchema },
    errors: ['invalid_request', 'rate_limited', 'unavailable'],
  },
  createWebhook: {
    operationId: 'createWebhook',
    method: 'post',
    path: '/api/v1/webhooks',
    summary: 'Register a webhook endpoint',
    description:
      'Events are POSTed to the URL signed with the workspace secret (`x-svc-signature`, and the Standard Webhooks headers). ' +
      'https only; a URL whose host is or resolves to a private, loopback, link-local or metadata address is refused. ' +
      'At most 20 endpoints per workspace.',
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    body: WebhookCreateBodySchema,
    success: { status: 201, description: 'Registered.', contentType: json, schema: WebhookEndpointSchema },
    errors: ['invalid_request', 'too_many_webhooks', 'payload_too_large', 'unsupported_media_type', ...keyed],
  },
  listWebhooks: {
    operationId: 'listWebhooks',
    method: 'get',
    path: '/api/v1/webhooks',
    summary: "The workspace's webhook endpoints",
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    success: {
      status: 200,
      description: 'Every endpoint, oldest first.',
      contentType: json,
      schema: WebhooksListResponseSchema,
    },
    errors: ['invalid_request', ...keyed],
  },
  deleteWebhook: {
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/api/v1/webhooks/{webhookId}',
    summary: 'Remove a webhook endpoint',
    description: 'Its pending deliveries are cancelled and nothing more is sent to it; its delivery log goes with it.',
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: WebhookParamsSchema,
    success: { status: 204, description: 'Removed.' },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  listDeliveries: {
    operationId: 'listDeliveries',
    method: 'get',
    path: '/api/v1/webhooks/{webhookId}/deliveries',
    summary: "A webhook endpoint's delivery log, newest first",
    description: 'Each delivery with its attempts: status code, error and timing of every try.',
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: WebhookParamsSchema,
    query: DeliveriesQuerySchema,
    success: { status: 200, description: 'A page of deliveries.', contentType: json, schema: DeliveriesResponseSchema },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  redeliver: {
    operationId: 'redeliver',
    method: 'post',
    path: '/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    summary: 'Send a delivery again',
    description:
      'A new delivery of the same event (same event id and body), attempted at once and retried like any other.',
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: DeliveryParamsSchema,
    success: { status: 202, description: 'Queued.', contentType: json, schema: WebhookDeliverySchema },
    errors: ['invalid_request', 'not_found', 'webhook_disabled', ...keyed],
  },
  testWebhook: {
    operationId: 'testWebhook',
    method: 'post',
    path: '/api/v1/webhooks/{webhookId}/test',
    summary: 'Send a ping event to a webhook endpoint',
    description: 'Queues a signed `ping` event for this endpoint only; follow it in the delivery log.',
    tag: 'Webhooks',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: WebhookParamsSchema,
    success: { status: 202, description: 'Queued.', contentType: json, schema: WebhookDeliverySchema },
    errors: ['invalid_request', 'not_found', 'webhook_disabled', ...keyed],
  },
  searchProviders: {
    operationId: 'searchProviders',
    method: 'get',
    path: '/api/v1/providers/search',
    summary: 'Find providers by name',
    description:
      'Case- and accent-insensitive: the whole name first, then names that start with the text, a word that does, and names that contain it.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: ProviderSearchQuerySchema,
    success: {
      status: 200,
      description: 'Providers with a published indicator, best match first.',
      contentType: json,
      schema: ProviderSearchResponseSchema,
    },
    errors: ['invalid_request', ...keyed],
  },
  compareScores: {
    operationId: 'compareScores',
    method: 'get',
    path: '/api/v1/scores/compare',
    summary: 'Compare 2 to 10 providers side by side',
    description: 'Their indicators, points per criterion and module, and the spread and leader of each.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: CompareQuerySchema,
    success: { status: 200, description: 'The comparison.', contentType: json, schema: ComparisonSchema },
    errors: ['invalid_request', ...keyed],
  },
  exportScores: {
    operationId: 'exportScores',
    method: 'get',
    path: '/api/v1/scores/export.csv',
    summary: 'Current Risk Indicators as CSV',
    description:
      'One row per provider with its score, band, confidence and module scores, each column of figures at one precision (final_score 2 places, confidence 4, module scores 6). Text cells that a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage return) are prefixed with an apostrophe.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: ExportQuerySchema,
    success: { status: 200, description: 'RFC 4180 CSV with a header row.', contentType: 'text/csv' },
    errors: ['invalid_request', ...keyed],
  },
  scorePortfolio: {
    operationId: 'scorePortfolio',
    method: 'post',
    path: '/api/v1/portfolio/score',
    summary: 'Score a portfolio of holdings',
    description:
      'The amount-weighted score and band, the weakest holdings, the concentration (Herfindahl index) and the exposure per band.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    body: PortfolioBodySchema,
    success: { status: 200, description: 'The portfolio score.', contentType: json, schema: PortfolioScoreSchema },
    errors: ['invalid_request', 'payload_too_large', 'unsupported_media_type', ...keyed],
  },
  portfolioMemo: {
    operationId: 'portfolioMemo',
    method: 'post',
    path: '/api/v1/portfolio/memo',
    summary: 'A credit memo for a portfolio',
    description:
      'Portfolio score, band, concentration, weakest holdings, exposure by band and holdings, from a fixed ' +
      'template. The HTML form draws the exposure to every band of the framework as a bar chart; the Markdown form ' +
      'has the same figures in its table.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    query: MemoQuerySchema,
    body: PortfolioBodySchema,
    success: memo,
    errors: ['invalid_request', 'payload_too_large', 'unsupported_media_type', ...keyed],
  },
  whatIf: {
    operationId: 'whatIf',
    method: 'post',
    path: '/api/v1/scores/{providerId}/what-if',
    summary: "Recompute a provider's indicator with some inputs changed",
    description: 'The engine scores the approved inputs with the overrides applied; nothing is stored or published.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: ProviderParamsSchema,
    body: WhatIfBodySchema,
    success: {
      status: 200,
      description: 'The hypothetical indicator and what changed.',
      contentType: json,
      schema: WhatIfResponseSchema,
    },
    errors: ['invalid_request', 'not_found', 'payload_too_large', 'unsupported_media_type', ...keyed],
  },
  getEvidenceSchedule: {
    operationId: 'getEvidenceSchedule',
    method: 'get',
    path: '/api/v1/scores/{providerId}/evidence-schedule',
    summary: "When a provider's indicator changes if no new evidence comes",
    description:
      'From the approved inputs of the indicator in force, the engine finds the dates within `days` of today on ' +
      'which its figures change as the evidence ages: an input passes 90 days (freshness and confidence start to ' +
      'fall) or 365 days (freshness drops to 0.25), HC-07 fires, the final score or band changes, or confidence ' +
      'falls below 0.5 (no longer publishable). Each date carries the figures the engine gives the inputs on it. ' +
      'Between two dates only confidence can move, and only while `decaying_criteria` is not empty. Nothing is ' +
      'stored; 404 for an unknown provider or one with no indicator in force.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: ProviderParamsSchema,
    query: EvidenceScheduleQuerySchema,
    success: {
      status: 200,
      description: 'The evidence schedule.',
      contentType: json,
      schema: EvidenceScheduleResponseSchema,
    },
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  getScoreMemo: {
    operationId: 'getScoreMemo',
    method: 'get',
    path: '/api/v1/scores/{providerId}/memo',
    summary: "A credit memo of a provider's current indicator",
    description:
      'Provider, score, band, decision object, commentary, caps and history, from a fixed template. The HTML form ' +
      'draws the score history (over the bands of the framework) and the module scores as charts; the Markdown form ' +
      'has the same figures in its tables.',
    tag: 'Analysis',
    tier: 'PROFESSIONAL',
    limit: 'key',
    params: ProviderParamsSchema,
    query: MemoQuerySchema,
    success: memo,
    errors: ['invalid_request', 'not_found', ...keyed],
  },
  getMcpManifest: {
    operationId: 'getMcpManifest',
    method: 'get',
    path: '/api/mcp',
    summary: 'The agent tool manifest (preview)',
    description:
      'The five agent tools with the JSON Schema of their inputs, and `enabled`: whether this server answers tool calls. ' +
      'A GET that accepts only `text/event-stream` (an MCP client opening its optional event stream) gets 405: the ' +
      'MCP endpoint is stateless and streams nothing.',
    tag: 'Agents',
    limit: 'none',
    success: { status: 200, description: 'The manifest.', contentType: json, schema: McpManifestSchema },
    errors: ['invalid_request', 'method_not_allowed'],
  },
  callMcpTool: {
    operationId: 'callMcpTool',
    method: 'post',
    path: '/api/mcp',
    summary: 'Call an agent tool, or speak the Model Context Protocol (preview)',
    description:
      'A plain call `{tool_name, input}` answers `{tool_name, output}`, the output being the JSON the matching REST ' +
      'endpoint serves. A body with `jsonrpc: "2.0"` (one message or a batch) is served as the Model Context Protocol ' +
      'over streamable HTTP, stateless, with JSON answers (no session, no event stream): `initialize`, `tools/list`, ' +
      '`tools/call`; a notification answers 202 with no body, and JSON-RPC errors are JSON-RPC bodies, but a message ' +
      'the transport refuses outright (not JSON-RPC, or an Accept without `text/event-stream`) is a problem. Every POST is ' +
      'one request of the hourly limit. A preview: the server must enable it (`SVC_MCP_ENABLED`) and the operator ' +
      "the key's workspace (`svc workspace enable-mcp`), else 403 `mcp_not_enabled`.",
    tag: 'Agents',
    tier: 'PROFESSIONAL',
    limit: 'key',
    body: McpRequestBodySchema,
    success: {
      status: 200,
      description: 'The tool output, or the JSON-RPC answer.',
      contentType: json,
      schema: McpPostResponseSchema,
    },
    bodiless: [{ status: 202, description: 'Accepted: the body held only notifications or responses.' }],
    errors: [
      'invalid_request',
      'not_found',
      'mcp_not_enabled',
      'not_acceptable',
      'payload_too_large',
      'unsupported_media_type',
      ...keyed,
    ],
  },
} satisfies Record<string, Endpoint>);

export type EndpointName = keyof typeof endpoints;

/** Deprecations a server adds to the contract's, by endpoint (a test deprecates a route without changing the contract). */
export type Deprecations = Partial<Record<EndpointName, Deprecation>>;

/**
 * The deprecated routes by operationId: those the contract deprecates, and `added` on top. Throws when any is not
 * an endpoint or gives less than six months' notice, so such a definition never reaches a client.
 */
export function deprecationsIn(added: Deprecations = {}): ReadonlyMap<string, Deprecation> {
  const deprecated = new Map<string, Deprecation>();
  for (const e of Object.values(endpoints) as Endpoint[]) {
    if (e.deprecation) deprecated.set(e.operationId, checkedDeprecation(e.operationId, e.deprecation));
  }
  for (const [name, deprecation] of Object.entries(added)) {
    if (!Object.hasOwn(endpoints, name)) throw new Error(`cannot deprecate ${name}: there is no such endpoint`);
    if (!deprecation) continue;
    const { operationId } = endpoints[name as EndpointName];
    deprecated.set(operationId, checkedDeprecation(operationId, deprecation));
  }
  return deprecated;
}
/**
 * The probes a load balancer or an orchestrator calls, apart from `endpoints` (the API the clients wrap): the
 * OpenAPI document lists them under `Operations`. Public, never limited, never cached.
 */
export const operationsEndpoints = withTransportErrors({
  getLivez: {
    operationId: 'getLivez',
    method: 'get',
    path: '/livez',
    summary: 'Liveness: the process is up',
    description: 'Answers 200 while the process runs; it never reads the store. A failing liveness probe restarts.',
    tag: 'Operations',
    limit: 'none',
    success: { status: 200, description: 'The process is up.', contentType: json, schema: LiveResponseSchema },
    errors: ['invalid_request'],
  },
  getReadyz: {
    operationId: 'getReadyz',
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the store answers and its migrations are applied',
    description:
      'Answers 200 when the store answered a round trip within the store timeout and every migration this ' +
      'instance knows is applied; otherwise 503 `unavailable` with `Retry-After` and a `checks` object naming the ' +
      'failed check. Migrations the store has that this instance does not know (a newer instance ran them) do not ' +
      'make it unready. A failing readiness probe takes the instance out of the load balancer.',
    tag: 'Operations',
    limit: 'none',
    success: { status: 200, description: 'Ready to serve.', contentType: json, schema: ReadyResponseSchema },
    errors: ['invalid_request', 'unavailable'],
  },
} satisfies Record<string, Endpoint>);

/** Tier order for entitlements: CUSTOM is entitled to what ENTERPRISE is. */
export const TIER_RANK: Record<Tier, number> = { FREE: 0, PROFESSIONAL: 1, ENTERPRISE: 2, CUSTOM: 2 };

/** Requests per sliding hour for each tier. */
export const TIER_HOURLY_LIMIT: Record<Tier, number> = {
  FREE: 100,
  PROFESSIONAL: 1000,
  ENTERPRISE: 50_000,
  CUSTOM: 50_000,
};

/** Public limits per client IP. */
export const PUBLIC_LIMITS = {
  public_scores: { limit: 120, windowSeconds: 60 },
  public_changelog: { limit: 120, windowSeconds: 60 },
  public_frameworks: { limit: 120, windowSeconds: 60 },
  score_request: { limit: 5, windowSeconds: 3600 },
  score_request_status: { limit: 120, windowSeconds: 60 },
  public_records: { limit: 120, windowSeconds: 60 },
} as const;
