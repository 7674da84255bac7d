import { RiskIndicatorSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example, UNKNOWN_PROVIDER_ID, WORKED_ID, withInput } from '../support/documents.js';
import {
  expectInvalid,
  expectJson,
  expectProblem,
  nextLinkOf,
  PublicationsHistorySchema,
} from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const HistorySchema = PublicationsHistorySchema;
const first = example('worked-example');
/** The worked example with more collateral: 79.06, still MEDIUM. */
const second = withInput(first, 'collateral_coverage_ratio', 1.4);

describe.each(engines)('GET /api/v1/scores/{providerId}/history on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await publish(s, first);
    await publish(s, second);
    key = await s.key('PROFESSIONAL');
  });
  const path = `/api/v1/scores/${WORKED_ID}/history`;

  keyedRouteSecurity('getScoreHistory', server, () => path);

  describe('happy path', () => {
    it('lists every published indicator of the provider, newest first', async () => {
      const body = await expectJson(await server().get(path, { key }), HistorySchema);
      expect(body.provider_id).toBe(WORKED_ID);
      expect(body.next_cursor).toBeNull();
      expect(body.data.map((r) => r.final_score)).toEqual([79.06, 78.46]);
      const [newest, oldest] = body.data;
      expect(newest?.risk_indicator_id).not.toBe(oldest?.risk_indicator_id);
      expect(Date.parse(newest?.published_at ?? '')).toBeGreaterThanOrEqual(Date.parse(oldest?.published_at ?? ''));
      for (const r of body.data) expect(r.provider_id).toBe(WORKED_ID);
    });

    it("the newest history entry is the provider's current indicator", async () => {
      const current = await expectJson(await server().get(`/api/v1/scores/${WORKED_ID}`, { key }), RiskIndicatorSchema);
      const history = await expectJson(await server().get(path, { key }), HistorySchema);
      const { entry_type, ...indicator } = history.data[0] ?? { entry_type: null };
      expect(entry_type).toBe('publication');
      expect(indicator).toEqual(current);
    });

    it('a publication entry is the bytes GET /scores/{id} serves, with `"entry_type":"publication"` first', async () => {
      const current = await (await server().get(`/api/v1/scores/${WORKED_ID}`, { key })).text();
      const history = await (await server().get(path, { key })).text();
      expect(
        history.startsWith(`{"provider_id":"${WORKED_ID}","data":[{"entry_type":"publication",${current.slice(1)},`),
      ).toBe(true);
      expect(history.match(/"entry_type":"publication"/g)).toHaveLength(2);
    });

    it('re-publishing unchanged inputs adds no history entry', async () => {
      expect(await server().publish(second)).toBe('unchanged');
      const body = await expectJson(await server().get(path, { key }), HistorySchema);
      expect(body.data).toHaveLength(2);
    });

    it('limit=1 pages through the history with next_cursor and a Link header', async () => {
      const res1 = await server().get(`${path}?limit=1`, { key });
      const link = nextLinkOf(res1);
      const page1 = await expectJson(res1, HistorySchema);
      expect(page1.data.map((r) => r.final_score)).toEqual([79.06]);
      expect(page1.next_cursor).not.toBeNull();
      expect(link).toBe(`${path}?limit=1&cursor=${page1.next_cursor}`);
      const res2 = await server().get(link ?? '', { key });
      expect(nextLinkOf(res2)).toBeNull();
      const page2 = await expectJson(res2, HistorySchema);
      expect(page2.data.map((r) => r.final_score)).toEqual([78.46]);
      expect(page2.next_cursor).toBeNull();
    });

    it('an upper-case UUID finds the same history', async () => {
      const body = await expectJson(
        await server().get(`/api/v1/scores/${WORKED_ID.toUpperCase()}/history`, { key }),
        HistorySchema,
      );
      expect(body.provider_id).toBe(WORKED_ID);
      expect(body.data).toHaveLength(2);
    });
  });

  describe('errors', () => {
    it('an unknown provider gets 404 not_found', async () => {
      await expectProblem(await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}/history`, { key }), 'not_found');
    });

    it('a malformed provider id gets 400 naming path.providerId', async () => {
      await expectInvalid(await server().get('/api/v1/scores/abc/history', { key }), ['path.providerId']);
    });

    it('limit=0 gets 400 naming query.limit', async () => {
      await expectInvalid(await server().get(`${path}?limit=0`, { key }), ['query.limit']);
    });

    it('a cursor of another list gets 400 naming query.cursor', async () => {
      const cursor = Buffer.from(JSON.stringify({ name: 'x', id: 'y' })).toString('base64url');
      await expectInvalid(await server().get(`${path}?cursor=${cursor}`, { key }), ['query.cursor']);
    });
  });
});
