import {
  ComparisonSchema,
  MCP_TOOLS,
  type McpToolCallResponse,
  McpToolCallResponseSchema,
  MethodologyResponseSchema,
  ProviderAmbiguitySchema,
  ProviderSearchResponseSchema,
  RiskIndicatorSchema,
  ScoreHistoryResponseSchema,
} from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import {
  expectInvalid,
  expectJson,
  expectProblem,
  nextLinkOf,
  PublicationsHistorySchema,
} from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import {
  CREDIT_NORD,
  CREDIT_NORD_ACCENTED,
  callTool,
  idOf,
  MCP_ON,
  mcpKey,
  NORDIC,
  publishDemo,
  SATS,
  SATS_PRO,
  SOCIETE,
  ZURICH,
} from './fixtures.js';

const StrictAmbiguity = ProviderAmbiguitySchema.strict();

describe.each(engines)('POST /api/mcp plain tool calls on %s', (engine) => {
  let key = '';
  let restKey = '';
  const server = useServer(
    engine,
    async (s) => {
      await publishDemo(s);
      key = await mcpKey(s, 'ENTERPRISE');
      restKey = await s.key('ENTERPRISE');
    },
    MCP_ON,
  );

  /** A successful call: 200 JSON, checked with the contract's response schema and the tool's output schema. */
  async function output(tool: keyof typeof MCP_TOOLS, input: unknown): Promise<McpToolCallResponse['output']> {
    const body = await expectJson(await callTool(server(), key, tool, input), McpToolCallResponseSchema);
    expect(body.tool_name).toBe(tool);
    MCP_TOOLS[tool].output.parse(body.output);
    return body.output;
  }
  const rest = async (path: string) => {
    const res = await server().get(path, { key: restKey });
    expect(res.status, path).toBe(200);
    return res.json();
  };

  describe('get_provider_score', () => {
    it('answers the REST detail of the provider whose name is given exactly', async () => {
      const out = RiskIndicatorSchema.parse(
        await output('get_provider_score', { provider_name: 'Zürich Bitcoin Kredit' }),
      );
      expect(out).toEqual(await rest(`/api/v1/scores/${idOf(ZURICH)}`));
      expect(out.name).toBe('Zürich Bitcoin Kredit');
    });

    it('ignores case and accents, and a single partial match answers', async () => {
      for (const provider_name of ['societe generale credit', 'SOCIÉTÉ', '  générale  ']) {
        const out = RiskIndicatorSchema.parse(await output('get_provider_score', { provider_name }));
        expect(out.provider_id, provider_name).toBe(idOf(SOCIETE));
      }
    });

    it('the exact folded name wins over a longer name that starts with it', async () => {
      const out = RiskIndicatorSchema.parse(
        await output('get_provider_score', { provider_name: 'example sats lending' }),
      );
      expect(out.provider_id).toBe(idOf(SATS));
      expect(out).toEqual(await rest(`/api/v1/scores/${idOf(SATS)}`));
    });

    it('a name that matches several providers answers their candidates and no score', async () => {
      const out = StrictAmbiguity.parse(await output('get_provider_score', { provider_name: 'sats' }));
      expect(out).not.toHaveProperty('final_score');
      expect(out.status).toBe('ambiguous');
      expect(out.detail).toContain('"sats" matches 2 providers');
      const [only] = out.names;
      expect(out.names).toHaveLength(1);
      expect(only?.provider_name).toBe('sats');
      expect(only?.total).toBe(2);
      expect(only?.candidates.map((c) => c.id)).toEqual([idOf(SATS), idOf(SATS_PRO)]);
      for (const c of only?.candidates ?? []) {
        const detail = RiskIndicatorSchema.parse(await rest(`/api/v1/scores/${c.id}`));
        expect(c).toEqual({
          id: detail.id,
          name: detail.name,
          final_score: detail.final_score,
          risk_band: detail.risk_band,
        });
      }
    });

    it('two providers whose names fold alike are both candidates for that name, and nothing else is', async () => {
      const out = StrictAmbiguity.parse(await output('get_provider_score', { provider_name: 'credit nord' }));
      expect(out.names[0]?.candidates.map((c) => c.id).sort()).toEqual(
        [idOf(CREDIT_NORD), idOf(CREDIT_NORD_ACCENTED)].sort(),
      );
    });

    it('a candidate id answers its provider', async () => {
      const ambiguous = StrictAmbiguity.parse(await output('get_provider_score', { provider_name: 'Crédit Nord' }));
      const accented = ambiguous.names[0]?.candidates.find((c) => c.name === 'Crédit Nord');
      const out = RiskIndicatorSchema.parse(
        await output('get_provider_score', { provider_name: accented?.id.toUpperCase() }),
      );
      expect(out.provider_id).toBe(idOf(CREDIT_NORD_ACCENTED));
    });

    it('a name that matches no provider gets 404 not_found naming the input', async () => {
      const res = await callTool(server(), key, 'get_provider_score', { provider_name: 'Nowhere Finance' });
      const problem = await expectProblem(res, 'not_found');
      expect(problem.detail).toContain('"Nowhere Finance"');
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.input.provider_name']);
    });
  });

  describe('compare_providers', () => {
    it('resolves each name and answers the REST comparison of those providers, in that order', async () => {
      const out = ComparisonSchema.strict().parse(
        await output('compare_providers', { provider_names: ['zurich', 'Société Générale', 'Nordic Yield Earn'] }),
      );
      const ids = [idOf(ZURICH), idOf(SOCIETE), idOf(NORDIC)];
      expect(out).toEqual(await rest(`/api/v1/scores/compare?ids=${ids.join(',')}`));
      expect(out.providers.map((p) => p.provider_id)).toEqual(ids);
    });

    it('an ambiguous name answers its candidates instead of a comparison', async () => {
      const out = StrictAmbiguity.parse(await output('compare_providers', { provider_names: ['zurich', 'sats'] }));
      expect(out.names.map((n) => n.provider_name)).toEqual(['sats']);
    });

    it('names that match nothing get 404 naming each of them', async () => {
      const res = await callTool(server(), key, 'compare_providers', {
        provider_names: ['nowhere one', 'zurich', 'nowhere two'],
      });
      const problem = await expectProblem(res, 'not_found');
      expect(problem.errors?.map((e) => e.path)).toEqual([
        'body.input.provider_names.0',
        'body.input.provider_names.2',
      ]);
    });

    it('two names of the same provider get 400', async () => {
      const res = await callTool(server(), key, 'compare_providers', {
        provider_names: ['Zürich Bitcoin Kredit', 'zurich'],
      });
      await expectInvalid(res, ['body.input.provider_names.1']);
    });

    it('fewer than 2 or more than 10 names get 400', async () => {
      for (const provider_names of [['zurich'], Array.from({ length: 11 }, (_, i) => `name ${i}`)]) {
        await expectInvalid(await callTool(server(), key, 'compare_providers', { provider_names }), [
          'body.input.provider_names',
        ]);
      }
    });
  });

  describe('get_score_history', () => {
    it('answers the REST history page, newest first, 10 by default', async () => {
      const out = ScoreHistoryResponseSchema.strict().parse(
        await output('get_score_history', { provider_name: 'Example Sats Lending' }),
      );
      expect(out).toEqual(await rest(`/api/v1/scores/${idOf(SATS)}/history?limit=10`));
      expect(out.data).toHaveLength(2);
      expect(out.next_cursor).toBeNull();
    });

    it('limit and cursor page through it as the REST endpoint does', async () => {
      const first = PublicationsHistorySchema.parse(
        await output('get_score_history', { provider_name: 'example sats lending', limit: 1 }),
      );
      const restFirst = await server().get(`/api/v1/scores/${idOf(SATS)}/history?limit=1`, { key: restKey });
      expect(nextLinkOf(restFirst)).not.toBeNull();
      expect(first).toEqual(await restFirst.json());
      expect(first.next_cursor).not.toBeNull();
      const second = PublicationsHistorySchema.parse(
        await output('get_score_history', {
          provider_name: 'example sats lending',
          limit: 1,
          cursor: first.next_cursor,
        }),
      );
      expect(second).toEqual(await rest(`/api/v1/scores/${idOf(SATS)}/history?limit=1&cursor=${first.next_cursor}`));
      expect(second.next_cursor).toBeNull();
      expect(second.data.map((r) => r.risk_indicator_id)).not.toEqual(first.data.map((r) => r.risk_indicator_id));
      expect((second.data[0]?.published_at ?? '') <= (first.data[0]?.published_at ?? '')).toBe(true);
    });

    it('an ambiguous name answers its candidates', async () => {
      StrictAmbiguity.parse(await output('get_score_history', { provider_name: 'example' }));
    });

    it('a bad limit or cursor gets 400 naming it', async () => {
      for (const limit of [0, 101, 1.5, '5', null]) {
        await expectInvalid(await callTool(server(), key, 'get_score_history', { provider_name: 'zurich', limit }), [
          'body.input.limit',
        ]);
      }
      // W10 is no position; {"n":2147483648} one the store's sequence column cannot hold (a 500 on PostgreSQL before).
      for (const cursor of ['W10', Buffer.from(JSON.stringify({ n: 2 ** 31 })).toString('base64url')]) {
        await expectInvalid(await callTool(server(), key, 'get_score_history', { provider_name: 'zurich', cursor }), [
          'body.input.cursor',
        ]);
      }
    });
  });

  describe('search_providers', () => {
    it('answers the REST search for the same text', async () => {
      const out = ProviderSearchResponseSchema.strict().parse(await output('search_providers', { query: 'sats' }));
      expect(out).toEqual(await rest('/api/v1/providers/search?q=sats'));
      expect(out.data.map((m) => m.id)).toEqual([idOf(SATS), idOf(SATS_PRO)]);
    });

    it('filters by planner type as the REST search does', async () => {
      const out = ProviderSearchResponseSchema.parse(
        await output('search_providers', { query: 'e', planner_type: 'fiat' }),
      );
      expect(out).toEqual(await rest('/api/v1/providers/search?q=e&planner_type=fiat'));
      expect(out.data.length).toBeGreaterThan(0);
      for (const m of out.data) expect(m.planner_type).toBe('fiat');
    });

    it('a bad planner type or an empty query gets 400', async () => {
      await expectInvalid(await callTool(server(), key, 'search_providers', { query: 'a', planner_type: 'gold' }), [
        'body.input.planner_type',
      ]);
      await expectInvalid(await callTool(server(), key, 'search_providers', { query: '   ' }), ['body.input.query']);
    });
  });

  describe('get_methodology', () => {
    it('answers the REST methodology, the framework in force by default', async () => {
      const out = MethodologyResponseSchema.parse(await output('get_methodology', {}));
      expect(out).toEqual(await rest('/api/v1/methodology'));
      for (const version of ['1.0', 'v1.0', 'DCRF v1.0']) {
        expect(await output('get_methodology', { version })).toEqual(await rest('/api/v1/methodology?version=1.0'));
      }
    });

    it('an unknown version gets 400 listing the supported ones', async () => {
      const problem = await expectInvalid(await callTool(server(), key, 'get_methodology', { version: '9.9' }), [
        'body.input.version',
      ]);
      expect(problem.errors?.[0]?.message).toBe('must be one of 1.0');
      expect(problem.detail).toContain('supported: 1.0');
    });
  });

  describe('bad input', () => {
    const send = (body: unknown) => server().send('POST', '/api/mcp', body, key);

    it('an unknown tool gets 400 listing the tools', async () => {
      const problem = await expectInvalid(await send({ tool_name: 'delete_everything', input: {} }), [
        'body.tool_name',
      ]);
      expect(problem.errors?.[0]?.message).toBe(`must be one of ${Object.keys(MCP_TOOLS).join(', ')}`);
    });

    it('a missing or non-object input, and unknown fields, get 400 naming each', async () => {
      await expectInvalid(await send({ tool_name: 'get_provider_score' }), ['body.input']);
      await expectInvalid(await send({ tool_name: 'get_provider_score', input: 'zurich' }), ['body.input']);
      await expectInvalid(await send({ tool_name: 'get_provider_score', input: {} }), ['body.input.provider_name']);
      await expectInvalid(await send({ tool_name: 'get_provider_score', input: { provider_name: 'x', extra: 1 } }), [
        'body.input.extra',
      ]);
      await expectInvalid(await send({ tool_name: 'get_methodology', input: {}, verbose: true }), ['body.verbose']);
      await expectInvalid(await send({}), ['body.tool_name', 'body.input']);
    });

    it('wrong types get 400 naming the field', async () => {
      await expectInvalid(await send({ tool_name: 'get_provider_score', input: { provider_name: 7 } }), [
        'body.input.provider_name',
      ]);
      await expectInvalid(await send({ tool_name: 'compare_providers', input: { provider_names: 'a,b' } }), [
        'body.input.provider_names',
      ]);
      await expectInvalid(await send({ tool_name: 7, input: {} }), ['body.tool_name']);
      await expectInvalid(await send({ tool_name: 'get_provider_score', input: { provider_name: 'x'.repeat(201) } }), [
        'body.input.provider_name',
      ]);
    });

    it('odd bodies never get a 5xx', async () => {
      const bodies: (string | Uint8Array)[] = [
        '',
        '{',
        'null',
        '[]',
        '[[]]',
        '[null]',
        '"get_provider_score"',
        '42',
        '{"tool_name":null,"input":null}',
        '{"tool_name":"get_provider_score","input":{"provider_name":"\\ud800"}}',
        '{"tool_name":"get_provider_score","input":{"provider_name":"a\\u0000b"}}',
        '{"tool_name":"get_provider_score","input":{"__proto__":{"provider_name":"zurich"}}}',
        '{"tool_name":"get_provider_score","input":{"provider_name":"%"}}',
        '{"tool_name":"get_provider_score","input":{"provider_name":".*"}}',
        '{"tool_name":"get_score_history","input":{"provider_name":"zurich","limit":1e400}}',
        '{"tool_name":"get_score_history","input":{"provider_name":"zurich","limit":10.000000000000000001}}',
        `{"tool_name":"search_providers","input":{"query":"${'x'.repeat(70_000)}"}}`,
        `{"tool_name":"compare_providers","input":{"provider_names":[${'"a",'.repeat(5000)}"b"]}}`,
        `{"tool_name":"get_methodology","input":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
        '{"jsonrpc":"2.0"}',
        '{"jsonrpc":2}',
        '{"jsonrpc":"2.0","method":"tools/call","id":1,"params":"x"}',
        new Uint8Array([0x7b, 0xff, 0x7d]),
      ];
      for (const body of bodies) {
        const res = await fetch(`${server().url}/api/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'x-api-key': key,
          },
          body,
        });
        const text = await res.text();
        expect(res.status, `${String(body).slice(0, 80)} -> ${text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status, String(body).slice(0, 80)).toBeLessThan(500);
      }
    });

    it('a body over 64 KiB gets 413 and one not JSON gets 415', async () => {
      const big = { tool_name: 'search_providers', input: { query: 'x'.repeat(70_000) } };
      await expectProblem(await send(big), 'payload_too_large');
      const res = await fetch(`${server().url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-api-key': key },
        body: '{"tool_name":"get_methodology","input":{}}',
      });
      await expectProblem(res, 'unsupported_media_type');
    });
  });
});
