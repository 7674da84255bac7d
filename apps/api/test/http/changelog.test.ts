import { ChangelogResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { CAPS_ID, engineIndicator, example, LOW_BAND_ID, WORKED_ID, withInput } from '../support/documents.js';
import { expectInvalid, expectJson, nextLinkOf } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const FeedSchema = ChangelogResponseSchema.strict();

/** The worked example with less collateral: 77.86, still MEDIUM. */
const lessCollateral = withInput(example('worked-example'), 'collateral_coverage_ratio', 1.3);
/** ... and with continuous on-chain proof of reserves: LOW. */
const provenReserves = withInput(lessCollateral, 'proof_of_reserves', 'onchain_continuous');

interface XmlSummary {
  root: string;
  rootAttributes: Record<string, string>;
  /** How many elements of each name the document holds. */
  counts: Map<string, number>;
}

const NAME = '[A-Za-z_][\\w.:-]*';
const TAG = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>$`);
const ATTRIBUTE = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g');
const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

/**
 * A strict well-formedness check: one root, every tag closed in order, quoted
 * unique attributes, no stray `<` or `&` in text. Throws on the first fault.
 */
function wellFormedXml(text: string): XmlSummary {
  const stack: string[] = [];
  const counts = new Map<string, number>();
  let root = '';
  let rootAttributes: Record<string, string> = {};
  let rest = text.replace(/^<\?xml[^?]*\?>/, '');
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const textPart = lt === -1 ? rest : rest.slice(0, lt);
    if (textPart.includes(']]>')) throw new Error('"]]>" in text');
    if (ENTITY.test(textPart)) throw new Error(`a bare & in text: ${textPart.slice(0, 60)}`);
    if (stack.length === 0 && textPart.trim() !== '')
      throw new Error(`text outside the root: ${textPart.slice(0, 60)}`);
    if (lt === -1) break;
    rest = rest.slice(lt);
    if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->');
      if (end === -1) throw new Error('an unclosed comment');
      rest = rest.slice(end + 3);
      continue;
    }
    if (rest.startsWith('<![CDATA[')) {
      if (stack.length === 0) throw new Error('CDATA outside the root');
      const end = rest.indexOf(']]>');
      if (end === -1) throw new Error('an unclosed CDATA section');
      rest = rest.slice(end + 3);
      continue;
    }
    const gt = rest.indexOf('>');
    if (gt === -1) throw new Error('an unclosed tag');
    const tag = rest.slice(0, gt + 1);
    rest = rest.slice(gt + 1);
    const m = TAG.exec(tag);
    if (!m) throw new Error(`a malformed tag: ${tag.slice(0, 80)}`);
    const [, closing, name = '', attributeText = '', selfClosing] = m;
    if (closing) {
      if (attributeText || selfClosing) throw new Error(`a malformed end tag: ${tag}`);
      if (stack.pop() !== name) throw new Error(`</${name}> closes the wrong element`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const a of attributeText.matchAll(ATTRIBUTE)) {
      const [, attr = '', dq, sq] = a;
      if (attr in attributes) throw new Error(`attribute ${attr} given twice in <${name}>`);
      const value = dq ?? sq ?? '';
      if (ENTITY.test(value)) throw new Error(`a bare & in attribute ${attr}`);
      attributes[attr] = value;
    }
    if (stack.length === 0) {
      if (root !== '') throw new Error('a second root element');
      root = name;
      rootAttributes = attributes;
    }
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (!selfClosing) stack.push(name);
  }
  if (stack.length > 0) throw new Error(`unclosed elements: ${stack.join(' > ')}`);
  if (root === '') throw new Error('no root element');
  return { root, rootAttributes, counts };
}

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
      const xml = wellFormedXml(text);
      expect(xml.root).toBe('feed');
      expect(xml.rootAttributes.xmlns).toBe('http://www.w3.org/2005/Atom');
      expect(xml.counts.get('entry')).toBe(5);
      expect(text).toContain('Example Sats Lending: MEDIUM to LOW');
      expect(text).toContain(`/verify/${engineIndicator(provenReserves).risk_indicator_id}`);
    });

    it('the XML check itself refuses broken documents', () => {
      expect(() => wellFormedXml('<feed><entry></feed>')).toThrow();
      expect(() => wellFormedXml('<feed>a & b</feed>')).toThrow();
      expect(() => wellFormedXml('<a></a><b></b>')).toThrow();
      expect(() => wellFormedXml('<feed x="1" x="2"/>')).toThrow();
      expect(wellFormedXml('<?xml version="1.0"?><feed a="1"><e>&amp;</e><e/></feed>').counts.get('e')).toBe(2);
    });
  });
});
