import { z } from 'zod';
import { ComparisonSchema, ProviderSearchResponseSchema } from './analysis.js';
import { AsOfSchema, PageQuery, PlannerTypeSchema, RiskBandSchema, UuidSchema } from './common.js';
import { RATING_ACTION_TYPES, RatingActionsResponseSchema } from './rating-actions.js';
import { MethodologyResponseSchema, SinceSchema } from './resources.js';
import { RiskIndicatorSchema, ScoreHistoryResponseSchema } from './scores.js';

/** The agent tool interface (preview): six tools, served plain at POST /api/mcp and over the Model Context Protocol. */

export const MCP_SERVER_INFO = { name: 'risk-indicator-scoring-service', version: '1.0.0' } as const;

/** The most JSON-RPC messages one POST may carry. */
export const MCP_MAX_BATCH = 20;

// ---- inputs ----

const ProviderNameSchema = z
  .string()
  .trim()
  .min(1, 'must be 1 to 200 characters')
  .max(200, 'must be 1 to 200 characters')
  .meta({
    description:
      'A provider name as published, or part of one (case and accents are ignored), or a provider id from a candidate list.',
  });

export const GetProviderScoreInputSchema = z.strictObject({
  provider_name: ProviderNameSchema,
  as_of: AsOfSchema.optional().meta({
    description:
      'The indicator in force at that instant, as it was published then, instead of the current one: an RFC 3339 ' +
      'timestamp, or a date YYYY-MM-DD meaning the end of that day UTC; not before 2026-04-01, not in the future. ' +
      'The name is then matched among the providers with an indicator in force at that instant.',
  }),
});

export const CompareProvidersInputSchema = z.strictObject({
  provider_names: z
    .array(ProviderNameSchema)
    .min(2, 'must name 2 to 10 providers')
    .max(10, 'must name 2 to 10 providers')
    .meta({ description: '2 to 10 providers, each resolved as `provider_name` is in get_provider_score.' }),
});

export const GetScoreHistoryInputSchema = z.strictObject({
  provider_name: ProviderNameSchema,
  limit: z
    .number()
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(10)
    .meta({ description: 'How many publications, newest first: 1 to 100, default 10.' }),
  cursor: PageQuery.cursor,
});

export const SearchProvidersInputSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'must be 1 to 100 characters')
    .max(100, 'must be 1 to 100 characters')
    .meta({ description: 'Part of a provider name; case and accents are ignored.' }),
  // A fresh enum, not the shared one: its registry id would turn into a $ref the manifest's readers must chase.
  planner_type: z.enum(PlannerTypeSchema.options).optional().meta({ description: 'Only providers of this type.' }),
});

export const GetMethodologyInputSchema = z.strictObject({
  version: z
    .string()
    .trim()
    .min(1, 'must be 1 to 32 characters')
    .max(32, 'must be 1 to 32 characters')
    .optional()
    .meta({ description: 'A framework version such as `1.0`; the one in force when absent.' }),
});

export const GetRatingActionsInputSchema = z.strictObject({
  provider_name: ProviderNameSchema.optional().meta({
    description:
      "Only this provider's actions: a name resolved as in get_provider_score (a provider with a published Risk " +
      'Indicator), or a provider id from a candidate list; every provider when absent.',
  }),
  // A fresh enum, not the shared one: its registry id would turn into a $ref the manifest's readers must chase.
  type: z
    .enum(RATING_ACTION_TYPES)
    .optional()
    .meta({ description: `Only actions of this type: ${RATING_ACTION_TYPES.join(', ')}.` }),
  since: SinceSchema.optional().meta({
    description:
      'Only actions effective at or after this instant: a date YYYY-MM-DD (its first instant, UTC) or a UTC ' +
      'timestamp such as 2026-06-01T12:00:00Z.',
  }),
  limit: z
    .number()
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(20)
    .meta({ description: 'How many actions, newest first: 1 to 100, default 20.' }),
  cursor: PageQuery.cursor,
});

// ---- outputs ----

export const ProviderCandidateSchema = z.object({
  id: UuidSchema,
  name: z.string(),
  final_score: z.number(),
  risk_band: RiskBandSchema,
});

/** The answer when a name matches several providers: no score, the candidates to ask the user about. */
export const ProviderAmbiguitySchema = z
  .object({
    status: z.literal('ambiguous'),
    detail: z.string(),
    names: z.array(
      z.object({
        provider_name: z.string(),
        candidates: z
          .array(ProviderCandidateSchema)
          .meta({ description: 'The best matches, at most 10, best first (as search_providers orders them).' }),
        total: z.number().int().meta({ description: 'How many providers the name matches.' }),
      }),
    ),
  })
  .meta({ id: 'McpProviderAmbiguity' });

export const MCP_TOOLS = {
  get_provider_score: {
    description:
      "A provider's current Risk Indicator: final score (0 to 100, higher means lower risk), risk band, confidence, " +
      'criterion scores, decision object and commentary, as GET /api/v1/scores/{providerId} serves it. ' +
      '`provider_name` is matched as the provider search matches (case and accents ignored): the exact name wins, ' +
      'else a single match; when several providers match, the answer is `status: "ambiguous"` with the candidates ' +
      '(id, name, score, band) and no score, so ask which one was meant and call again with its name or id. ' +
      'With `as_of` (a date or timestamp), the indicator that was in force at that instant, as published then.',
    input: GetProviderScoreInputSchema,
    output: z.union([RiskIndicatorSchema, ProviderAmbiguitySchema]),
  },
  compare_providers: {
    description:
      '2 to 10 providers side by side: their indicators, points per criterion and module, and the spread and leader ' +
      'of each, as GET /api/v1/scores/compare serves it. Each name is resolved as in get_provider_score; ambiguous ' +
      'names are answered with their candidates instead.',
    input: CompareProvidersInputSchema,
    output: z.union([ComparisonSchema, ProviderAmbiguitySchema]),
  },
  get_score_history: {
    description:
      'A provider\'s published Risk Indicators (entries with `entry_type: "publication"`) and withdrawals (`entry_type: "withdrawal"`), newest first, as GET /api/v1/scores/{providerId}/history serves them ' +
      '(`limit` 1 to 100, default 10; pass `next_cursor` back as `cursor` for older ones). The name is resolved as ' +
      'in get_provider_score.',
    input: GetScoreHistoryInputSchema,
    output: z.union([ScoreHistoryResponseSchema, ProviderAmbiguitySchema]),
  },
  search_providers: {
    description:
      'Providers with a published Risk Indicator whose name contains the query (case and accents ignored): the ' +
      'whole name first, then names starting with it, a word starting with it, anywhere; at most 20, with score ' +
      'and band, as GET /api/v1/providers/search serves them.',
    input: SearchProvidersInputSchema,
    output: ProviderSearchResponseSchema,
  },
  get_methodology: {
    description:
      'The methodology framework as published data (version, effective date, sign-off, modules, criteria with ' +
      'weights and scales, caps, bands, rounding, framework_sha256), as GET /api/v1/methodology serves it; the ' +
      'framework in force unless `version` names another.',
    input: GetMethodologyInputSchema,
    output: MethodologyResponseSchema,
  },
  get_rating_actions: {
    description:
      'Rating actions, newest first, as GET /api/public/rating-actions serves them. A rating action is a signed ' +
      'statement that a rating changed or was confirmed: NEW (first publication), UPGRADE (to a lower-risk band), ' +
      'DOWNGRADE, AFFIRM (re-published in the same band), WITHDRAW, REINSTATE (published again after a ' +
      "withdrawal), and the risk team's WATCH_PLACED, WATCH_REMOVED and OUTLOOK_CHANGED; each carries the bands and " +
      'scores before and after, the outlook and watch in force after it, its rationale, when it took effect and its ' +
      'signature. Filter by `provider_name` (resolved as in get_provider_score: an ambiguous name is answered with ' +
      'its candidates instead; a provider withdrawn now is not found by name, but its actions are in the unfiltered list ' +
      'and under `type: "WITHDRAW"`), `type` and `since` (a date or UTC timestamp). `limit` 1 to 100, default 20; when ' +
      '`next_cursor` is not null, pass it back as `cursor` with the same filters for older actions.',
    input: GetRatingActionsInputSchema,
    output: z.union([RatingActionsResponseSchema, ProviderAmbiguitySchema]),
  },
} as const;

export type McpToolName = keyof typeof MCP_TOOLS;
export const MCP_TOOL_NAMES = Object.keys(MCP_TOOLS) as [McpToolName, ...McpToolName[]];
export type McpToolInput<N extends McpToolName> = z.output<(typeof MCP_TOOLS)[N]['input']>;
export type McpToolOutput<N extends McpToolName> = z.output<(typeof MCP_TOOLS)[N]['output']>;

/** A tool's input as JSON Schema: what the manifest and MCP's tools/list publish, from the schema calls are checked with. */
export function mcpInputJsonSchema(name: McpToolName): Record<string, unknown> {
  return z.toJSONSchema(MCP_TOOLS[name].input, { io: 'input' }) as Record<string, unknown>;
}

// ---- the plain call ----

const callOf = <N extends McpToolName>(name: N) =>
  z.strictObject({ tool_name: z.literal(name), input: MCP_TOOLS[name].input });

export const McpToolCallBodySchema = z
  .discriminatedUnion('tool_name', [
    callOf('get_provider_score'),
    callOf('compare_providers'),
    callOf('get_score_history'),
    callOf('search_providers'),
    callOf('get_methodology'),
    callOf('get_rating_actions'),
  ])
  .meta({ id: 'McpToolCall', description: 'A plain tool call: the tool and its input.' });

const answerOf = <N extends McpToolName>(name: N) =>
  z.object({ tool_name: z.literal(name), output: MCP_TOOLS[name].output });

export const McpToolCallResponseSchema = z
  .discriminatedUnion('tool_name', [
    answerOf('get_provider_score'),
    answerOf('compare_providers'),
    answerOf('get_score_history'),
    answerOf('search_providers'),
    answerOf('get_methodology'),
    answerOf('get_rating_actions'),
  ])
  .meta({ id: 'McpToolCallResponse', description: "The tool's output: the JSON its REST endpoint serves." });

/** Any tool call before the tool is known: the name must be a tool's, the input an object. */
const McpToolCallEnvelopeSchema = z.strictObject({
  tool_name: z.enum(MCP_TOOL_NAMES),
  input: z.record(z.string(), z.unknown()),
});

// ---- resources: the methodology and the framework definitions ----

/**
 * The documents an agent may read rather than call: every released framework's definition (its RFC 8785 bytes,
 * whose SHA-256 is the `framework_sha256` packages name) and its methodology specification as Markdown (the text
 * of docs/methodology/dcrf-<version>.md), and the list of released frameworks. Offered as MCP resources
 * (`resources/list`, `resources/templates/list`, `resources/read`) and read plain with `{resource_uri}`.
 */
export const MCP_FRAMEWORKS_URI = 'svc://frameworks';

export const MCP_RESOURCE_TEMPLATES = [
  {
    uri_template: 'svc://frameworks/{version}',
    name: 'framework',
    description:
      "A released framework's definition as published data: its canonical (RFC 8785) JSON bytes, whose SHA-256 is " +
      'the `framework_sha256` every computation package of that version names, as GET /api/public/frameworks/{version} serves them.',
    mime_type: 'application/json',
  },
  {
    uri_template: 'svc://methodology/{version}',
    name: 'methodology',
    description:
      "A released framework's methodology specification as Markdown, generated from the framework data: the rules, " +
      'weights, scales, caps, bands, rounding and the worked example (docs/methodology/dcrf-<version>.md).',
    mime_type: 'text/markdown',
  },
] as const;

export const McpResourceSchema = z.object({
  uri: z.string(),
  name: z.string(),
  description: z.string(),
  mime_type: z.string(),
});

export const McpResourceTemplateSchema = z.object({
  uri_template: z.string(),
  name: z.string(),
  description: z.string(),
  mime_type: z.string(),
});

export const McpResourceReadBodySchema = z
  .strictObject({
    resource_uri: z
      .string()
      .min(1, 'must be 1 to 200 characters')
      .max(200, 'must be 1 to 200 characters')
      .meta({ description: 'A resource the manifest lists, or one of its templates with a released version.' }),
  })
  .meta({ id: 'McpResourceRead', description: 'A plain resource read: the resource named by its URI.' });

export const McpResourceReadResponseSchema = z
  .object({
    resource_uri: z.string(),
    mime_type: z.string(),
    sha256: z.string().meta({ description: "SHA-256 (hex) of the text's UTF-8 bytes." }),
    text: z.string(),
  })
  .meta({
    id: 'McpResourceReadResponse',
    description: 'The resource: its media type, the hash of its bytes and its text.',
  });

// ---- the Model Context Protocol (JSON-RPC 2.0) ----

export const JsonRpcMessageSchema = z.looseObject({ jsonrpc: z.literal('2.0') }).meta({
  id: 'JsonRpcMessage',
  description:
    'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, notifications); ' +
    'the MCP server checks the rest and answers JSON-RPC errors for what it refuses.',
});

export const JsonRpcBatchSchema = z
  .array(JsonRpcMessageSchema)
  .min(1, `must hold 1 to ${MCP_MAX_BATCH} messages`)
  .max(MCP_MAX_BATCH, `must hold 1 to ${MCP_MAX_BATCH} messages`)
  .refine(
    (messages) => messages.filter((m) => m.method === 'tools/call').length <= 1,
    'must hold at most one tools/call: each tool call is one request of the hourly limit',
  );

export const McpJsonRpcBodySchema = z.union([JsonRpcMessageSchema, JsonRpcBatchSchema]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body that means to speak JSON-RPC: a batch, or an object naming `jsonrpc`. */
export function isJsonRpcBody(body: unknown): boolean {
  return Array.isArray(body) || (isObject(body) && 'jsonrpc' in body);
}

/** The schema that judges a body, so a refusal names the fields of the shape it meant rather than "invalid union". */
function judgeOf(body: unknown): z.ZodType {
  if (isJsonRpcBody(body)) return Array.isArray(body) ? JsonRpcBatchSchema : JsonRpcMessageSchema;
  if (isObject(body) && 'resource_uri' in body) return McpResourceReadBodySchema;
  const name = isObject(body) ? body.tool_name : undefined;
  // Own keys only: `"__proto__" in MCP_TOOLS` is true, and a call named after it has no input schema to judge by.
  return typeof name === 'string' && Object.hasOwn(MCP_TOOLS, name)
    ? callOf(name as McpToolName)
    : McpToolCallEnvelopeSchema;
}

/**
 * POST /api/mcp: a plain tool call `{tool_name, input}`, a plain resource read `{resource_uri}`, or a JSON-RPC message or batch of the Model Context
 * Protocol (told apart by `jsonrpc`). The shape the body means is checked first and its problems reported field
 * by field; the union after it is what the body is documented and typed as.
 */
export const McpRequestBodySchema = z
  .preprocess(
    (body, ctx) => {
      const judged = judgeOf(body).safeParse(body, { reportInput: true });
      if (!judged.success) for (const issue of judged.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
      return body;
    },
    z.union([McpToolCallBodySchema, McpResourceReadBodySchema, McpJsonRpcBodySchema]),
  )
  .meta({ id: 'McpRequest' });

export const McpPostResponseSchema = z.union([
  McpToolCallResponseSchema,
  McpResourceReadResponseSchema,
  JsonRpcMessageSchema,
  z.array(JsonRpcMessageSchema),
]);

// ---- the manifest ----

export const McpManifestSchema = z
  .object({
    name: z.string(),
    version: z.string(),
    status: z.literal('preview'),
    enabled: z.boolean().meta({
      description:
        'Whether this server answers tool calls (SVC_MCP_ENABLED); each workspace must be enabled by the operator too.',
    }),
    tools: z.array(
      z.object({
        name: z.enum(MCP_TOOL_NAMES),
        description: z.string(),
        input_schema: z
          .record(z.string(), z.unknown())
          .meta({ description: "JSON Schema (2020-12) of the tool's input." }),
      }),
    ),
    resources: z.array(McpResourceSchema).meta({
      description: 'The documents to read with `{resource_uri}` (or MCP resources/read): the released frameworks.',
    }),
    resource_templates: z.array(McpResourceTemplateSchema).meta({
      description: 'The resources by version: `{version}` is a released framework version such as `1.0`.',
    }),
  })
  .meta({ id: 'McpManifest' });

export type McpManifest = z.infer<typeof McpManifestSchema>;
export type McpToolCallBody = z.infer<typeof McpToolCallBodySchema>;
export type McpToolCallResponse = z.infer<typeof McpToolCallResponseSchema>;
export type McpRequestBody = z.infer<typeof McpRequestBodySchema>;
export type McpResource = z.infer<typeof McpResourceSchema>;
export type McpResourceReadBody = z.infer<typeof McpResourceReadBodySchema>;
export type McpResourceReadResponse = z.infer<typeof McpResourceReadResponseSchema>;
export type ProviderAmbiguity = z.infer<typeof ProviderAmbiguitySchema>;
export type ProviderCandidate = z.infer<typeof ProviderCandidateSchema>;
