import { MCP_SERVER_INFO, MCP_TOOLS, McpManifestSchema, RATING_ACTION_TYPES } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectJson, expectNoLimitHeaders } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { MCP_ON } from './fixtures.js';

describe.each(engines)('GET /api/mcp, the agent tool manifest, on %s', (engine) => {
  const server = useServer(engine, async () => {}, MCP_ON);

  it('names the server, says preview and enabled, and lists the six tools', async () => {
    const res = await server().get('/api/mcp');
    const manifest = await expectJson(res, McpManifestSchema.strict());
    expectNoLimitHeaders(res);
    expect(manifest).toMatchObject({ ...MCP_SERVER_INFO, status: 'preview', enabled: true });
    expect(manifest.tools.map((t) => t.name)).toEqual([
      'get_provider_score',
      'compare_providers',
      'get_score_history',
      'search_providers',
      'get_methodology',
      'get_rating_actions',
    ]);
  });

  it('each input_schema is the JSON Schema of the zod schema the tool checks its input with', async () => {
    const manifest = await expectJson(await server().get('/api/mcp'), McpManifestSchema);
    for (const tool of manifest.tools) {
      const contract = MCP_TOOLS[tool.name];
      expect(tool.description).toBe(contract.description);
      expect(tool.input_schema, tool.name).toEqual(z.toJSONSchema(contract.input, { io: 'input' }));
    }
  });

  it('the schemas are strict objects naming what is required, with the bounds the tools enforce', async () => {
    const manifest = await expectJson(await server().get('/api/mcp'), McpManifestSchema);
    const schemaOf = (name: string) =>
      manifest.tools.find((t) => t.name === name)?.input_schema as {
        type: string;
        additionalProperties: boolean;
        required?: string[];
        properties: Record<string, Record<string, unknown>>;
      };
    for (const tool of manifest.tools) {
      expect(schemaOf(tool.name).type).toBe('object');
      expect(schemaOf(tool.name).additionalProperties).toBe(false);
    }
    expect(schemaOf('get_provider_score').required).toEqual(['provider_name']);
    expect(schemaOf('compare_providers').properties.provider_names).toMatchObject({ minItems: 2, maxItems: 10 });
    expect(schemaOf('get_score_history').required).toEqual(['provider_name']);
    expect(schemaOf('get_score_history').properties.limit).toMatchObject({ default: 10, minimum: 1, maximum: 100 });
    expect(schemaOf('search_providers').properties.planner_type).toMatchObject({ enum: ['btc', 'fiat', 'stablecoin'] });
    expect(schemaOf('get_methodology').required ?? []).toEqual([]);
    expect(schemaOf('get_rating_actions').required ?? []).toEqual([]);
    expect(schemaOf('get_rating_actions').properties.limit).toMatchObject({ default: 20, minimum: 1, maximum: 100 });
    expect(schemaOf('get_rating_actions').properties.type).toMatchObject({ enum: [...RATING_ACTION_TYPES] });
    expect(schemaOf('get_rating_actions').properties.type?.enum).toHaveLength(9);
  });

  it('llms.txt describes the preview and names the six tools', async () => {
    const text = await (await server().get('/llms.txt')).text();
    expect(text).toContain('## Agent tools (preview)');
    expect(text).toContain(`${server().url}/api/mcp`);
    for (const name of Object.keys(MCP_TOOLS)) expect(text).toContain(`- \`${name}\`: `);
  });

  it('answers HEAD without a body and refuses other methods than GET and POST with 405', async () => {
    const head = await server().get('/api/mcp', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await server().get('/api/mcp', { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
      await res.body?.cancel();
    }
  });
});
