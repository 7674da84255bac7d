import { ChangelogResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { atomDocument } from '../../src/http/atom.js';
import { CAPS_ID, engineIndicator, example, LOW_BAND_ID, WORKED_ID, withInput } from '../support/documents.js';
import { expectInvalid, expectJson, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { elementsNamed, parseXml } from '../support/xml.js';

const FeedSchema = ChangelogResponseSchema.strict();

/** The worked example with less collateral: 77.86, still MEDIUM. */
const lessCollateral = withInput(example('worked-example'), 'collateral_coverage_ratio', 1.3);
/** ... and with continuous on-chain proof of reserves: LOW. */
const provenReserves = withInput(lessCollateral, 'proof_of_reserves', 'onchain_continuous');

describe.each(engines)('GET /api/public/changelog on %s', (engine) => {
  /** When the three first publications were done. */
  let afterFirst = '';
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    await publish(s, example('low-band'));
    await publish(s, example('multiple-caps'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    afterFirst = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await publish(s, lessCollateral);
    await publish(s, provenReserves);
  });

  describe('happy path', () => {
    it('lists every change newest first: NEW on first publication, then SCORE_CHANGE and BAND_CHANGE', async () => {
      const res = await server().get('/api/public/changelog');
      expect(res.headers.get('cache-control')).toBe('public, max-age=30');
      const body = await expectJson(res, FeedSchema);
      expect(body.next_cursor).toBeNull();
      expect(body.data.map((c) => [c.provider_id, c.change_type])).toEqual([
        [WORKED_ID, 'BAND_CHANGE'],
        [WORKED_ID, 'SCORE_CHANGE'],
        [CAPS_ID, 'NEW'],
        [LOW_BAND_ID, 'NEW'],
        [WORKED_ID, 'NEW'],
      ]);
      const ids = body.data.map((c) => Number(c.id));
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      const times = body.data.map((c) => Date.parse(c.changed_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('a NEW entry has no previous score or band; a change names both sides and the new indicator', async () => {
      const body = await expectJson(await server().get('/api/public/changelog'), FeedSchema);
      const [band, score, , , first] = body.data;
      expect(first).toMatchObject({
        change_type: 'NEW',
        provider_name: 'Example Sats Lending',
        previous_score: null,
        previous_band: null,
        new_score: 78.46,
        new_band: 'MEDIUM',
        framework_version: 'DCRF v1.0',
        risk_indicator_id: engineIndicator(example('worked-example')).risk_indicator_id,
      });
      expect(score).toMatchObject({
        change_type: 'SCORE_CHANGE',
        previous_score: 78.46,
        new_score: 77.86,
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        risk_indicator_id: engineIndicator(lessCollateral).risk_indicator_id,
      });
      const proven = engineIndicator(provenReserves);
      expect(proven.risk_band).toBe('LOW');
      expect(band).toMatchObject({
        change_type: 'BAND_CHANGE',
        previous_score: 77.86,
        new_score: proven.final_score,
        previous_band: 'MEDIUM',
        new_band: 'LOW',
        risk_indicator_id: proven.risk_indicator_id,
      });
    });

    it('re-publishing unchanged inputs adds no entry', async () => {
      expect(await server().publish(provenReserves)).toBe('unchanged');
      const body = await expectJson(await server().get('/api/public/changelog'), FeedSchema);
      expect(body.data).toHaveLength(5);
    });

    it('since keeps the changes at or after the time', async () => {
      const since = await expectJson(
        await server().get(`/api/public/changelog?since=${encodeURIComponent(afterFirst)}`),
        FeedSchema,
      );
      expect(since.data.map((c) => c.change_type)).toEqual(['BAND_CHANGE', 'SCORE_CHANGE']);
      const all = await expectJson(await server().get('/api/public/changelog?since=2026-01-01'), FeedSchema);
      expect(all.data).toHaveLength(5);
      const none = await expectJson(await server().get('/api/public/changelog?since=2999-01-01T00:00:00Z'), FeedSchema);
      expect(none.data).toEqual([]);
    });

    it('limit=2 pages through every change once, following next_cursor and the Link header', async () => {
      const full = await expectJson(await server().get('/api/public/changelog'), FeedSchema);
      const ids: string[] = [];
      let next: string | null = '/api/public/changelog?limit=2';
      while (next !== null) {
        const res: Response = await server().get(next);
        next = nextLinkOf(res);
        const body = await expectJson(res, FeedSchema);
        expect(body.next_cursor === null).toBe(next === null);
        ids.push(...body.data.map((c) => c.id));
      }
      expect(ids).toEqual(full.data.map((c) => c.id));
    });

    it('pagination keeps the since filter', async () => {
      const q = `since=${encodeURIComponent(afterFirst)}`;
      const res = await server().get(`/api/public/changelog?${q}&limit=1`);
      const link = nextLinkOf(res);
      expect(link).toContain('since=');
      const page2 = await expectJson(await server().get(link ?? ''), FeedSchema);
      expect(page2.data.map((c) => c.change_type)).toEqual(['SCORE_CHANGE']);
      expect(page2.next_cursor).toBeNull();
    });
  });

  describe('errors', () => {
    for (const since of ['yesterday', '2026-13-01', '2026-06-01T10:00:00+02:00', '1719792000', '2026-6-1']) {
      it(`since=${since} gets 400 naming query.since`, async () => {
        await expectInvalid(await server().get(`/api/public/changelog?since=${encodeURIComponent(since)}`), [
          'query.since',
        ]);
      });
    }

    it('a since date that does not exist on the calendar (2026-02-30) gets 400', async () => {
      await expectInvalid(await server().get('/api/public/changelog?since=2026-02-30'), ['query.since']);
    });

    const NOT_A_DATE =
      'is not a date or time: write a date YYYY-MM-DD or a UTC timestamp, such as 2026-06-01 or 2026-06-01T12:00:00Z';
    for (const [since, message] of [
      ['yesterday', NOT_A_DATE],
      ['2026-6-1', NOT_A_DATE],
      ['1719792000', NOT_A_DATE],
      ['2026-02-30', 'must be a real date and time: 2026-02-30 does not exist on the calendar'],
      ['2026-13-01', 'must be a real date and time: 2026-13-01 does not exist on the calendar'],
      ['2026-06-01T24:30:00Z', 'must be a real date and time: 2026-06-01T24:30:00Z does not exist on the calendar'],
    ] as const) {
      it(`since=${since} is refused with one plain message: "${message}"`, async () => {
        const problem = await expectInvalid(
          await server().get(`/api/public/changelog?since=${encodeURIComponent(since)}`),
          ['query.since'],
        );
        expect(problem.errors).toEqual([{ path: 'query.since', message }]);
      });
    }

    it('a bad cursor gets 400 naming query.cursor', async () => {
      await expectInvalid(await server().get('/api/public/changelog?cursor=abc'), ['query.cursor']);
    });

    it('limit=0 gets 400 naming query.limit', async () => {
      await expectInvalid(await server().get('/api/public/changelog?limit=0'), ['query.limit']);
    });
  });

  describe('Atom feed', () => {
    it('GET /api/public/changelog.atom is well-formed Atom with one entry per change', async () => {
      const res = await server().get('/api/public/changelog.atom');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/atom\+xml\b/);
      const text = await res.text();
      const feed = parseXml(text);
      expect(feed.name).toBe('feed');
      expect(feed.attributes.xmlns).toBe('http://www.w3.org/2005/Atom');
      const entries = elementsNamed(feed, 'entry');
      expect(entries).toHaveLength(5);
      // RFC 4287: a feed has an id, a title, an updated date and an author (or every entry has one).
      for (const name of ['id', 'title', 'updated', 'author']) {
        expect(
          feed.children.filter((c) => c.name === name),
          name,
        ).toHaveLength(1);
      }
      for (const entry of entries) {
        expect(entry.children.map((c) => c.name).sort()).toEqual(['id', 'link', 'summary', 'title', 'updated']);
      }
      const titles = elementsNamed(feed, 'title');
      expect(
        titles.map((t) => t.text).filter((t) => t.startsWith('Example Sats Lending: MEDIUM to LOW (')),
      ).toHaveLength(1);
      expect(text).toContain(`/verify/${engineIndicator(provenReserves).risk_indicator_id}`);
    });

    it('every title and summary is type="text": no markup, no CDATA', async () => {
      const text = await (await server().get('/api/public/changelog.atom')).text();
      const feed = parseXml(text);
      const texts = [
        ...elementsNamed(feed, 'title'),
        ...elementsNamed(feed, 'summary'),
        ...elementsNamed(feed, 'subtitle'),
      ];
      expect(texts.length).toBeGreaterThan(10);
      for (const t of texts) expect(t.attributes.type, t.name).toBe('text');
      expect(text).not.toContain('CDATA');
    });

    it('a hostile name already in the store (control characters, markup, "]]>") keeps the feed well-formed and is text', async () => {
      // As a store written before free text refused control characters holds it. PostgreSQL text cannot hold NUL.
      const nul = engine === 'sqlite' ? '\u0000' : '';
      const hostile = `Evil${nul}\u0001\u000b\u001b[2J<img src=x onerror=alert(1)>\u202e & ]]> \ufffe\u0085Co`;
      await server()
        .services.store.db.updateTable('changelog')
        .set({ provider_name: hostile })
        .where('provider_id', '=', LOW_BAND_ID)
        .execute();
      const res = await server().get('/api/public/changelog.atom');
      expect(res.status).toBe(200);
      const feed = parseXml(await res.text());
      expect(elementsNamed(feed, 'img')).toEqual([]);
      const shown = `Evil${nul ? '\\u0000' : ''}\\u0001\\u000b\\u001b[2J<img src=x onerror=alert(1)>\\u202e & ]]> \\ufffe\\u0085Co`;
      const title = elementsNamed(feed, 'title').find((t) => t.text.startsWith('Evil'));
      expect(title?.attributes.type).toBe('text');
      expect(title?.text).toBe(
        `${shown}: first Risk Indicator ${engineIndicator(example('low-band')).final_score} (LOW)`,
      );
      expect(elementsNamed(feed, 'entry')).toHaveLength(5);
    });

    it('the Atom writer keeps every character XML forbids out, lone surrogates and U+FFFF included', () => {
      const nasty = 'a\u0000b\ud800c\udfffd\uffffe\u0008f<g>&h\'i"';
      const xml = atomDocument({
        id: 'https://x.example/feed',
        title: nasty,
        subtitle: nasty,
        alternate: 'https://x.example/?a=1&b=<2>',
        self: 'https://x.example/feed',
        updated: new Date(0),
        author: nasty,
        rights: nasty,
        entries: [
          {
            id: 'https://x.example/1',
            title: nasty,
            link: 'https://x.example/"1"',
            updated: new Date(0),
            summary: nasty,
          },
        ],
      });
      const feed = parseXml(xml);
      const shown = 'a\\u0000b\\ud800c\\udfffd\\uffffe\\u0008f<g>&h\'i"';
      expect(elementsNamed(feed, 'title').map((t) => t.text)).toEqual([shown, shown]);
      expect(elementsNamed(feed, 'link').map((l) => l.attributes.href)).toEqual([
        'https://x.example/?a=1&b=<2>',
        'https://x.example/feed',
        'https://x.example/"1"',
      ]);
    });

    it('the XML parser itself refuses broken documents and forbidden characters', () => {
      expect(() => parseXml('<feed><entry></feed>')).toThrow();
      expect(() => parseXml('<feed>a & b</feed>')).toThrow();
      expect(() => parseXml('<a></a><b></b>')).toThrow();
      expect(() => parseXml('<feed x="1" x="2"/>')).toThrow();
      expect(() => parseXml('<feed>\u0001</feed>')).toThrow();
      expect(() => parseXml('<feed>\u001b</feed>')).toThrow();
      expect(() => parseXml('<feed>\ufffe</feed>')).toThrow();
      expect(() => parseXml('<feed t="\u0000"/>')).toThrow();
      expect(() => parseXml('<feed><![CDATA[\u0001]]></feed>')).toThrow();
      const ok = parseXml('<?xml version="1.0"?><feed a="1"><e>&amp;&lt;</e><e/></feed>');
      expect(elementsNamed(ok, 'e').map((e) => e.text)).toEqual(['&<', '']);
    });
  });
});
