import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpManifestSchema, McpResourceReadResponseSchema } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJson, expectProblem } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { MCP_ON, mcpKey } from './fixtures.js';

/** The published specification, as committed: the methodology resource must be these bytes. */
const SPECIFICATION = readFileSync(new URL('../../../../docs/methodology/dcrf-1.0.md', import.meta.url), 'utf8');
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe.each(engines)('the methodology and frameworks as agent resources, on %s', (engine) => {
  let key = '';
  let client: Client;
  const server = useServer(
    engine,
    async (s) => {
      key = await mcpKey(s);
    },
    MCP_ON,
  );
  const read = (resource_uri: unknown) => server().send('POST', '/api/mcp', { resource_uri }, key);

  beforeAll(async () => {
    client = new Client({ name: 'svc-test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server().url}/api/mcp`), {
        requestInit: { headers: { 'x-api-key': key } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it('the manifest lists the released frameworks as resources, and the two templates', async () => {
    const manifest = await expectJson(await server().get('/api/mcp'), McpManifestSchema.strict());
    expect(manifest.resources.map((r) => [r.uri, r.mime_type])).toEqual([
      ['svc://frameworks', 'application/json'],
      ['svc://frameworks/1.0', 'application/json'],
      ['svc://methodology/1.0', 'text/markdown'],
    ]);
    expect(manifest.resource_templates.map((t) => t.uri_template)).toEqual([
      'svc://frameworks/{version}',
      'svc://methodology/{version}',
    ]);
  });

  it('a plain read of a framework answers the bytes the public route serves, whose hash is framework_sha256', async () => {
    const answer = await expectJson(await read('svc://frameworks/1.0'), McpResourceReadResponseSchema.strict());
    const route = Buffer.from(await (await server().get('/api/public/frameworks/1.0')).arrayBuffer());
    const listed = (await (await server().get('/api/public/frameworks')).json()) as {
      data: { version: string; framework_sha256: string }[];
    };
    expect(answer.mime_type).toBe('application/json');
    expect(Buffer.from(answer.text, 'utf8').equals(route)).toBe(true);
    expect(answer.sha256).toBe(sha256(route));
    expect(answer.sha256).toBe(listed.data.find((f) => f.version === '1.0')?.framework_sha256);
  });

  it('a plain read of the methodology answers the committed specification, byte for byte', async () => {
    const answer = await expectJson(await read('svc://methodology/1.0'), McpResourceReadResponseSchema.strict());
    expect(answer).toEqual({
      resource_uri: 'svc://methodology/1.0',
      mime_type: 'text/markdown',
      sha256: sha256(SPECIFICATION),
      text: SPECIFICATION,
    });
  });

  it('a plain read of the list answers what GET /api/public/frameworks serves', async () => {
    const answer = await expectJson(await read('svc://frameworks'), McpResourceReadResponseSchema.strict());
    expect(JSON.parse(answer.text)).toEqual(await (await server().get('/api/public/frameworks')).json());
  });

  it('an unknown resource or version is 404 naming it; a bad body is 400 naming the field; nothing without a key', async () => {
    for (const uri of ['svc://frameworks/9.9', 'svc://methodology/', 'svc://nothing', 'https://example.com/x']) {
      const problem = await expectProblem(await read(uri), 'not_found');
      expect(problem.detail).toContain(JSON.stringify(uri));
    }
    expect((await expectProblem(await read('svc://frameworks/9.9'), 'not_found')).detail).toContain('released: 1.0');
    for (const bad of ['', 'x'.repeat(201), 7, null]) {
      const problem = await expectProblem(await read(bad), 'invalid_request');
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.resource_uri']);
    }
    const extra = await server().send('POST', '/api/mcp', { resource_uri: 'svc://frameworks', input: {} }, key);
    expect((await expectProblem(extra, 'invalid_request')).errors?.map((e) => e.path)).toEqual(['body.input']);
    const anonymous = await server().send('POST', '/api/mcp', { resource_uri: 'svc://frameworks' });
    await expectProblem(anonymous, 'missing_api_key');
  });

  it('over MCP: resources/list, resources/templates/list and resources/read answer the same', async () => {
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['svc://frameworks', 'svc://frameworks/1.0', 'svc://methodology/1.0']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType])).toEqual([
      ['svc://frameworks/{version}', 'application/json'],
      ['svc://methodology/{version}', 'text/markdown'],
    ]);
    const { contents } = await client.readResource({ uri: 'svc://methodology/1.0' });
    expect(contents).toEqual([{ uri: 'svc://methodology/1.0', mimeType: 'text/markdown', text: SPECIFICATION }]);
    const framework = await client.readResource({ uri: 'svc://frameworks/1.0' });
    const text = framework.contents[0] && 'text' in framework.contents[0] ? framework.contents[0].text : '';
    expect(sha256(String(text))).toBe(
      (await expectJson(await read('svc://frameworks/1.0'), McpResourceReadResponseSchema)).sha256,
    );
  });

  it('over MCP: an unknown resource is the specification’s resource-not-found error (-32002), naming it', async () => {
    const error = await client.readResource({ uri: 'svc://frameworks/2.5' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
    expect((error as McpError).message).toContain('"svc://frameworks/2.5"');
  });
});
