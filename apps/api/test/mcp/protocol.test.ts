import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  ComparisonSchema,
  MCP_SERVER_INFO,
  MCP_TOOLS,
  MethodologyResponseSchema,
  ProviderAmbiguitySchema,
  ProviderSearchResponseSchema,
  RiskIndicatorSchema,
  ScoreHistoryResponseSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectProblem, limitHeadersOf } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { idOf, MCP_ON, mcpKey, NORDIC, publishDemo, SATS, SOCIETE, ZURICH } from './fixtures.js';

/** What a successful tools/call carries: the output as structured content and, the same, as JSON text. */
function outputOf(result: CallToolResult): unknown {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const [first] = result.content;
  expect(first?.type).toBe('text');
  const parsed = JSON.parse(first?.type === 'text' ? first.text : 'null');
  expect(result.structuredContent).toEqual(parsed);
  return parsed;
}

/** A tool error as the agent reads it: the problem's code, detail and field errors, as JSON text. */
function refusalOf(result: CallToolResult): { code: string; detail: string; errors?: { path: string }[] } {
  expect(result.isError).toBe(true);
  const [first] = result.content;
  return JSON.parse(first?.type === 'text' ? first.text : 'null');
}

describe.each(engines)('the Model Context Protocol at /api/mcp, with the SDK client, on %s', (engine) => {
  let key = '';
  let restKey = '';
  let client: Client;
  const server = useServer(
    engine,
    async (s) => {
      await publishDemo(s);
      key = await mcpKey(s);
      restKey = await s.key('PROFESSIONAL');
    },
    MCP_ON,
  );
  const endpoint = () => new URL(`${server().url}/api/mcp`);
  const connect = async (headers: Record<string, string>) => {
    const c = new Client({ name: 'svc-test-agent', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(endpoint(), { requestInit: { headers } }));
    return c;
  };
  const rest = async (path: string) => (await server().get(path, { key: restKey })).json();

  beforeAll(async () => {
    client = await connect({ 'x-api-key': key });
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initialize names the server and its instructions', () => {
    expect(client.getServerVersion()).toMatchObject(MCP_SERVER_INFO);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('search_providers');
    expect(client.getInstructions()).toContain('get_rating_actions');
  });

  it('tools/list returns the six tools with the input schemas of the contract', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(Object.keys(MCP_TOOLS));
    for (const tool of tools) {
      const contract = MCP_TOOLS[tool.name as keyof typeof MCP_TOOLS];
      expect(tool.description).toBe(contract.description);
      expect(tool.inputSchema).toEqual(z.toJSONSchema(contract.input, { io: 'input' }));
    }
  });

  it('get_provider_score answers the REST detail of the provider', async () => {
    const out = RiskIndicatorSchema.parse(
      outputOf(
        (await client.callTool({
          name: 'get_provider_score',
          arguments: { provider_name: 'societe generale' },
        })) as CallToolResult,
      ),
    );
    expect(out).toEqual(await rest(`/api/v1/scores/${idOf(SOCIETE)}`));
  });

  it('get_provider_score answers the candidates of an ambiguous name', async () => {
    const result = (await client.callTool({
      name: 'get_provider_score',
      arguments: { provider_name: 'Sats' },
    })) as CallToolResult;
    const out = ProviderAmbiguitySchema.strict().parse(outputOf(result));
    expect(out.names[0]?.candidates.map((c) => c.name)).toEqual(['Example Sats Lending', 'Example Sats Lending Pro']);
  });

  it('compare_providers answers the REST comparison', async () => {
    const result = (await client.callTool({
      name: 'compare_providers',
      arguments: { provider_names: ['Nordic Yield Earn', 'zurich'] },
    })) as CallToolResult;
    const out = ComparisonSchema.strict().parse(outputOf(result));
    expect(out).toEqual(await rest(`/api/v1/scores/compare?ids=${idOf(NORDIC)},${idOf(ZURICH)}`));
  });

  it('get_score_history answers the REST history page', async () => {
    const result = (await client.callTool({
      name: 'get_score_history',
      arguments: { provider_name: 'example sats lending', limit: 1 },
    })) as CallToolResult;
    const out = ScoreHistoryResponseSchema.strict().parse(outputOf(result));
    expect(out).toEqual(await rest(`/api/v1/scores/${idOf(SATS)}/history?limit=1`));
    expect(out.next_cursor).not.toBeNull();
  });

  it('search_providers answers the REST search', async () => {
    const result = (await client.callTool({
      name: 'search_providers',
      arguments: { query: 'zur', planner_type: 'btc' },
    })) as CallToolResult;
    const out = ProviderSearchResponseSchema.strict().parse(outputOf(result));
    expect(out).toEqual(await rest('/api/v1/providers/search?q=zur&planner_type=btc'));
    expect(out.data.map((m) => m.id)).toEqual([idOf(ZURICH)]);
  });

  it('get_methodology answers the REST methodology', async () => {
    const result = (await client.callTool({
      name: 'get_methodology',
      arguments: { version: '1.0' },
    })) as CallToolResult;
    expect(MethodologyResponseSchema.parse(outputOf(result))).toEqual(await rest('/api/v1/methodology?version=1.0'));
    const noArguments = (await client.callTool({ name: 'get_methodology' })) as CallToolResult;
    expect(outputOf(noArguments)).toEqual(await rest('/api/v1/methodology'));
  });

  it('an unknown provider, bad arguments and an unknown version are tool errors naming the argument', async () => {
    const unknown = refusalOf(
      (await client.callTool({
        name: 'get_provider_score',
        arguments: { provider_name: 'Nowhere Finance' },
      })) as CallToolResult,
    );
    expect(unknown.code).toBe('not_found');
    expect(unknown.errors?.map((e) => e.path)).toEqual(['arguments.provider_name']);
    const bad = refusalOf(
      (await client.callTool({
        name: 'get_score_history',
        arguments: { provider_name: 7, limit: 500, extra: true },
      })) as CallToolResult,
    );
    expect(bad.code).toBe('invalid_request');
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(
      ['arguments.extra', 'arguments.limit', 'arguments.provider_name'].sort(),
    );
    const version = refusalOf(
      (await client.callTool({ name: 'get_methodology', arguments: { version: '0.1' } })) as CallToolResult,
    );
    expect(version.detail).toContain('must be one of 1.0');
  });

  it('an unknown tool is a protocol error (invalid params)', async () => {
    const call = client.callTool({ name: 'drop_tables', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('a client without a key cannot connect', async () => {
    await expect(connect({})).rejects.toThrow(/401|missing_api_key/);
  });

  it('a client whose workspace is not enabled cannot connect', async () => {
    const other = await server().key('PROFESSIONAL');
    await expect(connect({ 'x-api-key': other })).rejects.toThrow(/403|mcp_not_enabled/);
  });

  describe('JSON-RPC over plain HTTP', () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(endpoint(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': key,
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const call = (id: number, name: string, args: unknown) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });

    it('a request is answered as JSON (no event stream, no session) with the limit headers', async () => {
      const res = await post(call(1, 'get_provider_score', { provider_name: 'zurich' }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(limitHeadersOf(res).limit).toBe(1000);
      const body = (await res.json()) as { jsonrpc: string; id: number; result: CallToolResult };
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(RiskIndicatorSchema.parse(outputOf(body.result)).provider_id).toBe(idOf(ZURICH));
    });

    it('a batch is answered message by message, and may hold one tools/call', async () => {
      const res = await post([
        { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
        call(2, 'search_providers', { query: 'nord' }),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ]);
      expect(res.status).toBe(200);
      const answers = (await res.json()) as { id: unknown; result: { tools?: unknown[] } }[];
      expect(answers.map((a) => a.id).sort()).toEqual([2, 'a']);
      expect(answers.find((a) => a.id === 'a')?.result.tools).toHaveLength(6);
    });

    it('a batch with two tools/call gets 400: each tool call is one request of the limit', async () => {
      const res = await post([call(1, 'get_methodology', {}), call(2, 'get_methodology', {})]);
      const problem = await expectProblem(res, 'invalid_request');
      expect(problem.detail).toContain('at most one tools/call');
    });

    it('a notification is accepted with 202 and no body', async () => {
      const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    });

    it('an unknown method gets the JSON-RPC error method not found', async () => {
      const res = await post({ jsonrpc: '2.0', id: 9, method: 'prompts/list' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: ErrorCode.MethodNotFound } });
    });

    it('malformed messages get a 4xx JSON-RPC error or problem, never a 5xx', async () => {
      const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
      const bodies = [
        { jsonrpc: '2.0' },
        { jsonrpc: '2.0', id: 1 },
        { jsonrpc: '2.0', id: {}, method: 'tools/list' },
        { jsonrpc: '2.0', id: 1, method: 7 },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'x' },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } },
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
        { jsonrpc: '1.0', id: 1, method: 'tools/list' },
        Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })),
        [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'x'],
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_methodology","arguments":${deep}}}`,
        `{"jsonrpc":"2.0","id":12345678901234567890123,"method":"tools/list"}`,
      ];
      for (const body of bodies) {
        const res = await post(body);
        const text = await res.text();
        const label = `${JSON.stringify(body).slice(0, 100)} -> ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, label).toBeLessThan(500);
        // A 200 carries a JSON-RPC error, or a tool error for arguments the tool refuses.
        if (res.status === 200) {
          const answer = JSON.parse(text) as { error?: unknown; result?: { isError?: boolean } };
          expect(answer.error !== undefined || answer.result?.isError === true, label).toBe(true);
        } else expect(res.status, label).toBeGreaterThanOrEqual(400);
      }
    });

    it('arguments a tool refuses are a tool error, not a 5xx', async () => {
      const res = await post(call(3, 'compare_providers', { provider_names: 'zurich' }));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: CallToolResult };
      expect(refusalOf(body.result).errors?.map((e) => e.path)).toEqual(['arguments.provider_names']);
    });

    it('a POST that does not accept an event stream gets 406 as a problem, saying what to accept', async () => {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
      const problem = await expectProblem(res, 'not_acceptable');
      expect(problem.detail).toContain('text/event-stream');
    });

    it('a browser may send the MCP protocol header across origins (CORS preflight)', async () => {
      const res = await fetch(endpoint(), {
        method: 'OPTIONS',
        headers: {
          origin: 'https://agent.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-api-key, content-type, mcp-protocol-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    });

    it('a GET asking for the event stream gets 405 (the endpoint is stateless), other GETs the manifest', async () => {
      const stream = await fetch(endpoint(), { headers: { accept: 'text/event-stream', 'x-api-key': key } });
      expect(stream.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
      await expectProblem(stream, 'method_not_allowed');
      const manifest = await fetch(endpoint(), { headers: { accept: 'application/json, text/event-stream' } });
      expect(manifest.status).toBe(200);
    });
  });
});
