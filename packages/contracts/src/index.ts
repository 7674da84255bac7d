export * from './analysis.js';
export * from './common.js';
export * from './endpoints.js';
export * from './errors.js';
export * from './mcp.js';
export { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './openapi.js';
export * from './resources.js';
export * from './scores.js';
export * from './webhooks.js';
