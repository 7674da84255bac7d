import { eachItem } from './pagination.js';
import type { RateLimitInfo } from './rate-limit.js';
import { type RetryOptions, retryPolicy } from './retry.js';
import { type Call, type QueryValue, type RequestOptions, Transport } from './transport.js';
import type {
  BandsParams,
  BandsResponse,
  ChangelogEntry,
  ChangelogParams,
  ChangelogResponse,
  Comparison,
  ComputationResult,
  CoverageRequestBody,
  CoverageRequestReceipt,
  CoverageRequestStatus,
  DeliveriesParams,
  DeliveriesResponse,
  EvidenceScheduleParams,
  EvidenceScheduleResponse,
  ExportParams,
  FrameworkDefinitionResult,
  FrameworksResponse,
  HistoryEntry,
  HistoryParams,
  Holding,
  IndicatorField,
  Issuance,
  IssuancesParams,
  IssuancesResponse,
  McpManifest,
  McpResourceReadResponse,
  McpToolArguments,
  McpToolName,
  McpToolResult,
  MemoParams,
  MethodologyParams,
  MethodologyResponse,
  PortfolioScore,
  ProviderSearchParams,
  ProviderSearchResponse,
  PublicScore,
  PublicScoresParams,
  PublicScoresResponse,
  RatingAction,
  RatingActionsParams,
  RatingActionsResponse,
  RiskIndicatorResponse,
  ScoreHistoryResponse,
  ScoreParams,
  ScoresPage,
  ScoresParams,
  SignedStatementResponse,
  SigningKeysResponse,
  StatusResponse,
  TransitionsParams,
  TransitionsResponse,
  Unpaged,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhooksListResponse,
  WhatIfInputs,
  WhatIfResponse,
} from './types.js';

export interface SvcClientOptions {
  /** Where the API is, e.g. `https://svc.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `x-api-key`. Public endpoints work without one. */
  apiKey?: string;
  /** A fetch to use instead of the global one (a proxy agent, instrumentation, a test double). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** How long one attempt may take, answer and body included, before it fails with a timeout. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries of 429, 503 and failed connections for GET and DELETE calls; `false` for none. */
  retry?: RetryOptions | false;
  /** A `user-agent` header. Leave unset in browsers, where it would need a CORS preflight the API does not allow. */
  userAgent?: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * A typed client for every endpoint of the Risk Indicator Scoring Service. Each method is one endpoint (named in
 * its comment with the tier it needs); the last argument of each is {@link RequestOptions}. Failures reject with
 * an `SvcApiError` (the service answered with an error) or an `SvcNetworkError` (no answer, or none in time).
 */
export class SvcClient {
  readonly #http: Transport;

  constructor(options: SvcClientOptions) {
    const baseUrl = new URL(options.baseUrl).href.replace(/\/+$/, '');
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new TypeError('timeoutMs must be a positive number');
    // Called as a plain function: a browser's fetch refuses to run with a `this` other than the window.
    const fetchOf = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
    this.#http = new Transport({
      baseUrl,
      apiKey: options.apiKey,
      fetch: (input, init) => fetchOf(input, init),
      timeoutMs,
      retry: retryPolicy(options.retry),
      userAgent: options.userAgent,
    });
  }

  /** The rate limit reported by the latest answer that reported one (null before any): limit, remaining, reset. */
  get lastRateLimit(): RateLimitInfo | null {
    return this.#http.lastRateLimit;
  }

  // ---- public ----

  /**
   * GET /api/public/scores: headline score and band of every provider, or with `limit` or `cursor` one page of
   * them in name order (`next_cursor` then set). With `as_of` (an RFC 3339 timestamp, or a date meaning the end of
   * that day UTC), the headlines in force at that instant; a page's cursor goes with the same `as_of`. No key needed.
   */
  publicScores(params: PublicScoresParams = {}, options?: RequestOptions): Promise<PublicScoresResponse> {
    return this.#http.json(get('/api/public/scores', params), options);
  }

  /** Every provider's headline (as of `as_of`, if given), page by page (`limit` per request, default 100). No key. */
  iterPublicScores(params: Unpaged<PublicScoresParams> = {}, options?: RequestOptions): AsyncIterable<PublicScore> {
    return eachItem((cursor) =>
      this.publicScores({ ...params, limit: params.limit ?? 100, ...(cursor ? { cursor } : {}) }, options),
    );
  }

  /** GET /api/public/changelog: one page of the change feed, newest first. No key needed. */
  changelog(params: ChangelogParams = {}, options?: RequestOptions): Promise<ChangelogResponse> {
    return this.#http.json(get('/api/public/changelog', params), options);
  }

  /** Every entry of the change feed (from `since`, if given), page after page. */
  iterChangelog(params: Unpaged<ChangelogParams> = {}, options?: RequestOptions): AsyncGenerator<ChangelogEntry> {
    return eachItem((cursor) => this.changelog({ ...params, cursor }, options));
  }

  /** GET /api/public/changelog.atom: the latest 100 changes as an Atom feed (XML text). No key needed. */
  changelogAtom(options?: RequestOptions): Promise<string> {
    return this.#http.text(get('/api/public/changelog.atom'), options);
  }

  /**
   * GET /api/public/rating-actions: one page of rating actions, newest first, optionally one provider's, one type's,
   * since a date or time. No key needed.
   */
  ratingActions(params: RatingActionsParams = {}, options?: RequestOptions): Promise<RatingActionsResponse> {
    return this.#http.json(get('/api/public/rating-actions', params), options);
  }

  /** Every rating action (with the filters given), page after page. */
  iterRatingActions(params: Unpaged<RatingActionsParams> = {}, options?: RequestOptions): AsyncGenerator<RatingAction> {
    return eachItem((cursor) => this.ratingActions({ ...params, cursor }, options));
  }

  /** GET /api/public/rating-actions.atom: the latest 100 rating actions as an Atom feed (XML text). No key needed. */
  ratingActionsAtom(options?: RequestOptions): Promise<string> {
    return this.#http.text(get('/api/public/rating-actions.atom'), options);
  }

  /** GET /api/public/rating-actions/{ratingActionId}/statement: a rating action's signed statement. No key needed. */
  ratingActionStatement(ratingActionId: string, options?: RequestOptions): Promise<SignedStatementResponse> {
    return this.#http.json(get(path`/api/public/rating-actions/${ratingActionId}/statement`), options);
  }

  /**
   * POST /api/public/score-request: ask for a provider to be covered. No key needed; 5 per hour per client IP. The
   * same request again within 24 hours answers the same `request_id` (and its status now) without spending that.
   */
  requestScore(body: CoverageRequestBody, options?: RequestOptions): Promise<CoverageRequestReceipt> {
    return this.#http.json(post('/api/public/score-request', body), options);
  }

  /** GET /api/public/score-request/{requestId}: what became of a coverage request (status and note). No key. */
  scoreRequestStatus(requestId: string, options?: RequestOptions): Promise<CoverageRequestStatus> {
    return this.#http.json(get(path`/api/public/score-request/${requestId}`), options);
  }

  /**
   * GET /api/public/publications/{riskIndicatorId}: the signed statement of a publication (Ed25519 over its RFC 8785
   * bytes, key `kid` of signingKeys()). No key needed.
   */
  publicationStatement(riskIndicatorId: string, options?: RequestOptions): Promise<SignedStatementResponse> {
    return this.#http.json(get(path`/api/public/publications/${riskIndicatorId}`), options);
  }

  /**
   * GET /api/public/statements/{statementSha256}: any signed statement (a publication's, a withdrawal's, a rating
   * action's) by the SHA-256 of its RFC 8785 bytes, e.g. a statement's `prev_statement_sha256`. No key needed.
   */
  statement(statementSha256: string, options?: RequestOptions): Promise<SignedStatementResponse> {
    return this.#http.json(get(path`/api/public/statements/${statementSha256}`), options);
  }

  /** GET /.well-known/svc-signing-keys.json: the public keys statements are signed with (a JWKS). No key needed. */
  signingKeys(options?: RequestOptions): Promise<SigningKeysResponse> {
    return this.#http.json(get('/.well-known/svc-signing-keys.json'), options);
  }

  /**
   * GET /api/public/statistics/transitions: the band transition matrix of the providers rated at `from` against
   * their band at `to` (the present when left out) or WITHDRAWN, with counts, row shares and a summary. No key.
   */
  transitions(params: TransitionsParams, options?: RequestOptions): Promise<TransitionsResponse> {
    return this.#http.json(get('/api/public/statistics/transitions', params), options);
  }

  /** The transition matrix as CSV text (`format=csv`): one row per band, counts then shares to 4 places. No key. */
  transitionsCsv(params: TransitionsParams, options?: RequestOptions): Promise<string> {
    return this.#http.text(get('/api/public/statistics/transitions', { ...params, format: 'csv' }), options);
  }

  /** GET /api/public/statistics/bands: providers per band at `as_of` (the present when left out). No key. */
  bandCounts(params: BandsParams = {}, options?: RequestOptions): Promise<BandsResponse> {
    return this.#http.json(get('/api/public/statistics/bands', params), options);
  }

  /** The band counts as CSV text (`format=csv`). No key. */
  bandCountsCsv(params: BandsParams = {}, options?: RequestOptions): Promise<string> {
    return this.#http.text(get('/api/public/statistics/bands', { ...params, format: 'csv' }), options);
  }

  /** GET /api/public/frameworks: every released framework with its `framework_sha256` and sign-off. No key. */
  frameworks(options?: RequestOptions): Promise<FrameworksResponse> {
    return this.#http.json(get('/api/public/frameworks'), options);
  }

  /**
   * GET /api/public/frameworks/{version}: a released framework's definition, parsed, and its exact text: the
   * canonical bytes whose SHA-256 is the `framework_sha256` packages name. No key.
   */
  async framework(version: string, options?: RequestOptions): Promise<FrameworkDefinitionResult> {
    const { value, text } = await this.#http.jsonWithText<FrameworkDefinitionResult['definition']>(
      get(path`/api/public/frameworks/${version}`),
      options,
    );
    return { definition: value, text };
  }

  /** GET /api/v1/status: platform status, data freshness and framework version. No key needed. */
  status(options?: RequestOptions): Promise<StatusResponse> {
    return this.#http.json(get('/api/v1/status'), options);
  }

  // ---- scores (PROFESSIONAL) ----

  /**
   * GET /api/v1/scores (PROFESSIONAL): one page of current Risk Indicators, by name; with `as_of`, those in force at
   * that instant, as published then (a page's cursor goes with the same `as_of`).
   */
  scores<F extends IndicatorField = IndicatorField>(
    params: ScoresParams<F> = {},
    options?: RequestOptions,
  ): Promise<ScoresPage<F>> {
    return this.#http.json(get('/api/v1/scores', withFields(params)), options);
  }

  /**
   * Every current Risk Indicator (or every one in force at `as_of`), page after page (`limit`: the page size); with
   * `fields`, only those fields of each.
   */
  iterScores<F extends IndicatorField = IndicatorField>(
    params: Unpaged<ScoresParams<F>> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Pick<RiskIndicatorResponse, F>> {
    return eachItem((cursor) => this.scores<F>({ ...params, cursor }, options));
  }

  /**
   * GET /api/v1/scores/{providerId} (PROFESSIONAL): a provider's current Risk Indicator; with `{ as_of }` (an RFC
   * 3339 timestamp, or a date meaning the end of that day UTC), the one in force at that instant, as published then
   * (404 `not_found` when none was); with `{ fields }`, only those top-level fields. `score(id, options)` without
   * params still works.
   */
  score(providerId: string, options?: RequestOptions): Promise<RiskIndicatorResponse>;
  score<F extends IndicatorField = IndicatorField>(
    providerId: string,
    params: ScoreParams<F>,
    options?: RequestOptions,
  ): Promise<Pick<RiskIndicatorResponse, F>>;
  score(
    providerId: string,
    paramsOrOptions?: ScoreParams | RequestOptions,
    options?: RequestOptions,
  ): Promise<Partial<RiskIndicatorResponse>> {
    // The second argument was the request options before `as_of`: it is the params when it names one, or a third is given.
    const isParams =
      paramsOrOptions !== undefined &&
      ('as_of' in paramsOrOptions || 'fields' in paramsOrOptions || options !== undefined);
    const params = isParams ? (paramsOrOptions as ScoreParams) : {};
    return this.#http.json(
      get(path`/api/v1/scores/${providerId}`, withFields(params)),
      isParams ? options : (paramsOrOptions as RequestOptions | undefined),
    );
  }

  /**
   * GET /api/v1/scores/{providerId}/history (PROFESSIONAL): one page of the history, newest first: published
   * indicators (`entry_type: "publication"`), and withdrawals as entries of their own (`entry_type: "withdrawal"`;
   * see `isWithdrawal`).
   */
  history(providerId: string, params: HistoryParams = {}, options?: RequestOptions): Promise<ScoreHistoryResponse> {
    return this.#http.json(get(path`/api/v1/scores/${providerId}/history`, params), options);
  }

  /** Every entry of a provider's history (publications and withdrawals), newest first, page after page. */
  iterHistory(
    providerId: string,
    params: Unpaged<HistoryParams> = {},
    options?: RequestOptions,
  ): AsyncGenerator<HistoryEntry> {
    return eachItem((cursor) => this.history(providerId, { ...params, cursor }, options));
  }

  /** GET /api/v1/methodology (PROFESSIONAL): the framework as published data; `version` for an earlier one. */
  methodology(params: MethodologyParams = {}, options?: RequestOptions): Promise<MethodologyResponse> {
    return this.#http.json(get('/api/v1/methodology', params), options);
  }

  /**
   * GET /api/v1/computation/{id} (ENTERPRISE): the computation package of a published indicator, parsed, and its
   * exact text: the stored canonical bytes, to hash or verify (`svc verify`) byte for byte.
   */
  async computation(id: string, options?: RequestOptions): Promise<ComputationResult> {
    const { value, text } = await this.#http.jsonWithText<ComputationResult['package']>(
      get(path`/api/v1/computation/${id}`),
      options,
    );
    return { package: value, text };
  }

  // ---- issuances (FREE) ----

  /** GET /api/v1/issuances (FREE): one page of upcoming issuances, newest first. */
  issuances(params: IssuancesParams = {}, options?: RequestOptions): Promise<IssuancesResponse> {
    return this.#http.json(get('/api/v1/issuances', params), options);
  }

  /** Every issuance (of a `status` and `type`, if given), page after page. */
  iterIssuances(params: Unpaged<IssuancesParams> = {}, options?: RequestOptions): AsyncGenerator<Issuance> {
    return eachItem((cursor) => this.issuances({ ...params, cursor }, options));
  }

  // ---- webhooks (PROFESSIONAL) ----

  /** POST /api/v1/webhooks (PROFESSIONAL): register an https endpoint for some events. */
  createWebhook(body: WebhookCreateBody, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.#http.json(post('/api/v1/webhooks', body), options);
  }

  /** GET /api/v1/webhooks (PROFESSIONAL): the workspace's endpoints, oldest first. */
  listWebhooks(options?: RequestOptions): Promise<WebhooksListResponse> {
    return this.#http.json(get('/api/v1/webhooks'), options);
  }

  /** DELETE /api/v1/webhooks/{webhookId} (PROFESSIONAL): remove an endpoint and cancel its pending deliveries. */
  async deleteWebhook(webhookId: string, options?: RequestOptions): Promise<void> {
    await this.#http.text({ method: 'DELETE', path: path`/api/v1/webhooks/${webhookId}` }, options);
  }

  /** GET /api/v1/webhooks/{webhookId}/deliveries (PROFESSIONAL): one page of the delivery log, newest first. */
  deliveries(webhookId: string, params: DeliveriesParams = {}, options?: RequestOptions): Promise<DeliveriesResponse> {
    return this.#http.json(get(path`/api/v1/webhooks/${webhookId}/deliveries`, params), options);
  }

  /** Every delivery of an endpoint (of a `status`, if given), newest first, page after page. */
  iterDeliveries(
    webhookId: string,
    params: Unpaged<DeliveriesParams> = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookDelivery> {
    return eachItem((cursor) => this.deliveries(webhookId, { ...params, cursor }, options));
  }

  /** POST …/deliveries/{deliveryId}/redeliver (PROFESSIONAL): send a delivery's event again, as a new delivery. */
  redeliver(webhookId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.#http.json(
      { method: 'POST', path: path`/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver` },
      options,
    );
  }

  /** POST /api/v1/webhooks/{webhookId}/test (PROFESSIONAL): queue a signed `ping` event for this endpoint. */
  testWebhook(webhookId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.#http.json({ method: 'POST', path: path`/api/v1/webhooks/${webhookId}/test` }, options);
  }

  // ---- analysis (PROFESSIONAL) ----

  /** GET /api/v1/providers/search (PROFESSIONAL): providers whose name matches `q`, best match first. */
  searchProviders(params: ProviderSearchParams, options?: RequestOptions): Promise<ProviderSearchResponse> {
    return this.#http.json(get('/api/v1/providers/search', params), options);
  }

  /** GET /api/v1/scores/compare (PROFESSIONAL): 2 to 10 providers side by side. */
  compare(providerIds: readonly string[], options?: RequestOptions): Promise<Comparison> {
    return this.#http.json(get('/api/v1/scores/compare', { ids: providerIds.join(',') }), options);
  }

  /** POST /api/v1/portfolio/score (PROFESSIONAL): the amount-weighted score, weakest holdings and concentration. */
  portfolio(holdings: readonly Holding[], options?: RequestOptions): Promise<PortfolioScore> {
    return this.#http.json(post('/api/v1/portfolio/score', { holdings }), options);
  }

  /** POST /api/v1/portfolio/memo (PROFESSIONAL): a credit memo of a portfolio, as Markdown (default) or HTML. */
  portfolioMemo(holdings: readonly Holding[], params: MemoParams = {}, options?: RequestOptions): Promise<string> {
    return this.#http.text(post('/api/v1/portfolio/memo', { holdings }, params), options);
  }

  /** POST /api/v1/scores/{providerId}/what-if (PROFESSIONAL): the indicator recomputed with some inputs changed. */
  whatIf(providerId: string, inputs: WhatIfInputs, options?: RequestOptions): Promise<WhatIfResponse> {
    return this.#http.json(post(path`/api/v1/scores/${providerId}/what-if`, { inputs }), options);
  }

  /** GET /api/v1/scores/{providerId}/memo (PROFESSIONAL): a credit memo of the current indicator. */
  memo(providerId: string, params: MemoParams = {}, options?: RequestOptions): Promise<string> {
    return this.#http.text(get(path`/api/v1/scores/${providerId}/memo`, params), options);
  }

  /**
   * GET /api/v1/scores/{providerId}/evidence-schedule (PROFESSIONAL): the dates within `days` (1 to 730, default 365)
   * of today on which the indicator in force changes if no new evidence comes, each with its figures then.
   */
  evidenceSchedule(
    providerId: string,
    params: EvidenceScheduleParams = {},
    options?: RequestOptions,
  ): Promise<EvidenceScheduleResponse> {
    return this.#http.json(get(path`/api/v1/scores/${providerId}/evidence-schedule`, params), options);
  }

  /** GET /api/v1/scores/export.csv (PROFESSIONAL): every current indicator as RFC 4180 CSV text. */
  exportCsv(params: ExportParams = {}, options?: RequestOptions): Promise<string> {
    return this.#http.text(get('/api/v1/scores/export.csv', params), options);
  }

  // ---- agent tools (preview) ----

  /** GET /api/mcp: the agent tools with the JSON Schema of their inputs, and whether this server answers calls. */
  mcpManifest(options?: RequestOptions): Promise<McpManifest> {
    return this.#http.json(get('/api/mcp'), options);
  }

  /**
   * POST /api/mcp (PROFESSIONAL, preview): a plain call of one agent tool; resolves to the tool's output. The server
   * and the key's workspace must both have the tools enabled, else 403 `mcp_not_enabled`. (MCP clients speak
   * JSON-RPC to the same URL themselves.)
   */
  async callMcpTool<N extends McpToolName>(
    toolName: N,
    input: McpToolArguments<N>,
    options?: RequestOptions,
  ): Promise<McpToolResult<N>> {
    const answer = await this.#http.json<{ output: McpToolResult<N> }>(
      post('/api/mcp', { tool_name: toolName, input }),
      options,
    );
    return answer.output;
  }

  /**
   * POST /api/mcp (PROFESSIONAL, preview): a plain read of one resource the manifest lists (`svc://frameworks`,
   * `svc://frameworks/{version}`, `svc://methodology/{version}`): its media type, the SHA-256 of its bytes and its
   * text. Gated as callMcpTool is; an unknown resource is 404 `not_found`.
   */
  readMcpResource(uri: string, options?: RequestOptions): Promise<McpResourceReadResponse> {
    return this.#http.json(post('/api/mcp', { resource_uri: uri }), options);
  }
}

type Query = { [name: string]: QueryValue };

/** A query's `fields` as the API reads it: the names, comma-separated. */
function withFields<P extends { fields?: readonly string[] | undefined }>(params: P): Query {
  const { fields, ...rest } = params;
  return { ...(rest as Query), fields: fields?.join(',') };
}

function get(route: string, query?: Query): Call {
  return { method: 'GET', path: route, query };
}

function post(route: string, body: unknown, query?: Query): Call {
  return { method: 'POST', path: route, body, query };
}

/** A path with every interpolated parameter percent-encoded, so an id can never reach another route. */
function path(strings: TemplateStringsArray, ...params: string[]): string {
  return strings.reduce((out, text, i) => out + encodeURIComponent(params[i - 1] ?? '') + text);
}
