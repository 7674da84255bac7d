import type { OpenApiDocument } from '@svc/contracts';
import { componentName, type JsonSchema } from './fuzz-json-schema.js';

/** The operations of the OpenAPI document, as the fuzzer reads them: parameters, body and documented answers. */

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: string;
  /** The OpenAPI path, e.g. `/api/v1/scores/{providerId}`. */
  template: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  /** The JSON request body's schema, when the operation takes one. */
  body: JsonSchema | undefined;
  /** Whether the operation needs an API key (`security` is set). */
  keyed: boolean;
  /** Every documented answer: status, then the media types of its body (none: no body). */
  responses: Map<number, string[]>;
  /** The raw request paths Express routes to this operation (case-insensitive, optional trailing slash). */
  pattern: RegExp;
}

interface RawOperation {
  operationId: string;
  parameters?: { name: string; in: Parameter['in']; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods as Record<string, RawOperation>)) {
      const parameters = (raw.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required ?? false,
        schema: p.schema ?? {},
      }));
      const responses = new Map<number, string[]>();
      for (const [status, response] of Object.entries(raw.responses)) {
        responses.set(Number(status), Object.keys(response.content ?? {}));
      }
      operations.push({
        id: raw.operationId,
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: raw.requestBody?.content?.['application/json']?.schema,
        keyed: (raw.security ?? []).length > 0,
        responses,
        pattern: patternOf(template),
      });
    }
  }
  return operations;
}

/** Express 5's matching: literal segments as written, a parameter any non-empty run without `/`. */
function patternOf(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

/**
 * The operation a raw request path reaches, as Express routes it: fixed paths before parameterised ones (the
 * route table registers `/scores/compare` before `/scores/{providerId}`), so an odd parameter such as an empty
 * one is judged by the operation that actually answered it.
 */
export function resolveOperation(operations: Operation[], method: string, rawPath: string): Operation | undefined {
  const pathname = rawPath.split('?')[0] ?? '';
  const candidates = operations.filter((o) => o.method === method && o.pattern.test(pathname));
  return candidates.sort((a, b) => a.pathParams.length - b.pathParams.length)[0];
}

/** A `$ref` resolver over the document's components. */
export function resolverOf(document: OpenApiDocument): (ref: string) => JsonSchema {
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
  return (ref) => {
    const schema = schemas[componentName(ref)];
    if (!schema) throw new Error(`unresolved reference ${ref}`);
    return schema;
  };
}
