import { McpToolCallResponseSchema, ScoreHistoryResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { findProvider } from '../../src/store/repositories/providers.js';
import { callTool, MCP_ON, mcpKey } from '../mcp/fixtures.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, LOW_BAND_ID, WORKED_ID } from '../support/documents.js';
import { expectJson, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

describe.each(engines)('a withdrawn provider on %s', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  let key = '';
  let agentKey = '';
  const server = useServer(
    engine,
    async (s) => {
      await publish(s, example('worked-example'));
      await publish(s, example('low-band'));
      key = await s.key('PROFESSIONAL');
      agentKey = await mcpKey(s);
    },
    { clock, ...MCP_ON },
  );
  const toolOutput = async (tool: 'get_score_history', input: unknown) =>
    (await expectJson(await callTool(server(), agentKey, tool, input), McpToolCallResponseSchema)).output;

  const ids = async (path: string, withKey: boolean) => {
    const res = await server().get(path, withKey ? { key } : {});
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: string }[] }).data.map((p) => p.id).sort();
  };

  it('leaves every score list and its detail at once, and publishing again reinstates it with a NEW entry', async () => {
    const both = [WORKED_ID, LOW_BAND_ID].sort();
    expect(await ids('/api/v1/scores', true)).toEqual(both);
    expect(await ids('/api/public/scores', false)).toEqual(both); // the public snapshot is built now
    expect((await server().get(`/api/v1/scores/${WORKED_ID}`, { key })).status).toBe(200);

    // Withdrawn in the store, as `svc provider withdraw` does from another process: only the
    // publication version tells this instance its snapshot is stale.
    const { store } = server().services;
    const indicatorId = (await findProvider(store.db, WORKED_ID))?.current_indicator_id;
    const withdrawnAt = clock.now().toISOString();
    await withdrawProvider(ctxOf(store, { clock }), { providerId: WORKED_ID, reason: 'ceased lending' });
    clock.advance(2000);

    expect(await ids('/api/v1/scores', true)).toEqual([LOW_BAND_ID]);
    expect(await ids('/api/public/scores', false)).toEqual([LOW_BAND_ID]);
    expect((await server().get(`/api/v1/scores/${WORKED_ID}`, { key })).status).toBe(404);
    const feed = await server().get('/api/public/changelog');
    expect(feed.status).toBe(200);
    const [latest] = ((await feed.json()) as { data: Record<string, unknown>[] }).data;
    expect(latest).toMatchObject({
      provider_id: WORKED_ID,
      change_type: 'WITHDRAWN',
      previous_score: 78.46,
      previous_band: 'MEDIUM',
      new_score: null,
      new_band: null,
      risk_indicator_id: null,
    });

    await publish(server(), example('worked-example'));
    clock.advance(2000);
    expect(await ids('/api/v1/scores', true)).toEqual(both);
    expect(await ids('/api/public/scores', false)).toEqual(both);
    expect((await server().get(`/api/v1/scores/${WORKED_ID}`, { key })).status).toBe(200);
    const after = await server().get('/api/public/changelog');
    const changes = ((await after.json()) as { data: { provider_id: string; change_type: string }[] }).data;
    expect(changes.filter((c) => c.provider_id === WORKED_ID).map((c) => c.change_type)).toEqual([
      'NEW',
      'WITHDRAWN',
      'NEW',
    ]);

    // The history shows the withdrawal as an entry of its own, between the publication it ended and the
    // re-publication (the same inputs: the same content-addressed indicator id).
    const history = await expectJson(
      await server().get(`/api/v1/scores/${WORKED_ID}/history`, { key }),
      ScoreHistoryResponseSchema.strict(),
    );
    const [republished, withdrawal, original] = history.data;
    expect(history.data).toHaveLength(3);
    expect(republished && 'risk_indicator_id' in republished && republished.risk_indicator_id).toBe(indicatorId);
    expect(original && 'risk_indicator_id' in original && original.risk_indicator_id).toBe(indicatorId);
    expect(withdrawal).toEqual({
      entry_type: 'withdrawal',
      provider_id: WORKED_ID,
      withdrawn_at: withdrawnAt,
      withdrawn_risk_indicator_id: indicatorId,
      previous_score: 78.46,
      previous_band: 'MEDIUM',
      framework_version: 'DCRF v1.0',
      reason: 'ceased lending',
    });
    // Paged one entry at a time, the same three entries in the same order, the withdrawal on a page of its own.
    const paged: unknown[] = [];
    let link: string | null = `/api/v1/scores/${WORKED_ID}/history?limit=1`;
    while (link) {
      const res = await server().get(link, { key });
      paged.push(...(await expectJson(res, ScoreHistoryResponseSchema.strict())).data);
      link = nextLinkOf(res);
    }
    expect(paged).toEqual(history.data);
    // The agent tool reads the same history.
    expect(await toolOutput('get_score_history', { provider_name: 'Example Sats Lending' })).toEqual(history);
  });
});
