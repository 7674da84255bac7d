import { type ProviderMatch, ProviderSearchResponseSchema, RiskIndicatorSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, framework, type InputsDoc, validated, variantOf } from '../support/documents.js';
import { expectInvalid, expectJson } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const SearchSchema = ProviderSearchResponseSchema.strict();

/** Names chosen for accent folding and for each kind of match of "bitcoin". */
const SOCIETE_SATS = variantOf(example('worked-example'), 1, { name: 'Société Générale Sats' });
const SOCIETE_YIELD = variantOf(example('low-band'), 2, { name: 'Societe Generale Yield' });
const EXACT = variantOf(example('worked-example'), 3, { name: 'BitCoin' });
const PREFIX = variantOf(example('worked-example'), 4, { name: 'Bitcoin Harbour' });
const WORD_PREFIX = variantOf(example('low-band'), 5, { name: 'Harbour Bitcoin Lending' });
const WORD_AFTER_DASH = variantOf(example('multiple-caps'), 6, { name: 'Nord-Bitcoin Desk' });
const SUBSTRING = variantOf(example('worked-example'), 7, { name: 'Subitcoin Credit', planner_type: 'fiat' });
const WITHDRAWN = variantOf(example('worked-example'), 8, { name: 'Bitcoin Withdrawn Lending' });

const NAMED: InputsDoc[] = [SOCIETE_SATS, SOCIETE_YIELD, EXACT, PREFIX, WORD_PREFIX, WORD_AFTER_DASH, SUBSTRING];
/** Enough more that a search for "i" matches more than the default limit of 20. */
const FILLERS = Array.from({ length: 14 }, (_, n) =>
  variantOf(example('worked-example'), 100 + n, { name: `Filler Lending ${String(n).padStart(2, '0')}` }),
);
const PROVIDERS = [...NAMED, ...FILLERS];

const idOf = (doc: InputsDoc) => doc.provider.id;

describe.each(engines)('GET /api/v1/providers/search on %s', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  let key = '';
  const server = useServer(
    engine,
    async (s) => {
      for (const doc of [...PROVIDERS, WITHDRAWN]) await publish(s, doc);
      await withdrawProvider(ctxOf(s.services.store, { clock }), {
        providerId: idOf(WITHDRAWN),
        reason: 'ceased lending',
      });
      s.services.snapshot.invalidate();
      key = await s.key('PROFESSIONAL');
    },
    { clock },
  );

  const search = async (query: string) =>
    expectJson(await server().get(`/api/v1/providers/search?${query}`, { key }), SearchSchema);
  const found = async (query: string) =>
    (await search(query)).data.map((m) => [m.name, m.match] as [string, ProviderMatch['match']]);

  keyedRouteSecurity('searchProviders', server, () => '/api/v1/providers/search?q=bitcoin');

  describe('happy path', () => {
    it('"societe" finds both Société Générale entries, accents and case ignored, by name within a match kind', async () => {
      const expected = [
        ['Société Générale Sats', 'prefix'],
        ['Societe Generale Yield', 'prefix'],
      ];
      expect(await found('q=societe')).toEqual(expected);
      expect(await found(`q=${encodeURIComponent('SOCIÉTÉ')}`)).toEqual(expected);
      expect(await found(`q=${encodeURIComponent('sOcIéTe')}`)).toEqual(expected);
    });

    it('accents are folded whether the name or the query carries them, and in the middle of a name', async () => {
      expect(await found(`q=${encodeURIComponent('générale')}`)).toEqual([
        ['Société Générale Sats', 'word_prefix'],
        ['Societe Generale Yield', 'word_prefix'],
      ]);
      // Decomposed "é" (e + combining acute) folds the same as the precomposed one.
      expect(await found(`q=${encodeURIComponent('Socie\u0301te\u0301 ge\u0301ne\u0301rale sats')}`)).toEqual([
        ['Société Générale Sats', 'exact'],
      ]);
    });

    it('spaces around and inside the query are trimmed and collapsed, and the trimmed query is echoed', async () => {
      const body = await search(`q=${encodeURIComponent('  societe   generale  yield ')}`);
      expect(body.query).toBe('societe   generale  yield');
      expect(body.data.map((m) => [m.id, m.match])).toEqual([[idOf(SOCIETE_YIELD), 'exact']]);
    });

    it('ranks exact before prefix before word_prefix before substring, and says which in `match`', async () => {
      expect(await found('q=bitcoin')).toEqual([
        ['BitCoin', 'exact'],
        ['Bitcoin Harbour', 'prefix'],
        ['Harbour Bitcoin Lending', 'word_prefix'],
        ['Nord-Bitcoin Desk', 'word_prefix'],
        ['Subitcoin Credit', 'substring'],
      ]);
    });

    it('the start of a later word is a word_prefix; the inside of a word is a substring', async () => {
      expect(await found('q=harbour')).toEqual([
        ['Harbour Bitcoin Lending', 'prefix'],
        ['Bitcoin Harbour', 'word_prefix'],
      ]);
      expect(await found('q=itcoin')).toEqual([
        ['BitCoin', 'substring'],
        ['Bitcoin Harbour', 'substring'],
        ['Harbour Bitcoin Lending', 'substring'],
        ['Nord-Bitcoin Desk', 'substring'],
        ['Subitcoin Credit', 'substring'],
      ]);
    });

    it('planner_type keeps only the providers of that planner type', async () => {
      for (const type of ['btc', 'fiat', 'stablecoin'] as const) {
        const body = await search(`q=bitcoin&planner_type=${type}`);
        const expected = [EXACT, PREFIX, WORD_PREFIX, WORD_AFTER_DASH, SUBSTRING].filter(
          (d) => d.provider.planner_type === type,
        );
        expect(body.data.map((m) => m.id).sort()).toEqual(expected.map(idOf).sort());
        expect(body.data.length).toBeGreaterThan(0);
        expect(body.data.every((m) => m.planner_type === type)).toBe(true);
      }
    });

    it('limit keeps the best matches in order; the default is 20 and 50 is accepted', async () => {
      const all = await found('q=bitcoin');
      expect(all).toHaveLength(5);
      expect(await found('q=bitcoin&limit=2')).toEqual(all.slice(0, 2));
      expect(await found('q=bitcoin&limit=1')).toEqual(all.slice(0, 1));
      // Every provider's name holds an "i".
      const every = await found('q=i&limit=50');
      expect(every).toHaveLength(PROVIDERS.length);
      expect(await found('q=i')).toEqual(every.slice(0, 20));
      expect(await found('q=i&limit=20')).toEqual(every.slice(0, 20));
    });

    it("each result's score, band, planner type, evaluation time, outlook and watch are those of GET /api/v1/scores/{id}", async () => {
      const body = await search('q=i&limit=50');
      expect(body.data.map((m) => m.id).sort()).toEqual(PROVIDERS.map(idOf).sort());
      for (const match of body.data) {
        const res = await server().get(`/api/v1/scores/${match.id}`, { key });
        const detail = await expectJson(res, RiskIndicatorSchema);
        expect(match).toEqual({
          id: detail.id,
          name: detail.name,
          planner_type: detail.planner_type,
          provider_subtype: detail.provider_subtype,
          final_score: detail.final_score,
          risk_band: detail.risk_band,
          scored_at: detail.scored_at,
          outlook: detail.outlook,
          watch: detail.watch,
          match: match.match,
        });
      }
      expect(new Set(body.data.map((m) => m.risk_band)).size).toBeGreaterThan(1);
    });

    it('no match is 200 with an empty list', async () => {
      const body = await search('q=zzzz-no-such-provider');
      expect(body).toEqual({ query: 'zzzz-no-such-provider', data: [] });
      expect((await search(`q=${'x'.repeat(100)}`)).data).toEqual([]);
    });

    it('a query of nothing but accents is refused rather than matching every provider', async () => {
      const res = await server().get(`/api/v1/providers/search?q=${encodeURIComponent('\u0301\u0301')}`, { key });
      const problem = await expectInvalid(res, ['query.q']);
      expect(problem.errors?.[0]?.message).toBe('must hold more than accents');
    });

    it('a withdrawn provider is never found', async () => {
      expect(await found(`q=${encodeURIComponent('withdrawn')}`)).toEqual([]);
      const ids = (await search('q=bitcoin&limit=50')).data.map((m) => m.id);
      expect(ids).not.toContain(idOf(WITHDRAWN));
    });

    it('a provider published through this instance is found at once', async () => {
      const doc = variantOf(example('low-band'), 20, { name: 'Freshly Minted Bitcoin' });
      expect(await found('q=freshly')).toEqual([]);
      await publish(server(), doc);
      expect(await found('q=freshly')).toEqual([['Freshly Minted Bitcoin', 'prefix']]);
    });

    it('a publication by another process is found once the snapshot is checked again, within a second', async () => {
      // As `svc publish` in another process: the store changes, this instance is not told.
      const doc = variantOf(example('low-band'), 21, { name: 'Elsewhere Bitcoin Vault' });
      server().services.snapshot.invalidate();
      expect(await found('q=elsewhere')).toEqual([]); // the snapshot was checked now
      const outcome = await publishIndicator(ctxOf(server().services.store, { clock }), {
        document: validated(doc),
        framework,
        approvedAt: '2026-06-02T10:00:00.000Z',
      });
      expect(outcome.status).toBe('published');
      clock.advance(500);
      expect(await found('q=elsewhere')).toEqual([]); // still within the snapshot's second
      clock.advance(600);
      expect(await found('q=elsewhere')).toEqual([['Elsewhere Bitcoin Vault', 'prefix']]);

      // Withdrawn by another process: gone after the same interval.
      await withdrawProvider(ctxOf(server().services.store, { clock }), {
        providerId: idOf(doc),
        reason: 'ceased lending',
      });
      clock.advance(1100);
      expect(await found('q=elsewhere')).toEqual([]);
    });
  });

  describe('errors', () => {
    it('a missing q gets 400 saying it is required', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/providers/search', { key }), ['query.q']);
      expect(problem.errors?.[0]?.message).toBe('is required');
    });

    for (const [label, q] of [
      ['empty', ''],
      ['blank', '%20%20%20'],
      ['101 characters', 'x'.repeat(101)],
    ] as const) {
      it(`an ${label} q gets 400 saying it must be 1 to 100 characters`, async () => {
        const problem = await expectInvalid(await server().get(`/api/v1/providers/search?q=${q}`, { key }), [
          'query.q',
        ]);
        expect(problem.errors?.[0]?.message).toBe('must be 1 to 100 characters');
        expect(problem.detail).toContain('query.q');
      });
    }

    it('a planner_type outside btc, fiat, stablecoin gets 400 listing the allowed values', async () => {
      const problem = await expectInvalid(
        await server().get('/api/v1/providers/search?q=bitcoin&planner_type=gold', { key }),
        ['query.planner_type'],
      );
      expect(problem.errors?.[0]?.message).toMatch(/btc.*fiat.*stablecoin/);
    });

    for (const [limit, message] of [
      ['0', /at least 1/],
      ['51', /at most 50/],
      ['abc', /whole number/],
      ['1.5', /whole number/],
    ] as const) {
      it(`limit=${limit} gets 400 naming query.limit`, async () => {
        const problem = await expectInvalid(
          await server().get(`/api/v1/providers/search?q=bitcoin&limit=${limit}`, { key }),
          ['query.limit'],
        );
        expect(problem.errors?.[0]?.message).toMatch(message);
      });
    }

    it('an unknown query parameter gets 400 naming it', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/providers/search?q=bitcoin&sort=name', { key }), [
        'query.sort',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/not a query parameter/);
    });

    it('a repeated q gets 400 rather than a guess', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/providers/search?q=a&q=b', { key }), ['query.q']);
      expect(problem.errors?.[0]?.message).toMatch(/once/);
    });

    it('every problem of a query is listed at once', async () => {
      await expectInvalid(await server().get('/api/v1/providers/search?limit=0&planner_type=gold&x=1', { key }), [
        'query.q',
        'query.limit',
        'query.planner_type',
        'query.x',
      ]);
    });
  });
});
