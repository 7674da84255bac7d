import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { type Endpoint, endpoints, operationsEndpoints, PUBLIC_LIMITS, TIER_HOURLY_LIMIT } from './endpoints.js';
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

function routeOf(e: Endpoint): RouteConfig {
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
    const headers: Record<string, { description: string; schema: { type: 'integer' | 'string' } }> | undefined =
      code === 'rate_limited' || code === 'unavailable'
        ? { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } }
        : undefined;
    responses[status] = { description, ...(headers ? { headers } : {}), content: problem };
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
    description: describe(e),
    tags: [e.tag],
    ...(e.tier ? { security: [{ ApiKey: [] }] } : {}),
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
  for (const e of Object.values(endpoints) as Endpoint[]) registry.registerPath(routeOf(e));
  for (const e of Object.values(operationsEndpoints) as Endpoint[]) registry.registerPath(routeOf(e));
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
        `Keyed requests are limited per key per sliding hour: ${limits}. Errors are RFC 9457 problem details.`,
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
  return document as unknown as OpenApiDocument;
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

const sitePages: RouteConfig[] = [
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
