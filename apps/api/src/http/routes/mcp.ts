import { endpoints, isJsonRpcBody, type McpResourceReadBody, type McpToolCallBody } from '@svc/contracts';
import { requireMcp } from '../../mcp/gate.js';
import { mcpManifest } from '../../mcp/manifest.js';
import { serveMcp } from '../../mcp/protocol.js';
import { listResources, readResource } from '../../mcp/resources.js';
import { runTool } from '../../mcp/tools/index.js';
import { ServiceError } from '../../services/errors.js';
import { mediaTypesOf, refuseUnacceptable } from '../negotiation.js';
import { ApiError } from '../problem.js';
import { defineRoute, type RouteModule, serviceContextOf } from '../route.js';

/** GET /api/mcp: the public manifest. An MCP client opening its optional event stream is told there is none (405). */
export const getMcpManifest: RouteModule = {
  ...defineRoute(endpoints.getMcpManifest, async (route) => {
    const { req, services } = route;
    const accept = req.get('accept') ?? '';
    if (accept.includes('text/event-stream') && !/application\/json|\*\/\*/.test(accept)) {
      throw new ApiError(
        'method_not_allowed',
        'the agent tool interface is stateless and offers no event stream; POST JSON-RPC messages to /api/mcp',
        {},
        { Allow: 'GET, POST, HEAD, OPTIONS' },
      );
    }
    refuseUnacceptable(req, mediaTypesOf(endpoints.getMcpManifest));
    return { json: mcpManifest(services.mcpEnabled, await listResources(serviceContextOf(route))) };
  }),
  negotiates: true,
};

/** POST /api/mcp: a plain tool call, or the Model Context Protocol when the body speaks JSON-RPC. */
export const callMcpTool: RouteModule = {
  ...defineRoute(endpoints.callMcpTool, async (route) => {
    const { body, req } = route;
    const ctx = serviceContextOf(route);
    if (isJsonRpcBody(body)) {
      const answer = await serveMcp(ctx, body, (name) => req.get(name));
      if (!('refused' in answer)) return answer;
      const { refused, message, errors } = answer;
      throw new ApiError(refused, message, errors.length > 0 ? { errors } : {});
    }
    if (typeof body === 'object' && body !== null && 'resource_uri' in body) {
      return { json: await readResource(ctx, (body as McpResourceReadBody).resource_uri) };
    }
    const call = body as McpToolCallBody;
    let output: string;
    try {
      output = await runTool(ctx, call.tool_name, call.input as never);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const problems = error.problems.map((p) => ({ ...p, path: `body.${p.path}` }));
      throw new ServiceError(error.code, error.message, problems);
    }
    return { jsonText: `{"tool_name":${JSON.stringify(call.tool_name)},"output":${output}}` };
  }),
  admit: requireMcp,
};
