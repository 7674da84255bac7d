import type {
  BandsQuery,
  ChangelogQuery,
  ChangelogResponseSchema,
  ComputationPackageSchema,
  DeliveriesQuery,
  DeliveriesResponseSchema,
  EvidenceScheduleQuerySchema,
  ExportQuerySchema,
  FrameworksResponseSchema,
  HistoryQuerySchema,
  IssuancesQuery,
  IssuancesResponseSchema,
  MCP_TOOLS,
  McpToolName,
  MemoQuerySchema,
  MethodologyQuerySchema,
  MethodologyResponse,
  PortfolioBody,
  ProviderSearchQuery,
  ProviderSearchResponseSchema,
  PublicScoresQuerySchema,
  RatingActionsQuery,
  ScoreHistoryResponse,
  ScoreQuery,
  ScoresQuery,
  TransitionsQuery,
  WebhooksListResponseSchema,
  WhatIfBody,
} from '@svc/contracts';

/**
 * The types of what the client sends and receives, all from the contracts' zod schemas (type-only imports, so
 * nothing of zod is bundled). What the contracts export as a type is used as is; the rest is read off the schema.
 */

/** What a zod schema parses to; the same as `z.infer`, without a type dependency on zod itself. */
type Parsed<S> = S extends { _zod: { output: infer O } } ? O : never;
/** What a zod schema accepts (defaults still optional); the same as `z.input`. */
type Accepted<S> = S extends { _zod: { input: infer I } } ? I : never;

export type {
  BandsResponse,
  ChangelogEntry,
  Comparison,
  CoverageRequestBody,
  CoverageRequestReceipt,
  CoverageRequestStatus,
  ErrorCode,
  EvidenceReason,
  EvidenceScheduleResponse,
  FieldProblem,
  FrameworkReleaseEntry,
  FreshnessPolicy,
  HistoryPublication,
  HistoryWithdrawal,
  Issuance,
  McpManifest,
  McpResourceReadResponse,
  McpToolName,
  MethodologyResponse,
  PlannerType,
  PortfolioScore,
  Problem,
  ProviderMatch,
  PublicScore,
  PublicScoresResponse,
  RatingAction,
  RatingActionsQuery,
  RatingActionsResponse,
  RiskBand,
  RiskIndicatorResponse,
  ScoreHistoryResponse,
  ScoresListResponse,
  SignedStatementResponse,
  SigningKeysResponse,
  StatusResponse,
  Tier,
  TransitionsResponse,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookEndpoint,
  WhatIfResponse,
} from '@svc/contracts';

/**
 * One entry of a provider's history, named by `entry_type`: a published indicator (`"publication"`) or a withdrawal
 * (`"withdrawal"`).
 */
export type HistoryEntry = ScoreHistoryResponse['data'][number];

// ---- queries: what the caller may set (every field optional unless the endpoint needs it) ----

import type { RiskIndicatorResponse, ScoresListResponse } from '@svc/contracts';

/** A top-level field of the Risk Indicator form, as `fields` names it. */
export type IndicatorField = keyof RiskIndicatorResponse & string;

/**
 * `fields`: only these top-level fields of each indicator (sent comma-separated; the answer keeps the order of the full
 * form). The answer's type is then the indicator form picked to them.
 */
interface FieldsParam<F extends IndicatorField> {
  fields?: readonly F[] | undefined;
}

export type ScoresParams<F extends IndicatorField = IndicatorField> = Partial<Omit<ScoresQuery, 'fields'>> &
  FieldsParam<F>;
/** A provider's indicator: `as_of` asks for the one in force at that instant instead of the current one. */
export type ScoreParams<F extends IndicatorField = IndicatorField> = Partial<Omit<ScoreQuery, 'fields'>> &
  FieldsParam<F>;
/** A page of indicators with only the fields asked for. */
export type ScoresPage<F extends IndicatorField> = Omit<ScoresListResponse, 'data'> & {
  data: Pick<RiskIndicatorResponse, F>[];
};
export type PublicScoresParams = Partial<Parsed<typeof PublicScoresQuerySchema>>;
export type HistoryParams = Partial<Parsed<typeof HistoryQuerySchema>>;
export type MethodologyParams = Parsed<typeof MethodologyQuerySchema>;
export type IssuancesParams = Partial<IssuancesQuery>;
export type ChangelogParams = Partial<ChangelogQuery>;
export type RatingActionsParams = Partial<RatingActionsQuery>;
export type DeliveriesParams = Partial<DeliveriesQuery>;
export type ProviderSearchParams = Pick<ProviderSearchQuery, 'q'> & Partial<Omit<ProviderSearchQuery, 'q'>>;
export type MemoParams = Partial<Parsed<typeof MemoQuerySchema>>;
export type EvidenceScheduleParams = Partial<Parsed<typeof EvidenceScheduleQuerySchema>>;
export type ExportParams = Parsed<typeof ExportQuerySchema>;
/** The transition matrix's instants: `from`, and `to` (the present when left out). */
export type TransitionsParams = Omit<TransitionsQuery, 'format'>;
/** The band counts' instant: `as_of` (the present when left out). */
export type BandsParams = Partial<Omit<BandsQuery, 'format'>>;

/** An iteration's query: a page size perhaps, but no cursor (the iteration follows `next_cursor` itself). */
export type Unpaged<P> = Omit<P, 'cursor'>;

// ---- bodies ----

export type Holding = PortfolioBody['holdings'][number];
export type WhatIfInputs = WhatIfBody['inputs'];

/** The input of an agent tool, as the caller may write it (fields with a default are optional). */
export type McpToolArguments<N extends McpToolName> = Accepted<(typeof MCP_TOOLS)[N]['input']>;
/** The output of an agent tool: the JSON its REST endpoint serves (or, for a name, the candidates when ambiguous). */
export type McpToolResult<N extends McpToolName> = Parsed<(typeof MCP_TOOLS)[N]['output']>;

// ---- responses the contracts export only as schemas ----

export type ComputationPackage = Parsed<typeof ComputationPackageSchema>;
export type IssuancesResponse = Parsed<typeof IssuancesResponseSchema>;
export type FrameworksResponse = Parsed<typeof FrameworksResponseSchema>;
export type ChangelogResponse = Parsed<typeof ChangelogResponseSchema>;
export type WebhooksListResponse = Parsed<typeof WebhooksListResponseSchema>;
export type DeliveriesResponse = Parsed<typeof DeliveriesResponseSchema>;
export type ProviderSearchResponse = Parsed<typeof ProviderSearchResponseSchema>;

/** A framework definition as parsed, and its exact text: the canonical bytes whose SHA-256 is `framework_sha256`. */
export interface FrameworkDefinitionResult {
  definition: MethodologyResponse['definition'];
  text: string;
}

/** A computation package as parsed, and its exact text: the canonical bytes an auditor hashes and verifies. */
export interface ComputationResult {
  package: ComputationPackage;
  text: string;
}
