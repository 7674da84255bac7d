import {
  type Deprecation,
  type Endpoint,
  ERROR_CODES,
  type ErrorCode,
  endpoints,
  MCP_FRAMEWORKS_URI,
  MCP_RESOURCE_TEMPLATES,
  MCP_TOOL_NAMES,
  MCP_TOOLS,
  OUTLOOKS,
  PUBLIC_LIMITS,
  RATING_ACTION_TYPES,
  TIER_HOURLY_LIMIT,
  TIERS,
  WATCH_DIRECTIONS,
} from '@svc/contracts';
import { EVIDENCE_REASONS, type Framework } from '@svc/methodology';

/** Who may call an endpoint and what it spends, in words. */
export function accessOf(e: Endpoint): string {
  if (e.tier) {
    const tier = e.tier === 'FREE' ? 'any tier' : `tier ${e.tier} or above`;
    return `API key, ${tier}; one request of the key's hourly limit`;
  }
  if (e.limit === 'none' || e.limit === 'key') return 'public';
  const l = PUBLIC_LIMITS[e.limit];
  return `public; ${l.limit} requests per ${l.windowSeconds === 60 ? 'minute' : 'hour'} per client IP`;
}

const per = (seconds: number) => (seconds === 60 ? 'minute' : seconds === 3600 ? 'hour' : `${seconds} s`);

/** Markdown text can carry the contracts' backticks as they are; only line breaks are flattened. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A deprecated endpoint's notice in its line: until when it answers, and what to use instead. */
function noticeOf(d: Deprecation | undefined): string {
  if (!d) return '';
  return ` Deprecated since ${d.announced}, sunset ${d.sunset}${d.replacement ? `: use ${oneLine(d.replacement)}` : ''}.`;
}

/**
 * The llms.txt of the service (https://llmstxt.org): a title, a one-line
 * summary, then sections of links and notes, generated from the endpoint
 * table, the limits, the error codes and the current framework definition.
 * `deprecated` holds the server's deprecated routes by operationId.
 */
export function llmsTxt(
  site: string,
  framework: Framework,
  deprecated: ReadonlyMap<string, Deprecation> = new Map(),
): string {
  const fw = framework.definition;
  const list = Object.values(endpoints) as Endpoint[];
  return [
    ...aboutLines(site, fw),
    ...apiLines(site, list, deprecated),
    ...interfacesLines(site),
    ...methodLines(site, fw),
  ].join('\n');
}

/** llms.txt: The title, the summary and the reference documents. */
function aboutLines(site: string, fw: Framework['definition']): string[] {
  return [
    '# Risk Indicator Scoring Service',
    '',
    `> Deterministic credit Risk Indicators (score 0-100, higher means lower risk, and a risk band) for digital-credit providers, computed under the published ${fw.name} (${fw.framework_version}) from approved inputs, with a computation package and a public verification page for every published indicator.`,
    '',
    'All responses are JSON unless noted. Keyed endpoints need the `x-api-key` header. Every published Risk Indicator has a verification identifier `risk_indicator_id` (`ri_` followed by 24 hex digits) and a human verification page at ' +
      `${site}/verify/{id}. The ratings page ${site}/ lists the current indicators for people (\`?planner_type=\`, \`?band=\`), and ${site}/providers/{id} shows a provider's indicator, rating actions and verification pages.`,
    '',
    '## Reference',
    '',
    `- [OpenAPI 3.1 document](${site}/openapi.json): every endpoint, parameter, schema and error response`,
    `- [Interactive API reference](${site}/docs): the OpenAPI document in Swagger UI`,
    `- [Error codes](${site}/docs/errors): every problem code with its status and meaning`,
    `- [JSON Schema of the approved-inputs document](${site}/schemas/approved-inputs.json) and [of the computation package](${site}/schemas/computation-package.json) (draft 2020-12)`,
    '',
  ];
}

/** llms.txt: The endpoints, authentication and limits, and rating actions. */
function apiLines(site: string, list: Endpoint[], deprecated: ReadonlyMap<string, Deprecation>): string[] {
  return [
    '## Endpoints',
    '',
    ...list.map(
      (e) =>
        `- [${e.method.toUpperCase()} ${e.path}](${site}/docs#/${e.tag}/${e.operationId}): ${oneLine(e.summary)}. Access: ${accessOf(e)}.${noticeOf(deprecated.get(e.operationId))}`,
    ),
    '',
    '## Authentication and limits',
    '',
    '- Send the key in the header `x-api-key: <API_KEY>`; treat it as an opaque string. Public endpoints need no key.',
    `- Tiers: ${TIERS.join(', ')}. A key without the endpoint's tier gets 403 \`insufficient_tier\` naming \`required_tier\`; a missing key 401 \`missing_api_key\`; an unknown, revoked or expired key 401 \`invalid_api_key\`.`,
    `- Hourly limits per key (sliding hour): ${TIERS.map((t) => `${t} ${TIER_HOURLY_LIMIT[t]}`).join(', ')}.`,
    `- Public limits per client IP: ${(Object.keys(PUBLIC_LIMITS) as (keyof typeof PUBLIC_LIMITS)[])
      .map((name) => {
        const l = PUBLIC_LIMITS[name];
        const paths = list.filter((e) => e.limit === name).map((e) => `${e.method.toUpperCase()} ${e.path}`);
        return `${paths.join(' and ')}: ${l.limit} per ${per(l.windowSeconds)}`;
      })
      .join('; ')}.`,
    '- Limited responses carry `RateLimit`, `RateLimit-Policy`, `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds); a spent limit answers 429 `rate_limited` with `Retry-After` in seconds.',
    '- Lists take `limit` (1 to 500, default 100) and `cursor` (the previous page\'s `next_cursor`); `next_cursor` is null on the last page and the next page is also linked in a `Link: <...>; rel="next"` header.',
    '- `GET /api/public/scores` lists every provider without parameters, or a page of them with `limit` or `cursor`; each answer has a strong `ETag`: send `If-None-Match` to get 304 when nothing changed.',
    "- As of a past instant: `as_of` on `GET /api/public/scores`, `GET /api/v1/scores`, `GET /api/v1/scores/{providerId}` and the tool `get_provider_score` answers with the indicators in force at that instant, exactly as they were published then. `as_of` is an RFC 3339 timestamp with an offset (`2026-06-30T10:00:00Z`) or a date `YYYY-MM-DD` meaning the end of that day UTC; a publication counts from its `published_at` to the millisecond, a withdrawal from its `withdrawn_at`. A provider with nothing in force then is a 404 on the detail and absent from the lists. Not a date or timestamp, before 2026-04-01 or in the future (today's date included, until the day ends): 400 naming `as_of`. A list's `next_cursor` holds its `as_of` and is refused with another one or without.",
    '',
    '## Rating actions, outlook and watch',
    '',
    `- Every change to a provider's rating is a typed rating action (\`ra_\` followed by 24 hex digits): ${RATING_ACTION_TYPES.map((t) => `\`${t}\``).join(', ')}. Publications make NEW (the first), UPGRADE (to a lower-risk band), DOWNGRADE, AFFIRM (band kept) and REINSTATE (the first after a withdrawal); a withdrawal makes WITHDRAW; WATCH_PLACED, WATCH_REMOVED and OUTLOOK_CHANGED are proposed by an analyst and take effect only when another person of the risk team approves them.`,
    `- \`GET ${site}/api/public/rating-actions\` lists them newest first (filters \`provider_id\`, \`type\`, \`since\`; paginated), \`/api/public/rating-actions.atom\` is the Atom form, and \`/api/public/rating-actions/{id}/statement\` the signed statement of each (Ed25519 over its RFC 8785 bytes, keys at ${site}/.well-known/svc-signing-keys.json). Webhook event: \`rating_action.created\`.`,
    `- Every indicator form (public list, keyed list and detail, history, search, agent tools, CSV export) carries \`outlook\` (${OUTLOOKS.join(', ')}; STABLE unless an approved action set another) and \`watch\`: null, or \`{direction, since, review_by}\` with direction ${WATCH_DIRECTIONS.join(', ')} (a rating under review). A publication does not end a watch. \`GET /api/v1/status\` counts the watches on and those past their \`review_by\`.`,
    '',
  ];
}

/** llms.txt: The agent tools, the errors and the compatibility promise. */
function interfacesLines(site: string): string[] {
  return [
    '## Agent tools (preview)',
    '',
    `- \`GET ${site}/api/mcp\` is the manifest: the tools with the JSON Schema of their inputs. \`POST /api/mcp\` with the key and \`{"tool_name": ..., "input": {...}}\` answers \`{"tool_name", "output"}\`, the output being what the matching REST endpoint serves; a JSON-RPC body is served as the Model Context Protocol (streamable HTTP, stateless). Not generally available: the operator enables it per workspace, else 403 \`mcp_not_enabled\`.`,
    ...MCP_TOOL_NAMES.map((name) => `- \`${name}\`: ${oneLine(MCP_TOOLS[name].description.split('. ')[0] ?? '')}.`),
    `- Resources to read (\`POST /api/mcp\` with \`{"resource_uri": ...}\`, or MCP \`resources/read\`): \`${MCP_FRAMEWORKS_URI}\` (the released frameworks) and ${MCP_RESOURCE_TEMPLATES.map((t) => `\`${t.uri_template}\` (${t.mime_type})`).join(', ')}: a released framework's canonical definition (its SHA-256 is \`framework_sha256\`) and its methodology specification as Markdown.`,
    '',
    '## Errors',
    '',
    `Errors are RFC 9457 problem details (\`application/problem+json\`): \`type\` (${site}/docs/errors#<code>), \`title\`, \`status\`, \`detail\`, \`instance\`, \`code\`, \`request_id\`, and \`errors: [{path, message}]\` for invalid values.`,
    'Free text (names, descriptions; a `message` may run over lines) holds no control characters, bidirectional overrides or line separators: such a value is a 400 naming its path and the character. Webhook URLs on port 0 or another port below 1024 other than 443 are refused.',
    '',
    ...(Object.keys(ERROR_CODES) as ErrorCode[]).map(
      (code) =>
        `- [${code}](${site}/docs/errors#${code}) (${ERROR_CODES[code].status}): ${oneLine(ERROR_CODES[code].about)}`,
    ),
    '',
    '## Compatibility',
    '',
    '- Within v1 answers only gain: new fields, new values in the sets documented as open (problem `code`, webhook event `type`, statement `type`, agent tool names), new endpoints and webhook events. Ignore fields and event types you do not know; act on the HTTP status when a problem `code` is new to you.',
    '- Nothing is renamed, removed or changes type or meaning; closed sets (risk bands, tiers, planner types, statuses) keep their values. Published DCRF v1.0 packages, hashes and texts never change.',
    '- A deprecated endpoint is marked `deprecated: true` in the OpenAPI document and answers with `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and `Link: <...>; rel="deprecation"`, at least six months before its sunset.',
    '',
  ];
}

/** llms.txt: The framework in force, the track record, and the optional links. */
function methodLines(site: string, fw: Framework['definition']): string[] {
  return [
    `## Methodology: ${fw.framework_version}`,
    '',
    `${fw.name} ${fw.version}, effective ${fw.effective_date}. The full definition (criteria, scales, rounding) and its \`framework_sha256\` are served by \`GET /api/v1/methodology\`; without a key, \`GET /api/public/frameworks/${fw.version}\` serves the definition's canonical bytes, whose SHA-256 is \`framework_sha256\`; the whole specification (every rule, text template, package member and hash, and a worked example) is the page [${site}/methodology](${site}/methodology).`,
    '- Track record, no key: `GET /api/public/statistics/transitions?from=DATE&to=DATE` is the band transition matrix of the providers rated at `from` against their band at `to` (default now) or WITHDRAWN, with counts, row shares and a summary (upgraded, downgraded, unchanged, withdrawn, rated since); `GET /api/public/statistics/bands?as_of=DATE` counts providers per band; `format=csv` for both.',
    '',
    `- Score: ${fw.score_range.min} to ${fw.score_range.max}, higher means lower risk; ${fw.criteria.length} criteria weighted to 100 in ${fw.modules.length} modules:`,
    ...fw.modules.map((m) => `  - ${m.id} ${m.label}: weight ${m.weight}`),
    `- Bands, from lowest risk: ${fw.bands.map((b, i) => `${b.band} (${i === fw.bands.length - 1 ? `below ${fw.bands[i - 1]?.min ?? b.min}` : `>= ${b.min}`})`).join(', ')}.`,
    '- Hard caps: when a condition holds, the score is capped:',
    ...fw.hard_caps.map((c) => `  - ${c.id} ${c.label}: ${c.condition_text} caps at ${c.cap}`),
    `- Confidence (0 to 1) reflects evidence freshness; a result is published only when confidence >= ${fw.publication.min_confidence}.`,
    `- Evidence ages: an input's freshness is 1 up to ${fw.freshness.full_until_days} days, falls linearly to ${fw.freshness.decay_until_days} days, then is ${fw.freshness.stale_factor}. \`GET /api/v1/scores/{providerId}/evidence-schedule?days=N\` (1 to 730, default 365) lists the dates within N days of today on which the indicator in force changes if no new evidence comes (\`reason_codes\`: ${EVIDENCE_REASONS.map((r) => `\`${r}\``).join(', ')}), each with \`final_score\`, \`risk_band\`, \`confidence\` and \`publishable\` as the engine scores the inputs on that date; \`first_band_change\` and \`not_publishable_from\` answer the early-warning question directly.`,
    '- Every published indicator has a computation package (`GET /api/v1/computation/{id}`, Enterprise) that `svc verify` recomputes byte for byte.',
    '',
    '## Optional',
    '',
    `- [Public change feed (Atom)](${site}/api/public/changelog.atom): the latest Risk Indicator changes`,
    `- [Rating actions (Atom)](${site}/api/public/rating-actions.atom): the latest rating actions`,
    `- [Platform status](${site}/api/v1/status): status, data freshness and framework version`,
    '',
  ];
}
