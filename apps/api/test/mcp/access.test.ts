import { McpManifestSchema, McpToolCallResponseSchema, TIER_HOURLY_LIMIT } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { ctxOf } from '../support/context.js';
import { expectJson, expectNoLimitHeaders, expectProblem, limitHeadersOf } from '../support/responses.js';
import { expiredKey, revoke, UNKNOWN_KEY, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { enableAgentTools } from '../support/terms.js';
import { callTool, MCP_ON, mcpKey, publishDemo, ZURICH } from './fixtures.js';

const SCORE = { provider_name: ZURICH.provider.name };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
};

describe.each(engines)('agent tools: keys, tiers, the preview gate and the hourly limit on %s', (engine) => {
  const server = useServer(engine, publishDemo, MCP_ON);
  const rpc = (key: string | undefined, body: unknown) =>
    fetch(`${server().url}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(key ? { 'x-api-key': key } : {}),
      },
      body: JSON.stringify(body),
    });

  it('a tool call without a key gets 401 missing_api_key and spends nothing', async () => {
    for (const res of [
      await callTool(server(), undefined, 'get_provider_score', SCORE),
      await rpc(undefined, INITIALIZE),
    ]) {
      await expectProblem(res, 'missing_api_key');
      expectNoLimitHeaders(res);
    }
  });

  it('an unknown, revoked or expired key gets 401 invalid_api_key, as a tool call and over JSON-RPC', async () => {
    const revoked = await mcpKey(server());
    expect((await callTool(server(), revoked, 'get_provider_score', SCORE)).status).toBe(200);
    await revoke(server(), revoked);
    const expired = await expiredKey(server(), 'PROFESSIONAL');
    for (const key of [UNKNOWN_KEY, revoked, expired]) {
      for (const res of [await callTool(server(), key, 'get_provider_score', SCORE), await rpc(key, INITIALIZE)]) {
        await expectProblem(res, 'invalid_api_key');
        expectNoLimitHeaders(res);
      }
    }
  });

  it('a FREE key gets 403 insufficient_tier naming PROFESSIONAL, even in an enabled workspace', async () => {
    const key = await mcpKey(server(), 'FREE');
    for (const res of [await callTool(server(), key, 'get_provider_score', SCORE), await rpc(key, INITIALIZE)]) {
      const problem = await expectProblem(res, 'insufficient_tier');
      expect(problem.required_tier).toBe('PROFESSIONAL');
      expectNoLimitHeaders(res);
    }
  });

  for (const tier of ['PROFESSIONAL', 'ENTERPRISE', 'CUSTOM'] as const) {
    it(`a ${tier} key of an enabled workspace gets 200 with its hourly limit in the headers`, async () => {
      const key = await mcpKey(server(), tier);
      const res = await callTool(server(), key, 'get_provider_score', SCORE);
      const limit = TIER_HOURLY_LIMIT[tier];
      const h = limitHeadersOf(res);
      await expectJson(res, McpToolCallResponseSchema);
      expect(h.policy).toBe(`"hour";q=${limit};w=3600`);
      expect(h.rateLimit).toMatch(new RegExp(`^"hour";r=${limit - 1};t=\\d+$`));
      expect(h.remaining).toBe(limit - 1);
    });
  }

  it('a key whose workspace is not enabled gets 403 mcp_not_enabled naming the workspace, and spends nothing', async () => {
    const issued = await server().issueKey('ENTERPRISE');
    for (const res of [
      await callTool(server(), issued.key, 'get_provider_score', SCORE),
      await rpc(issued.key, INITIALIZE),
    ]) {
      const problem = await expectProblem(res, 'mcp_not_enabled');
      expect(problem.detail).toContain(`for workspace ${issued.workspaceId}`);
      expect(problem.detail).toContain('enable-mcp');
      expect(problem.detail).not.toContain('SVC_MCP_ENABLED');
      expectNoLimitHeaders(res);
    }
    // The REST routes of the tier are not gated: the key itself is fine.
    expect((await server().get('/api/v1/methodology', { key: issued.key })).status).toBe(200);
    await enableAgentTools(ctxOf(server().services.store), issued.workspaceId);
    const res = await callTool(server(), issued.key, 'get_provider_score', SCORE);
    expect(res.status).toBe(200);
    expect(limitHeadersOf(res).remaining).toBe(TIER_HOURLY_LIMIT.ENTERPRISE - 2);
  });

  it("every call spends one request of the key's hourly limit, refused and ambiguous ones included", async () => {
    const key = await mcpKey(server());
    const limit = TIER_HOURLY_LIMIT.PROFESSIONAL;
    const calls = [
      () => callTool(server(), key, 'get_provider_score', SCORE),
      () => callTool(server(), key, 'get_provider_score', { provider_name: 'sats' }),
      () => callTool(server(), key, 'get_provider_score', { provider_name: 'Nowhere Finance' }),
      () => callTool(server(), key, 'get_methodology', { version: 7 }),
      () => callTool(server(), key, 'search_providers', { query: 'nord' }),
      () => rpc(key, INITIALIZE),
      () => rpc(key, { jsonrpc: '2.0', method: 'notifications/initialized' }),
      () =>
        rpc(key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_methodology', arguments: {} } }),
    ];
    const remaining: (number | null)[] = [];
    for (const call of calls) {
      const res = await call();
      remaining.push(limitHeadersOf(res).remaining);
      await res.body?.cancel();
    }
    expect(remaining).toEqual(calls.map((_, i) => limit - 1 - i));
  });

  it('a spent limit gets 429 rate_limited with Retry-After, for plain calls and MCP alike', async () => {
    const pro = await server().issueKey('PROFESSIONAL');
    await enableAgentTools(ctxOf(server().services.store), pro.workspaceId);
    // Spend the whole budget through the limiter the routes use, under the key's bucket.
    const bucket = `key:${pro.keyId}`;
    for (let i = 0; i < TIER_HOURLY_LIMIT.PROFESSIONAL; i++) {
      await server().services.limiter.consume(bucket, TIER_HOURLY_LIMIT.PROFESSIONAL, 3600);
    }
    for (const res of [await callTool(server(), pro.key, 'get_methodology', {}), await rpc(pro.key, INITIALIZE)]) {
      const problem = await expectProblem(res, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(problem.retry_after_seconds).toBeGreaterThan(0);
      expect(limitHeadersOf(res).remaining).toBe(0);
    }
  });

  it('the manifest is public, needs no key and spends nothing', async () => {
    const res = await server().get('/api/mcp');
    const manifest = await expectJson(res, McpManifestSchema.strict());
    expect(manifest.enabled).toBe(true);
    expectNoLimitHeaders(res);
  });
});

describe.each(engines)('agent tools on a server without SVC_MCP_ENABLED (%s)', (engine) => {
  const server = useServer(engine, publishDemo);

  it('an enabled workspace still gets 403 mcp_not_enabled naming SVC_MCP_ENABLED, for plain calls and MCP', async () => {
    const key = await mcpKey(server());
    const plain = await callTool(server(), key, 'get_provider_score', SCORE);
    const problem = await expectProblem(plain, 'mcp_not_enabled');
    expect(problem.detail).toContain('on this server (SVC_MCP_ENABLED is not true)');
    expect(problem.detail).not.toContain('for workspace');
    expectNoLimitHeaders(plain);
    const rpc = await fetch(`${server().url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify(INITIALIZE),
    });
    await expectProblem(rpc, 'mcp_not_enabled');
  });

  it('a workspace that is not enabled either is told both', async () => {
    const key = await server().key('PROFESSIONAL');
    const problem = await expectProblem(await callTool(server(), key, 'get_methodology', {}), 'mcp_not_enabled');
    expect(problem.detail).toContain('SVC_MCP_ENABLED');
    expect(problem.detail).toContain('enable-mcp');
  });

  it('the manifest is still served, with enabled: false', async () => {
    const manifest = await expectJson(await server().get('/api/mcp'), McpManifestSchema.strict());
    expect(manifest.status).toBe('preview');
    expect(manifest.enabled).toBe(false);
    expect(manifest.tools).toHaveLength(6);
  });
});
