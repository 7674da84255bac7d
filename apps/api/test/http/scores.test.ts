import { LIMITATIONS_DISCLOSURE, ScoresListResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example, type InputsDoc, variantOf } from '../support/documents.js';
import { expectInvalid, expectJson, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const ListSchema = ScoresListResponseSchema.strict();

/** Five providers: two btc, one fiat, two stablecoin. */
const PROVIDERS: InputsDoc[] = [
  example('worked-example'),
  example('low-band'),
  example('multiple-caps'),
  variantOf(example('worked-example'), 1, { name: 'Another Sats Lending' }),
  variantOf(example('low-band'), 2, { name: 'Zed Stable Yield', planner_type: 'stablecoin' }),
];

describe.each(engines)('GET /api/v1/scores on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of PROVIDERS) await publish(s, doc);
    key = await s.key('PROFESSIONAL');
  });

  keyedRouteSecurity('listScores', server, () => '/api/v1/scores');

  describe('happy path', () => {
    it('lists every current Risk Indicator by name in the envelope {data, framework_version, limitations_disclosure, next_cursor}', async () => {
      const body = await expectJson(await server().get('/api/v1/scores', { key }), ListSchema);
      expect(body.framework_version).toBe('DCRF v1.0');
      expect(body.limitations_disclosure).toBe(LIMITATIONS_DISCLOSURE);
      expect(body.next_cursor).toBeNull();
      const names = PROVIDERS.map((d) => d.provider.name).sort();
      expect(body.data.map((r) => r.name)).toEqual(names);
      for (const r of body.data) {
        expect(r.provider_id).toBe(r.id);
        expect(r.criterion_scores).toHaveLength(14);
        expect(r.limitations_disclosure).toBe(LIMITATIONS_DISCLOSURE);
      }
    });

    it('planner_type filters the list to that planner type', async () => {
      for (const type of ['btc', 'fiat', 'stablecoin'] as const) {
        const body = await expectJson(await server().get(`/api/v1/scores?planner_type=${type}`, { key }), ListSchema);
        const expected = PROVIDERS.filter((d) => d.provider.planner_type === type).map((d) => d.provider.id);
        expect(body.data.map((r) => r.id).sort()).toEqual(expected.sort());
        expect(body.data.every((r) => r.planner_type === type)).toBe(true);
      }
    });

    it('limit=1 walks every provider exactly once through next_cursor, and the Link header points at the same page', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const path: string = `/api/v1/scores?limit=1${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await server().get(path, { key });
        const link = nextLinkOf(res);
        const body = await expectJson(res, ListSchema);
        expect(body.data).toHaveLength(1);
        seen.push(body.data[0]?.id ?? '');
        cursor = body.next_cursor;
        if (cursor === null) {
          expect(link).toBeNull();
          break;
        }
        expect(link).toBe(`/api/v1/scores?limit=1&cursor=${cursor}`);
      }
      expect(cursor).toBeNull();
      expect(seen).toHaveLength(PROVIDERS.length);
      expect(new Set(seen).size).toBe(PROVIDERS.length);
    });

    it('the Link header keeps the filter, and following it walks the filtered list', async () => {
      const ids: string[] = [];
      let next: string | null = '/api/v1/scores?planner_type=stablecoin&limit=1';
      while (next !== null) {
        const res: Response = await server().get(next, { key });
        next = nextLinkOf(res);
        if (next !== null) expect(next).toContain('planner_type=stablecoin');
        ids.push(...(await expectJson(res, ListSchema)).data.map((r) => r.id));
      }
      expect(ids.sort()).toEqual(
        PROVIDERS.filter((d) => d.provider.planner_type === 'stablecoin')
          .map((d) => d.provider.id)
          .sort(),
      );
    });

    it('limit=500 is the largest page and is accepted', async () => {
      const body = await expectJson(await server().get('/api/v1/scores?limit=500', { key }), ListSchema);
      expect(body.data).toHaveLength(PROVIDERS.length);
    });
  });

  describe('errors', () => {
    for (const limit of ['0', '501', 'abc', '1.5', '-1', '']) {
      it(`limit=${limit} gets 400 naming query.limit`, async () => {
        await expectInvalid(await server().get(`/api/v1/scores?limit=${limit}`, { key }), ['query.limit']);
      });
    }

    it('a planner_type outside btc, fiat, stablecoin gets 400 listing the allowed values', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores?planner_type=gold', { key }), [
        'query.planner_type',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/btc.*fiat.*stablecoin/);
    });

    for (const cursor of ['abc', '!!!', Buffer.from('{"n":3}').toString('base64url'), 'x'.repeat(600)]) {
      it(`a cursor that is not a next_cursor of this list gets 400 (${cursor.slice(0, 16)})`, async () => {
        await expectInvalid(await server().get(`/api/v1/scores?cursor=${cursor}`, { key }), ['query.cursor']);
      });
    }

    it('an unknown query parameter gets 400 naming it', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores?colour=blue', { key }), ['query.colour']);
      expect(problem.detail).toContain('colour');
    });

    it('a repeated query parameter gets 400 rather than a guess', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores?limit=1&limit=2', { key }), [
        'query.limit',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/once/);
    });

    it('every problem of a query is listed at once', async () => {
      await expectInvalid(await server().get('/api/v1/scores?limit=0&planner_type=gold&x=1', { key }), [
        'query.limit',
        'query.planner_type',
        'query.x',
      ]);
    });
  });
});
