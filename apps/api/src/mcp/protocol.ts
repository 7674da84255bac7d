import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  apiErrorCode,
  type FieldProblem,
  MCP_RESOURCE_TEMPLATES,
  MCP_SERVER_INFO,
  MCP_TOOL_NAMES,
  MCP_TOOLS,
  type McpToolName,
  type ErrorCode as ProblemCode,
} from '@svc/contracts';
import type { ServiceContext } from '../services/context.js';
import { ServiceError } from '../services/errors.js';
import { parseInput } from '../services/shared/parse.js';
import { toolEntries } from './manifest.js';
import { listResources, readResource } from './resources.js';
import { runTool } from './tools/index.js';

const INSTRUCTIONS =
  'Risk Indicators of digital-credit providers under the published Digital Credit Risk Framework: a score from 0 ' +
  'to 100 (higher means lower risk) and a risk band. Find a provider with search_providers; when a name matches ' +
  'several providers the answer lists candidates, so ask which one is meant. get_rating_actions lists the rating ' +
  'actions (upgrades, downgrades, affirmations, withdrawals, watches, outlook changes), newest first, and pages ' +
  'with next_cursor. The methodology and each released ' +
  'framework definition are resources to read. Each request is one of the hourly ' +
  'limit of the API key. Risk Indicators are not credit ratings or investment advice. Preview interface.';

/** The request headers the transport reads; everything else (the key among them) stays out of it. */
const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version'];

/**
 * What the transport answered: its status and JSON text (none for a notification), or its refusal of the request
 * before any message was handled (an Accept without text/event-stream, a body that is no JSON-RPC message), which
 * the HTTP route answers as the problem every other 4xx of the API is.
 */
export type McpAnswer =
  | { status: number; jsonText?: string }
  | { refused: ProblemCode; message: string; errors: FieldProblem[] };

/**
 * Serves one POST of JSON-RPC messages as the Model Context Protocol: a fresh SDK server and stateless transport
 * per request (no session, JSON answers rather than an event stream); `header` reads the request's headers. The
 * key, tier, gate and limit were checked by the route before, and the tools run in `ctx`. A failure that is not
 * the caller's (the store down) is rethrown after the transport has answered, so the route answers it as for any
 * route (503, or 500 with the request id).
 */
export async function serveMcp(
  ctx: ServiceContext,
  body: unknown,
  header: (name: string) => string | undefined,
): Promise<McpAnswer> {
  const failures: unknown[] = [];
  const server = mcpServer(ctx, failures);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const request = new globalThis.Request('http://localhost/api/mcp', { method: 'POST', headers });
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (failures.length > 0) throw failures[0];
    const text = await response.text();
    if (response.status >= 400) return transportRefusal(response.status, text);
    if (text === '') return { status: response.status };
    return { status: response.status, jsonText: text };
  } finally {
    await server.close();
  }
}

/** The transport's own refusals, before any message is handled, by their HTTP status. */
const REFUSALS: Partial<Record<number, ProblemCode>> = {
  400: 'invalid_request',
  406: 'not_acceptable',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * A refusal of the transport by its code and message, rather than the transport's JSON-RPC error body; anything
 * else it refuses is not the caller's doing in a stateless server, so it fails as an internal error.
 */
function transportRefusal(status: number, text: string): McpAnswer {
  let message = `the MCP transport refused the request (HTTP ${status})`;
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
  } catch {}
  const code = REFUSALS[status];
  if (!code) throw new Error(message);
  return { refused: code, message, errors: code === 'invalid_request' ? [{ path: 'body', message }] : [] };
}

function mcpServer(ctx: ServiceContext, failures: unknown[]): Server {
  const server = new Server(
    { name: MCP_SERVER_INFO.name, version: MCP_SERVER_INFO.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const failing = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof McpError)) failures.push(error);
      throw error;
    }
  };
  server.setRequestHandler(ListResourcesRequestSchema, () =>
    failing(async () => ({
      resources: (await listResources(ctx)).map((r) => ({
        uri: r.uri,
        name: r.name,
        description: r.description,
        mimeType: r.mime_type,
      })),
    })),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: MCP_RESOURCE_TEMPLATES.map((t) => ({
      uriTemplate: t.uri_template,
      name: t.name,
      description: t.description,
      mimeType: t.mime_type,
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    failing(async () => {
      const { uri } = request.params;
      try {
        const read = await readResource(ctx, uri);
        return { contents: [{ uri, mimeType: read.mime_type, text: read.text }] };
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        throw new McpError(RESOURCE_NOT_FOUND, error.message, { uri });
      }
    }),
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolEntries().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.input_schema as { type: 'object'; [key: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    failing(() => callTool(ctx, request.params.name, request.params.arguments ?? {})),
  );
  return server;
}

/** The MCP specification's code for a resource that does not exist (server features, resources: error handling). */
const RESOURCE_NOT_FOUND = -32002;

const isToolName = (name: string): name is McpToolName => (MCP_TOOL_NAMES as string[]).includes(name);

/** A tools/call: an unknown tool is a protocol error; bad arguments and unknown providers are tool errors the agent reads. */
async function callTool(ctx: ServiceContext, name: string, args: unknown): Promise<CallToolResult> {
  if (!isToolName(name)) {
    throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"; the tools are ${MCP_TOOL_NAMES.join(', ')}`);
  }
  let input: unknown;
  try {
    input = parseInput(MCP_TOOLS[name].input, args, 'body');
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const problems = renamed(error.problems.map(({ path, message }) => ({ path, message })));
    return refusal('invalid_request', `invalid arguments: ${summary(problems)}`, problems);
  }
  try {
    const text = await runTool(ctx, name, input as never);
    return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const problems = renamed(error.problems.map(({ path, message }) => ({ path, message })));
    const detail = error.code === 'invalid_request' ? `invalid arguments: ${summary(problems)}` : error.message;
    return refusal(apiErrorCode(error.code), detail, problems);
  }
}

/** Problems name the tool's arguments, as MCP calls them. */
const renamed = (problems: FieldProblem[]) =>
  problems.map((p) => ({
    path: p.path.replace(/^(body|input)\b/, 'arguments'),
    message: p.message.replace('is not a field of this endpoint', 'is not an argument of this tool'),
  }));

const summary = (problems: FieldProblem[]) => problems.map((p) => `${p.path}: ${p.message}`).join('; ');

function refusal(code: ProblemCode, detail: string, errors: FieldProblem[]): CallToolResult {
  const body = { code, detail, ...(errors.length > 0 ? { errors } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
