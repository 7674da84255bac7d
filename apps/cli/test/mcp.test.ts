import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ChangelogResponseSchema,
  ComparisonSchema,
  HistoryPublicationSchema,
  MCP_SERVER_INFO,
  MethodologyResponseSchema,
  ProviderAmbiguitySchema,
  ProviderSearchResponseSchema,
  type PublicScore,
  PublicScoresResponseSchema,
  type RatingAction,
  RatingActionsResponseSchema,
  RiskIndicatorSchema,
  ScoreHistoryResponseSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptTerms, type Env, embedded, type Served, serve, svcIn, svcJsonIn } from './operations.js';
import { STACK_FRAME } from './svc.js';

/** A history of publications only (no withdrawal in it). */
const PublicationsHistory = ScoreHistoryResponseSchema.extend({ data: HistoryPublicationSchema.array() });

/** The six agent tools the issues name, in the order the server lists them. */
const TOOL_NAMES = [
  'get_provider_score',
  'compare_providers',
  'get_score_history',
  'search_providers',
  'get_methodology',
  'get_rating_actions',
];

/** A migrated, demo-seeded store with a PROFESSIONAL key in a new workspace, enabled for MCP when asked. */
async function workspaceWithKey(vars: Env, enableMcp: boolean): Promise<{ workspaceId: string; key: string }> {
  const workspace = await svcJsonIn<{ workspace_id: string }>(vars, 'workspace', 'create', 'Agent');
  expect(workspace.status, workspace.stderr).toBe(0);
  const workspaceId = workspace.json.workspace_id;
  // Keys need the API terms accepted; agent tools the preview terms too.
  await acceptTerms(vars, workspaceId, { preview: enableMcp });
  if (enableMcp) {
    const enabled = await svcJsonIn(vars, 'workspace', 'enable-mcp', workspaceId);
    expect(enabled.status, enabled.stderr).toBe(0);
    expect(enabled.json).toEqual({ workspace_id: workspaceId, mcp_enabled: true });
  }
  const key = await svcJsonIn<{ key: string }>(
    vars,
    'key',
    'create',
    '--workspace',
    workspaceId,
    '--tier',
    'PROFESSIONAL',
  );
  expect(key.status, key.stderr).toBe(0);
  return { workspaceId, key: key.json.key };
}

async function seededStore(): Promise<Env> {
  const vars = await embedded();
  const seeded = await svcIn(vars, 'db', 'seed', '--demo');
  expect(seeded.status, seeded.stderr).toBe(0);
  return vars;
}

/** An agent: the SDK client over streamable HTTP, with the key on every request. */
async function connectAgent(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'svc-cli-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful tool answer: the JSON text, which the structured content repeats. */
function outputOf(result: CallToolResult): unknown {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const [first] = result.content;
  expect(first?.type).toBe('text');
  const parsed: unknown = JSON.parse(first?.type === 'text' ? first.text : 'null');
  expect(result.structuredContent).toEqual(parsed);
  return parsed;
}

async function getJson(url: string, key?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: key === undefined ? {} : { 'x-api-key': key } });
  return { status: response.status, body: await response.json() };
}

/** A tool call sent as one JSON-RPC message, as a stateless MCP client may send it without initialize. */
async function postToolCall(url: string, key: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_methodology', arguments: { version: '1.0' } },
    }),
  });
  return { status: response.status, body: await response.json() };
}

async function publicScores(url: string): Promise<PublicScore[]> {
  const { status, body } = await getJson(`${url}/api/public/scores`);
  expect(status).toBe(200);
  return PublicScoresResponseSchema.parse(body).data;
}

const lower = (text: string) => text.toLowerCase();
const firstWord = (name: string) => lower(name.split(' ')[0] ?? name);

describe('an MCP SDK agent against svc serve with SVC_MCP_ENABLED=true', () => {
  let vars: Env;
  let served: Served;
  let client: Client;
  let key = '';
  let scores: PublicScore[] = [];
  let off: { workspaceId: string; key: string };

  const rest = async (path: string) => {
    const { status, body } = await getJson(`${served.url}${path}`, key);
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  };
  /** The public list's entry for a provider: what every answer's score and band must agree with. */
  const listed = (id: string) => {
    const found = scores.find((s) => s.id === id);
    expect(found, `provider ${id} in /api/public/scores`).toBeDefined();
    return found as PublicScore;
  };

  beforeAll(async () => {
    vars = await seededStore();
    key = (await workspaceWithKey(vars, true)).key;
    off = await workspaceWithKey(vars, false);
    served = await serve({ ...vars, SVC_MCP_ENABLED: 'true' }, '--port', '0', '--json');
    client = await connectAgent(served.url, key);
    scores = await publicScores(served.url);
  });

  afterAll(async () => {
    await client?.close();
    // Missing when beforeAll failed; already exited after the SIGTERM test.
    if (served?.child.exitCode === null) served.child.kill('SIGKILL');
  });

  it('connects and is told the server it reached', () => {
    expect(client.getServerVersion()).toMatchObject(MCP_SERVER_INFO);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('tools/list returns exactly the six tools, each with a description and an object input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\S/);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
    const required = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.required ?? []]));
    expect(required).toEqual({
      get_provider_score: ['provider_name'],
      compare_providers: ['provider_names'],
      get_score_history: ['provider_name'],
      search_providers: ['query'],
      get_methodology: [],
      get_rating_actions: [],
    });
    const properties = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
    expect(properties).toEqual({
      get_provider_score: ['provider_name', 'as_of'],
      compare_providers: ['provider_names'],
      get_score_history: ['provider_name', 'limit', 'cursor'],
      search_providers: ['query', 'planner_type'],
      get_methodology: ['version'],
      get_rating_actions: ['provider_name', 'type', 'since', 'limit', 'cursor'],
    });
  });

  it('get_provider_score with part of a name, in another case, answers the REST indicator of that provider', async () => {
    // A first word only one provider's name starts with, so the partial name resolves to it alone.
    const target = scores.find((s) => scores.filter((o) => firstWord(o.name) === firstWord(s.name)).length === 1);
    expect(target).toBeDefined();
    const { id, name } = target as PublicScore;
    const partial = firstWord(name).toUpperCase();
    expect(lower(partial)).not.toBe(lower(name));
    const out = RiskIndicatorSchema.parse(
      outputOf(await call(client, 'get_provider_score', { provider_name: partial })),
    );
    expect(out.provider_id).toBe(id);
    expect(out).toEqual(await rest(`/api/v1/scores/${id}`));
    expect({ score: out.final_score, band: out.risk_band }).toEqual({
      score: (await listed(id)).final_score,
      band: (await listed(id)).risk_band,
    });
  });

  it('get_provider_score with a name several providers share answers their candidates and no score', async () => {
    const sharing = scores.filter((s) => s.name.includes(' Sats '));
    expect(sharing.length).toBeGreaterThan(1);
    const answer = outputOf(await call(client, 'get_provider_score', { provider_name: 'sats' }));
    const ambiguity = ProviderAmbiguitySchema.strict().parse(answer);
    expect(ambiguity.status).toBe('ambiguous');
    expect(ambiguity.detail).toContain(`matches ${sharing.length} providers`);
    const [named] = ambiguity.names;
    expect(named?.provider_name).toBe('sats');
    expect(named?.total).toBe(sharing.length);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(named?.candidates.slice().sort(byId)).toEqual(
      sharing.map((s) => ({ id: s.id, name: s.name, final_score: s.final_score, risk_band: s.risk_band })).sort(byId),
    );
    expect(answer).not.toHaveProperty('final_score');
  });

  it('compare_providers answers the REST comparison, with the public score and band of each', async () => {
    const [lowest, highest] = [
      scores.reduce((a, b) => (b.final_score < a.final_score ? b : a)),
      scores.reduce((a, b) => (b.final_score > a.final_score ? b : a)),
    ] as [PublicScore, PublicScore];
    expect(lowest.id).not.toBe(highest.id);
    const out = ComparisonSchema.parse(
      outputOf(await call(client, 'compare_providers', { provider_names: [lower(lowest.name), highest.name] })),
    );
    expect(out).toEqual(await rest(`/api/v1/scores/compare?ids=${lowest.id},${highest.id}`));
    expect(out.providers.map((p) => [p.provider_id, p.final_score, p.risk_band])).toEqual([
      [lowest.id, lowest.final_score, lowest.risk_band],
      [highest.id, highest.final_score, highest.risk_band],
    ]);
    expect(out.final_score).toMatchObject({ highest: highest.id, lowest: lowest.id });
  });

  it('get_score_history answers the REST history page by page, newest first, the newest as published', async () => {
    // A provider scored twice in the demo, so the history has a second page.
    const changelog = ChangelogResponseSchema.parse(await rest('/api/public/changelog?limit=500')).data;
    const rescored = changelog.find((c) => c.change_type === 'SCORE_CHANGE');
    expect(rescored).toBeDefined();
    const provider = await listed(rescored?.provider_id as string);
    const first = PublicationsHistory.parse(
      outputOf(await call(client, 'get_score_history', { provider_name: lower(provider.name), limit: 1 })),
    );
    expect(first).toEqual(await rest(`/api/v1/scores/${provider.id}/history?limit=1`));
    expect(first.provider_id).toBe(provider.id);
    expect(first.data.map((r) => [r.final_score, r.risk_band])).toEqual([[provider.final_score, provider.risk_band]]);
    expect(first.next_cursor).not.toBeNull();
    const cursor = first.next_cursor as string;
    const second = PublicationsHistory.parse(
      outputOf(await call(client, 'get_score_history', { provider_name: provider.name, limit: 1, cursor })),
    );
    expect(second).toEqual(
      await rest(`/api/v1/scores/${provider.id}/history?limit=1&cursor=${encodeURIComponent(cursor)}`),
    );
    expect(second.data).toHaveLength(1);
    expect(second.data[0]?.risk_indicator_id).not.toBe(first.data[0]?.risk_indicator_id);
  });

  it('search_providers answers the REST search, each match with its public score and band', async () => {
    const out = ProviderSearchResponseSchema.parse(outputOf(await call(client, 'search_providers', { query: 'Sats' })));
    expect(out).toEqual(await rest('/api/v1/providers/search?q=Sats'));
    const expected = scores.filter((s) => lower(s.name).includes('sats'));
    expect(out.data.map((m) => m.id).sort()).toEqual(expected.map((s) => s.id).sort());
    for (const match of out.data) {
      expect([match.final_score, match.risk_band]).toEqual([
        (await listed(match.id)).final_score,
        (await listed(match.id)).risk_band,
      ]);
    }
    const btc = ProviderSearchResponseSchema.parse(
      outputOf(await call(client, 'search_providers', { query: 'demo', planner_type: 'btc' })),
    );
    expect(btc).toEqual(await rest('/api/v1/providers/search?q=demo&planner_type=btc'));
    expect(btc.data.map((m) => m.id).sort()).toEqual(
      scores
        .filter((s) => s.planner_type === 'btc')
        .map((s) => s.id)
        .sort(),
    );
  });

  it('get_methodology with version "1.0" answers the REST methodology of that version', async () => {
    const out = MethodologyResponseSchema.parse(outputOf(await call(client, 'get_methodology', { version: '1.0' })));
    expect(out).toEqual(await rest('/api/v1/methodology?version=1.0'));
    expect(out.version).toBe('1.0');
    expect(out.framework_version).toBe('DCRF v1.0');
    expect(out.framework_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('get_rating_actions answers the public rating-action feed for the same filters, page by page', async () => {
    const feed = async (query: string) =>
      RatingActionsResponseSchema.strict().parse(await rest(`/api/public/rating-actions?${query}`));
    const actions = async (args: Record<string, unknown>) =>
      RatingActionsResponseSchema.strict().parse(outputOf(await call(client, 'get_rating_actions', args)));
    const everything = (await feed('limit=500')).data;
    expect(everything.length).toBeGreaterThan(0);
    expect(await actions({})).toEqual(await feed('limit=20'));
    // Page through the whole feed two at a time with the cursor the answers hand back.
    const seen: RatingAction[] = [];
    let cursor: string | null = null;
    do {
      const page = await actions({ limit: 2, ...(cursor === null ? {} : { cursor }) });
      expect(page).toEqual(await feed(`limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`));
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(everything);
    // A provider rated now, named in another case, filtered by the type of its newest action.
    const newest = everything.find((a) => scores.some((s) => s.id === a.provider_id && s.name === a.provider_name));
    expect(newest).toBeDefined();
    const { provider_id, provider_name, type } = newest as RatingAction;
    const mine = await actions({ provider_name: provider_name.toUpperCase(), type, since: '2026-04-01' });
    expect(mine).toEqual(await feed(`provider_id=${provider_id}&type=${type}&since=2026-04-01&limit=20`));
    expect(mine.data[0]?.id).toBe(newest?.id);
    const refused = await call(client, 'get_rating_actions', { type: 'UPGRADED', limit: 0 });
    expect(refused.isError).toBe(true);
    const [first] = refused.content;
    const refusal = JSON.parse(first?.type === 'text' ? first.text : 'null') as { errors: { path: string }[] };
    expect(refusal.errors.map((e) => e.path).sort()).toEqual(['arguments.limit', 'arguments.type']);
  });

  it('a name matching no provider is a tool error the agent can read, naming the argument', async () => {
    const result = await call(client, 'get_provider_score', { provider_name: 'Nowhere Finance' });
    expect(result.isError).toBe(true);
    const [first] = result.content;
    const refusal = JSON.parse(first?.type === 'text' ? first.text : 'null') as {
      code: string;
      errors: { path: string }[];
    };
    expect(refusal.code).toBe('not_found');
    expect(refusal.errors.map((e) => e.path)).toEqual(['arguments.provider_name']);
  });

  it('a key of a workspace not enabled for MCP is refused with 403 naming `svc workspace enable-mcp`', async () => {
    const enableWith = `svc workspace enable-mcp ${off.workspaceId}`;
    await expect(connectAgent(served.url, off.key)).rejects.toThrow(
      new RegExp(`403.*not enabled for workspace ${off.workspaceId} \\(${enableWith}\\)`),
    );
    const { status, body } = await postToolCall(served.url, off.key);
    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 'mcp_not_enabled' });
    expect((body as { detail: string }).detail).toContain(enableWith);
    expect((body as { detail: string }).detail).not.toContain('SVC_MCP_ENABLED');
    // The refusal is the agent interface's alone: the same key reads the REST endpoints.
    expect((await getJson(`${served.url}/api/v1/methodology?version=1.0`, off.key)).status).toBe(200);
  });

  it('stops on SIGTERM with exit 0', async () => {
    await client.close();
    const { code, signal } = await served.stop('SIGTERM');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(served.stderr()).not.toMatch(STACK_FRAME);
  });
});

describe('svc serve without SVC_MCP_ENABLED', () => {
  let served: Served;
  let key = '';

  beforeAll(async () => {
    const vars = await seededStore();
    key = (await workspaceWithKey(vars, true)).key;
    served = await serve(vars, '--port', '0', '--json');
  });

  afterAll(() => {
    if (served?.child.exitCode === null) served.child.kill('SIGKILL');
  });

  it('refuses an enabled workspace\'s agent with 403 naming SVC_MCP_ENABLED; the manifest says "enabled": false', async () => {
    await expect(connectAgent(served.url, key)).rejects.toThrow(/403.*not enabled on this server \(SVC_MCP_ENABLED/);
    const { status, body } = await postToolCall(served.url, key);
    expect(status).toBe(403);
    expect(body).toMatchObject({ code: 'mcp_not_enabled' });
    expect((body as { detail: string }).detail).toContain('SVC_MCP_ENABLED is not true');
    const manifest = await getJson(`${served.url}/api/mcp`);
    expect(manifest.status).toBe(200);
    expect(manifest.body).toMatchObject({ enabled: false });
    expect((await getJson(`${served.url}/api/v1/methodology?version=1.0`, key)).status).toBe(200);
  });

  it('stops on SIGTERM with exit 0', async () => {
    const { code, signal } = await served.stop('SIGTERM');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(served.stderr()).not.toMatch(STACK_FRAME);
  });
});
