import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { AsOfSchema, PlannerTypeSchema, RiskBandSchema, UuidSchema } from './common.js';
import { type Deprecation, deprecationHeaders } from './deprecation.js';
import {
  type Deprecations,
  deprecationsIn,
  type Endpoint,
  endpoints,
  operationsEndpoints,
  PUBLIC_LIMITS,
  TIER_HOURLY_LIMIT,
} from './endpoints.js';
import { ERROR_CODES, ProblemSchema } from './errors.js';
import { WEBHOOK_EVENT_SCHEMAS, WEBHOOK_HEADERS } from './webhooks.js';

const rateLimitHeaders = {
  RateLimit: {
    description: 'Remaining quota: `"hour";r=<remaining>;t=<seconds to reset>` (IETF ratelimit headers).',
    schema: { type: 'string' as const },
  },
  'RateLimit-Policy': {
    description: 'The policy: `"hour";q=<limit>;w=<window seconds>`.',
    schema: { type: 'string' as const },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': {
    description: 'When the window frees a request, epoch seconds.',
    schema: { type: 'integer' as const },
  },
};

type HeaderDoc = { description: string; schema: { type: 'integer' | 'string' } };

/** The headers every answer of a deprecated operation carries, with their values. */
function deprecationHeaderDocs(d: Deprecation): Record<string, HeaderDoc> {
  const values = deprecationHeaders(d);
  const text = { type: 'string' as const };
  return {
    Deprecation: {
      description: `RFC 9745: deprecated since ${d.announced}, as a structured-field date: \`${values.Deprecation}\`.`,
      schema: text,
    },
    Sunset: {
      description: `RFC 8594: the route may stop answering from ${d.sunset}: \`${values.Sunset}\`.`,
      schema: text,
    },
    Link: {
      description: `Where the deprecation is explained: \`${values.Link}\` (beside a \`rel="next"\` link on a list).`,
      schema: text,
    },
  };
}

function deprecationNote(d: Deprecation): string {
  const instead = d.replacement ? ` Use instead: ${d.replacement}.` : '';
  return `**Deprecated** since ${d.announced}; it keeps answering as documented until its sunset on ${d.sunset}, and may stop from then.${instead} See ${d.link}. Every answer carries the \`Deprecation\`, \`Sunset\` and \`Link\` headers.`;
}

function routeOf(e: Endpoint, deprecation: Deprecation | undefined): RouteConfig {
  const problem = { 'application/problem+json': { schema: ProblemSchema } };
  const responses: RouteConfig['responses'] = {
    [e.success.status]: {
      description: e.success.description,
      ...(e.limit !== 'none' ? { headers: rateLimitHeaders } : {}),
      ...(e.success.contentType
        ? {
            content: Object.fromEntries(
              [e.success.contentType, ...(e.success.otherContentTypes ?? [])].map((type) => [
                type,
                { schema: e.success.schema ?? z.string() },
              ]),
            ),
          }
        : {}),
    },
  };
  for (const { status, description } of e.bodiless ?? []) {
    responses[status] = { description, ...(e.limit !== 'none' ? { headers: rateLimitHeaders } : {}) };
  }
  for (const code of new Set(e.errors)) {
    const { status, title } = ERROR_CODES[code];
    const existing = responses[status] as { description: string } | undefined;
    const description = existing ? `${existing.description}; ${title}` : title;
    const headers: Record<string, HeaderDoc> | undefined =
      code === 'rate_limited' || code === 'unavailable'
        ? { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } }
        : undefined;
    responses[status] = { description, ...(headers ? { headers } : {}), content: problem };
  }
  if (deprecation) {
    const notice = deprecationHeaderDocs(deprecation);
    for (const [status, response] of Object.entries(responses)) {
      const r = response as { headers?: Record<string, HeaderDoc> };
      responses[status] = { ...response, headers: { ...r.headers, ...notice } } as (typeof responses)[string];
    }
  }
  const request: RouteConfig['request'] = {};
  if (e.params) request.params = e.params;
  if (e.query) request.query = e.query;
  if (e.body) request.body = { required: true, content: { 'application/json': { schema: e.body } } };
  return {
    method: e.method,
    path: e.path,
    operationId: e.operationId,
    summary: e.summary,
    description: deprecation ? `${deprecationNote(deprecation)}\n\n${describe(e)}` : describe(e),
    tags: [e.tag],
    ...(e.tier ? { security: [{ ApiKey: [] }] } : {}),
    ...(deprecation ? { deprecated: true } : {}),
    request,
    responses,
  };
}

const deliveryHeaders = z.object({
  [WEBHOOK_HEADERS.signature]: z.string().meta({
    description: 'Hex HMAC-SHA-256 of the raw body, keyed with the UTF-8 bytes of the workspace secret as shown.',
  }),
  [WEBHOOK_HEADERS.previousSignature]: z
    .string()
    .optional()
    .meta({ description: 'During a secret rotation overlap: the same signature under the previous secret.' }),
  [WEBHOOK_HEADERS.eventId]: z.string().meta({ description: 'The event id, the same on every retry.' }),
  [WEBHOOK_HEADERS.timestamp]: z.string().meta({ description: 'Unix seconds of this attempt.' }),
  [WEBHOOK_HEADERS.attempt]: z.string().meta({ description: 'Attempt number, from 1.' }),
  [WEBHOOK_HEADERS.standardId]: z.string().meta({ description: 'Standard Webhooks: the event id.' }),
  [WEBHOOK_HEADERS.standardTimestamp]: z.string().meta({ description: 'Standard Webhooks: unix seconds.' }),
  [WEBHOOK_HEADERS.standardSignature]: z.string().meta({
    description:
      'Standard Webhooks: `v1,<base64 HMAC of id.timestamp.body>` (two, space-separated, during a rotation).',
  }),
});

/** An event as OpenAPI 3.1 describes webhooks: the request the service makes to the consumer's endpoint. */
function webhookOf(type: string, schema: z.ZodType): RouteConfig {
  return {
    method: 'post',
    path: type,
    operationId: `webhook_${type.replace(/\./g, '_')}`,
    summary: `The ${type} event`,
    description: schema.description ?? type,
    tags: ['Webhooks'],
    request: {
      headers: deliveryHeaders,
      body: { required: true, content: { 'application/json': { schema } } },
    },
    responses: {
      200: { description: 'Any 2xx: delivered. 410 disables the endpoint; anything else is retried.' },
    },
  };
}

function describe(e: Endpoint): string {
  const parts = e.description ? [e.description] : [];
  if (e.tier) {
    parts.push(`Needs an API key of tier ${e.tier} or above; spends one request of the key's sliding hourly limit.`);
  } else if (e.limit !== 'none') {
    const l = PUBLIC_LIMITS[e.limit as keyof typeof PUBLIC_LIMITS];
    parts.push(
      `Public; limited to ${l.limit} requests per ${l.windowSeconds === 60 ? 'minute' : 'hour'} per client IP.`,
    );
  } else parts.push('Public.');
  return parts.join('\n\n');
}

/** The generated document, as plain JSON data. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface OpenApiOptions {
  serverUrl?: string;
  version?: string;
  /** Routes the server deprecates besides those the contract does (the app's `deprecations` option). */
  deprecations?: Deprecations;
}

/** The OpenAPI 3.1 document of the service, built from the contracts. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'An API key issued by the operator; treat it as an opaque string.',
  });
  const deprecated = deprecationsIn(options.deprecations);
  for (const e of Object.values(endpoints) as Endpoint[])
    registry.registerPath(routeOf(e, deprecated.get(e.operationId)));
  for (const e of Object.values(operationsEndpoints) as Endpoint[])
    registry.registerPath(routeOf(e, deprecated.get(e.operationId)));
  for (const page of sitePages) registry.registerPath(page);
  for (const [type, schema] of Object.entries(WEBHOOK_EVENT_SCHEMAS)) registry.registerWebhook(webhookOf(type, schema));

  const limits = Object.entries(TIER_HOURLY_LIMIT)
    .map(([tier, n]) => `${tier} ${n.toLocaleString('en-US')}`)
    .join(', ');
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Risk Indicator Scoring Service API',
      version: options.version ?? '1.0.0',
      description:
        'Deterministic credit Risk Indicators for digital-credit providers under the published Digital Credit Risk Framework. ' +
        `Keyed requests are limited per key per sliding hour: ${limits}. Errors are RFC 9457 problem details. ` +
        'Within v1 answers only gain: new fields, new values in the sets documented as open, new operations and events; ' +
        'ignore what you do not know (response schemas are open to new properties). A deprecated operation is marked ' +
        '`deprecated: true` and answers with `Deprecation`, `Sunset` and `Link: <…>; rel="deprecation"` headers at ' +
        'least six months before its sunset.',
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [
      { name: 'Scores' },
      { name: 'Methodology' },
      { name: 'Issuances' },
      { name: 'Status' },
      { name: 'Public' },
      { name: 'Analysis' },
      { name: 'Webhooks' },
      { name: 'Site' },
      { name: 'Operations' },
    ],
  });
  // The generator builds `components` before it generates `webhooks`, so the event schemas would be
  // missing: collect the components again now that every reference has been seen.
  document.components = generator.generateComponents().components;
  openResponseSchemas(document as unknown as OpenApiDocument);
  return document as unknown as OpenApiDocument;
}

type SchemaNode = Record<string, unknown>;
const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const COMPONENT = '#/components/schemas/';

/** The schema nodes directly below a schema (not through a reference). */
function childSchemas(node: SchemaNode): SchemaNode[] {
  const children: unknown[] = [node.items, node.not, node.additionalProperties];
  for (const key of ['properties', 'patternProperties'] as const) {
    if (isNode(node[key])) children.push(...Object.values(node[key]));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    if (Array.isArray(node[key])) children.push(...node[key]);
  }
  return children.filter(isNode);
}

/** Every component a schema names, directly or through the components it names. */
function componentsNamed(roots: unknown[], components: Record<string, unknown>): Set<string> {
  const named = new Set<string>();
  const stack = roots.filter(isNode);
  for (let node = stack.pop(); node; node = stack.pop()) {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENT)) {
      const name = ref.slice(COMPONENT.length);
      if (!named.has(name) && isNode(components[name])) {
        named.add(name);
        stack.push(components[name]);
      }
    }
    stack.push(...childSchemas(node));
  }
  return named;
}

/**
 * A request body the server reads is closed (an unknown field is refused), but what it answers gains fields within
 * v1 (docs/compatibility.md): `additionalProperties: false` on a schema only answers reach would tell a generated
 * client to refuse the next version's answers, so those schemas leave it out. The server's own tests still hold its
 * answers to the strict zod schemas.
 */
function openResponseSchemas(document: OpenApiDocument): void {
  const components = (document.components?.schemas ?? {}) as Record<string, unknown>;
  const read: unknown[] = [];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item).filter(isNode)) {
      for (const parameter of Array.isArray(op.parameters) ? op.parameters : []) read.push(parameter?.schema);
      const body = isNode(op.requestBody) ? op.requestBody.content : undefined;
      if (isNode(body)) read.push(...Object.values(body).map((media) => (isNode(media) ? media.schema : undefined)));
    }
  }
  const closed = componentsNamed(read, components);
  const open = (node: SchemaNode) => {
    if (node.additionalProperties === false) delete node.additionalProperties;
    for (const child of childSchemas(node)) if (typeof child.$ref !== 'string') open(child);
  };
  for (const [name, schema] of Object.entries(components)) if (isNode(schema) && !closed.has(name)) open(schema);
  // Schemas written inline in an answer, or in an event the service sends, rather than as components.
  const operationsOf = (items: unknown) =>
    isNode(items)
      ? Object.values(items).flatMap((item) => (isNode(item) ? Object.values(item).filter(isNode) : []))
      : [];
  const sent = [
    ...operationsOf(document.paths).flatMap((op) => (isNode(op.responses) ? Object.values(op.responses) : [])),
    ...operationsOf(document.webhooks).map((op) => op.requestBody),
  ];
  for (const media of sent.flatMap((r) => (isNode(r) && isNode(r.content) ? Object.values(r.content) : []))) {
    if (isNode(media) && isNode(media.schema) && typeof media.schema.$ref !== 'string') open(media.schema);
  }
}

const text = (type: string, description: string) => ({ description, content: { [type]: { schema: z.string() } } });

const problemOf = (code: keyof typeof ERROR_CODES) => ({
  description: ERROR_CODES[code].title,
  content: { 'application/problem+json': { schema: ProblemSchema } },
});
/** Any page's answer to a request the server cannot read: a malformed percent-encoding, not HTTP at all. */
const unreadable = problemOf('invalid_request');
/** Any page's answers from the HTTP layer itself: a request that does not arrive in time, headers over 16 KiB. */
const transport = { 408: problemOf('request_timeout'), 431: problemOf('headers_too_large') };

/** A page's point in time: the API's as_of, and empty for now (what the page's date form sends when left blank). */
const pageAsOf = z
  .union([z.literal(''), AsOfSchema])
  .optional()
  .meta({
    description:
      'The record as it stood at this instant, as the API reads as_of: a date (the end of that day, UTC) or an ISO 8601 timestamp, from 2026-04-01 to now. Empty or absent: now. Links and filters on the page keep it.',
  });

const sitePages: RouteConfig[] = [
  {
    method: 'get',
    path: '/',
    operationId: 'ratingsPage',
    summary: 'Human page of the current Risk Indicators (the ratings table), with filters',
    tags: ['Site'],
    request: {
      query: z.object({
        planner_type: PlannerTypeSchema.optional().meta({ description: 'Only providers of this planner type.' }),
        band: RiskBandSchema.optional().meta({ description: 'Only providers in this band.' }),
        as_of: pageAsOf,
      }),
    },
    responses: {
      200: text('text/html', 'The page.'),
      400: text(
        'text/html',
        'A filter or as_of given twice or with a value outside its set (an HTML page); other parameters are ignored.',
      ),
      ...transport,
    },
  },
  {
    method: 'get',
    path: '/providers/{id}',
    operationId: 'providerPage',
    summary:
      'Human page of a provider: its current public indicator, outlook, watch, rating actions and verification pages',
    tags: ['Site'],
    request: { params: z.object({ id: UuidSchema }), query: z.object({ as_of: pageAsOf }) },
    responses: {
      200: text('text/html', 'The page.'),
      400: {
        description:
          'Not a provider id (a UUID), or an as_of that cannot be served: an HTML page; an id whose percent-encoding cannot be read: the invalid_request problem.',
        content: { ...text('text/html', '').content, ...unreadable.content },
      },
      404: text(
        'text/html',
        'No Risk Indicator was ever published for this provider (with as_of: none by that instant).',
      ),
      ...transport,
    },
  },
  {
    method: 'get',
    path: '/verify/{id}',
    operationId: 'verifyPage',
    summary: 'Human verification page of a published Risk Indicator',
    tags: ['Site'],
    request: { params: z.object({ id: z.string() }) },
    responses: {
      200: text('text/html', 'The page.'),
      400: unreadable,
      404: text('text/html', 'No such Risk Indicator.'),
      ...transport,
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapiDocument',
    summary: 'This document',
    tags: ['Site'],
    responses: {
      200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: z.object({}).loose() } } },
      400: unreadable,
      ...transport,
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'apiReference',
    summary: 'Interactive API reference',
    tags: ['Site'],
    responses: { 200: text('text/html', 'The reference page.'), 400: unreadable, ...transport },
  },
  {
    method: 'get',
    path: '/llms.txt',
    operationId: 'llmsTxt',
    summary: 'Machine-readable description of the service (llms.txt)',
    tags: ['Site'],
    responses: { 200: text('text/plain', 'Markdown text.'), 400: unreadable, ...transport },
  },
];
