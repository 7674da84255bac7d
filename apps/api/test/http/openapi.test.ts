import { Validator } from '@seriousme/openapi-schema-validator';
import { type Endpoint, ERROR_CODES, endpoints } from '@svc/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  security?: Record<string, unknown>[];
}

interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
  servers?: { url: string }[];
}

const ENDPOINTS = Object.values(endpoints) as Endpoint[];

// The document does not depend on the store: one engine is enough.
describe.each(engines.slice(0, 1))('GET /openapi.json (served over %s)', (engine) => {
  const server = useServer(engine);
  let doc: Document;
  const operation = (e: Endpoint): Operation => {
    const op = doc.paths[e.path]?.[e.method];
    if (!op) throw new Error(`${e.method.toUpperCase()} ${e.path} is missing from the document`);
    return op;
  };

  beforeAll(async () => {
    doc = (await (await server().get('/openapi.json')).json()) as Document;
  });

  it('is public JSON naming this server', async () => {
    const res = await server().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(await res.json()).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers?.[0]?.url).toBe(server().url);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares the x-api-key header scheme', () => {
    expect(doc.components?.securitySchemes?.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  describe.each(ENDPOINTS.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))('%s', (_name, e) => {
    it('appears with its method and operationId', () => {
      expect(operation(e).operationId).toBe(e.operationId);
    });

    it('lists its path and query parameters', () => {
      const params = operation(e).parameters ?? [];
      const named = (where: string) =>
        params
          .filter((p) => p.in === where)
          .map((p) => p.name)
          .sort();
      expect(named('path')).toEqual(Object.keys(e.params?.shape ?? {}).sort());
      expect(named('query')).toEqual(Object.keys(e.query?.shape ?? {}).sort());
      for (const p of params.filter((p) => p.in === 'path')) expect(p.required).toBe(true);
    });

    it('describes its request body when it takes one', () => {
      const body = operation(e).requestBody;
      if (e.body) expect(Object.keys(body?.content ?? {})).toEqual(['application/json']);
      else expect(body).toBeUndefined();
    });

    it('documents its success response with its media type', () => {
      const success = operation(e).responses?.[String(e.success.status)];
      expect(success).toBeDefined();
      expect(Object.keys(success?.content ?? {})).toEqual(
        e.success.contentType ? [e.success.contentType, ...(e.success.otherContentTypes ?? [])] : [],
      );
      if (e.limit !== 'none') expect(Object.keys(success?.headers ?? {})).toContain('RateLimit');
    });

    it('lists every error status of its errors as a problem', () => {
      const responses = operation(e).responses ?? {};
      for (const code of e.errors) {
        const response = responses[String(ERROR_CODES[code].status)];
        expect(response, code).toBeDefined();
        expect(Object.keys(response?.content ?? {})).toEqual(['application/problem+json']);
        if (code === 'rate_limited' || code === 'unavailable') {
          expect(Object.keys(response?.headers ?? {})).toContain('Retry-After');
        }
      }
    });

    it(e.tier ? 'requires the API key' : 'needs no API key', () => {
      if (e.tier) expect(operation(e).security).toEqual([{ ApiKey: [] }]);
      else expect(operation(e).security).toBeUndefined();
    });
  });

  it('lists no API operation that the contract does not have', () => {
    const known = new Set(ENDPOINTS.map((e) => `${e.method} ${e.path}`));
    const apiOperations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(apiOperations.filter((op) => !known.has(op))).toEqual([]);
  });
});
