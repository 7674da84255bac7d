import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  MCP_TOOLS,
  McpToolCallResponseSchema,
  ProviderAmbiguitySchema,
  type RatingAction,
  RatingActionsResponseSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { approveRatingActions, proposeWatch } from '../../src/services/rating-actions/rating-actions.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { DEMO, idOf, MCP_ON, mcpKey, NORDIC, SATS, SATS_PRO, ZURICH } from './fixtures.js';

/**
 * The sixth agent tool, get_rating_actions: the public rating-action feed for the same filters, as a plain call and
 * over the MCP SDK client; names resolved as get_provider_score resolves them; refusals naming the argument.
 */

const FeedSchema = RatingActionsResponseSchema.strict();
const StrictAmbiguity = ProviderAmbiguitySchema.strict();
const FEED = '/api/public/rating-actions';
const MINUTE = 60_000;

describe.each(engines)('the get_rating_actions tool on %s', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  let key = '';
  let client: Client;
  /** An instant after the first four publications, before the rest. */
  let midway = '';
  const server = useServer(
    engine,
    async (s) => {
      for (const [i, doc] of DEMO.entries()) {
        clock.advance(MINUTE);
        await publish(s, doc);
        if (i === 3) midway = new Date(clock.now().getTime() + 1).toISOString();
      }
      const { store } = s.services;
      const ann = ctxOf(store, { clock, by: 'Ann Analyst' });
      const bea = ctxOf(store, { clock, by: 'Bea Approver' });
      clock.advance(MINUTE);
      const watch = await proposeWatch(ann, {
        providerId: idOf(ZURICH),
        direction: 'NEGATIVE',
        reviewBy: '2026-09-01',
        rationale: 'custody attestation late',
      });
      clock.advance(MINUTE);
      await approveRatingActions(bea, { ids: [watch.id] });
      clock.advance(MINUTE);
      await withdrawProvider(bea, { providerId: idOf(NORDIC), reason: 'coverage ended' });
      s.services.snapshot.invalidate();
      key = await mcpKey(s, 'ENTERPRISE');
    },
    { ...MCP_ON, clock },
  );

  beforeAll(async () => {
    client = new Client({ name: 'svc-test-agent', version: '1.0.0' });
    const endpoint = new URL(`${server().url}/api/mcp`);
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { 'x-api-key': key } } }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  /** The public feed for a query string. */
  const feed = async (query: string) => expectJson(await server().get(`${FEED}?${query}`), FeedSchema);
  /** A plain call's output, checked with the contract's response schema and the tool's output schema. */
  const plain = async (input: unknown) => {
    const res = await server().send('POST', '/api/mcp', { tool_name: 'get_rating_actions', input }, key);
    const body = await expectJson(res, McpToolCallResponseSchema);
    expect(body.tool_name).toBe('get_rating_actions');
    return MCP_TOOLS.get_rating_actions.output.parse(body.output);
  };
  const plainRefusal = (input: unknown) =>
    server().send('POST', '/api/mcp', { tool_name: 'get_rating_actions', input }, key);
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'get_rating_actions', arguments: args })) as CallToolResult;
  /** A successful tools/call: the structured content equals the JSON text, which is the output. */
  const overMcp = async (args: Record<string, unknown>) => {
    const result = await call(args);
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const [first] = result.content;
    const parsed = JSON.parse(first?.type === 'text' ? first.text : 'null');
    expect(result.structuredContent).toEqual(parsed);
    return MCP_TOOLS.get_rating_actions.output.parse(parsed);
  };
  const mcpRefusal = async (args: Record<string, unknown>) => {
    const result = await call(args);
    expect(result.isError).toBe(true);
    const [first] = result.content;
    return JSON.parse(first?.type === 'text' ? first.text : 'null') as {
      code: string;
      detail: string;
      errors?: { path: string; message: string }[];
    };
  };
  const both = async (input: Record<string, unknown>) => {
    const [a, b] = [await plain(input), await overMcp(input)];
    expect(b).toEqual(a);
    return FeedSchema.parse(a);
  };

  it('without filters answers the feed, 20 newest first by default, on both front ends', async () => {
    const out = await both({});
    expect(out).toEqual(await feed('limit=20'));
    const everything = await feed('limit=500');
    expect(everything.data.map((a) => a.type)).toEqual([
      'WITHDRAW',
      'WATCH_PLACED',
      ...[...DEMO.keys()].reverse().map((i) => (i === 1 ? 'AFFIRM' : 'NEW')),
    ]);
    expect(everything.data[1]?.provider_id).toBe(idOf(ZURICH));
    expect(await both({ limit: 100 })).toEqual({ data: everything.data, next_cursor: null });
  });

  it("a provider's name answers that provider's actions as the feed filtered by its id", async () => {
    for (const provider_name of ['Example Sats Lending', 'EXAMPLE SATS LENDING', idOf(SATS).toUpperCase()]) {
      const out = await both({ provider_name });
      expect(out, provider_name).toEqual(await feed(`provider_id=${idOf(SATS)}&limit=20`));
      expect(out.data.map((a) => a.type)).toEqual(['AFFIRM', 'NEW']);
    }
    const zurich = await both({ provider_name: 'zurich', type: 'WATCH_PLACED' });
    expect(zurich).toEqual(await feed(`provider_id=${idOf(ZURICH)}&type=WATCH_PLACED&limit=20`));
    expect(zurich.data).toHaveLength(1);
    expect(zurich.data[0]).toMatchObject({ watch: { direction: 'NEGATIVE' }, approved_by: 'Bea Approver' });
  });

  it('type and since filter as the feed does', async () => {
    for (const type of ['NEW', 'AFFIRM', 'WITHDRAW', 'WATCH_PLACED', 'DOWNGRADE']) {
      const out = await both({ type });
      expect(out, type).toEqual(await feed(`type=${type}&limit=20`));
      for (const a of out.data) expect(a.type).toBe(type);
    }
    expect((await both({ type: 'DOWNGRADE' })).data).toEqual([]);
    const later = await both({ since: midway });
    expect(later).toEqual(await feed(`since=${midway}&limit=20`));
    expect(later.data.length).toBeGreaterThan(0);
    expect(later.data.length).toBeLessThan((await feed('limit=500')).data.length);
    for (const a of later.data) expect(a.effective_at >= midway).toBe(true);
    const day = AFTER_EXAMPLES.slice(0, 10);
    expect(await both({ since: day, type: 'NEW', limit: 3 })).toEqual(await feed(`since=${day}&type=NEW&limit=3`));
    expect((await both({ since: '2027-01-01' })).data).toEqual([]);
  });

  it('limit and cursor page through the feed as it pages itself', async () => {
    const seen: RatingAction[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const input = { limit: 3, ...(cursor ? { cursor } : {}) };
      const out = await both(input);
      expect(out).toEqual(await feed(`limit=3${cursor ? `&cursor=${cursor}` : ''}`));
      expect(out.data.length).toBeLessThanOrEqual(3);
      seen.push(...out.data);
      cursor = out.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(seen.length / 3));
    expect(seen).toEqual((await feed('limit=500')).data);
    // A filtered page's cursor serves the next page of the same filter.
    const first = await both({ provider_name: 'example sats lending', limit: 1 });
    expect(first.next_cursor).not.toBeNull();
    const second = await both({ provider_name: 'example sats lending', limit: 1, cursor: first.next_cursor });
    expect(second).toEqual(await feed(`provider_id=${idOf(SATS)}&limit=1&cursor=${first.next_cursor}`));
    expect(second.data.map((a) => a.type)).toEqual(['NEW']);
    expect(second.next_cursor).toBeNull();
  });

  it('an ambiguous name answers its candidates and no actions', async () => {
    const plainOut = StrictAmbiguity.parse(await plain({ provider_name: 'sats', type: 'NEW' }));
    expect(await overMcp({ provider_name: 'sats', type: 'NEW' })).toEqual(plainOut);
    expect(plainOut).not.toHaveProperty('data');
    expect(plainOut.names[0]?.total).toBe(2);
    expect(plainOut.names[0]?.candidates.map((c) => c.id)).toEqual([idOf(SATS), idOf(SATS_PRO)]);
  });

  it('a name that matches no provider, or only a withdrawn one, is not_found naming the argument', async () => {
    for (const provider_name of ['Nowhere Finance', 'Nordic Yield Earn']) {
      const problem = await expectProblem(await plainRefusal({ provider_name }), 'not_found');
      expect(problem.detail).toContain(`"${provider_name}"`);
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.input.provider_name']);
      const refusal = await mcpRefusal({ provider_name });
      expect(refusal.code).toBe('not_found');
      expect(refusal.errors?.map((e) => e.path)).toEqual(['arguments.provider_name']);
    }
    // The withdrawn provider's actions are still in the list, under its id.
    const withdrawals = await both({ type: 'WITHDRAW' });
    expect(withdrawals.data.map((a) => a.provider_name)).toEqual(['Nordic Yield Earn']);
  });

  it('bad arguments are 400 naming body.input.<field> (plain) and tool errors naming arguments.<field> (MCP)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'UPGRADED' }, 'type'],
      [{ type: 'upgrade' }, 'type'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
      [{ limit: '5' }, 'limit'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: '2026-02-30' }, 'since'],
      [{ since: '2026-06-01T12:00:00+02:00' }, 'since'],
      [{ cursor: 'W10' }, 'cursor'],
      [{ cursor: 'not a cursor!' }, 'cursor'],
      // {"n":2147483648}: one more than the store's sequence column holds (a 500 on PostgreSQL before).
      [{ cursor: Buffer.from(JSON.stringify({ n: 2 ** 31 })).toString('base64url') }, 'cursor'],
      [{ provider_name: '   ' }, 'provider_name'],
      [{ provider_id: idOf(SATS) }, 'provider_id'],
      [{ as_of: '2026-08-01' }, 'as_of'],
    ];
    for (const [input, field] of cases) {
      await expectInvalid(await plainRefusal(input), [`body.input.${field}`]);
      const refusal = await mcpRefusal(input);
      expect(refusal.code, JSON.stringify(input)).toBe('invalid_request');
      expect(
        refusal.errors?.map((e) => e.path),
        JSON.stringify(input),
      ).toEqual([`arguments.${field}`]);
    }
    const unknown = await mcpRefusal({ provider_id: idOf(SATS) });
    expect(unknown.errors?.[0]?.message).toBe('is not an argument of this tool');
  });
});
