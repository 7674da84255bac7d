import { type RiskIndicatorResponse, ScoresListResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { HEADLINE } from '../../src/http/routes/export-scores.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { ctxOf } from '../support/context.js';
import { example, type InputsDoc, variantOf } from '../support/documents.js';
import { expectInvalid, expectJson } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

/** Names a spreadsheet would run as a formula, one for each dangerous first character. */
const FORMULA_NAMES = ['=HYPERLINK("http://x")', '+Plus Credit', '-Minus', '@At Lending'];
const COMMA_QUOTE_NAME = 'Comma, "Quoted" Lending';

const PROVIDERS: InputsDoc[] = [
  variantOf(example('worked-example'), 1, { name: FORMULA_NAMES[0] }),
  variantOf(example('low-band'), 2, { name: FORMULA_NAMES[1] }),
  variantOf(example('multiple-caps'), 3, { name: FORMULA_NAMES[2] }),
  variantOf(example('worked-example'), 4, { name: FORMULA_NAMES[3], planner_type: 'stablecoin' }),
  variantOf(example('low-band'), 5, { name: COMMA_QUOTE_NAME }),
  variantOf(example('worked-example'), 6, { name: 'Société Générale Sats' }),
  variantOf(example('multiple-caps'), 7, { name: 'Plain Stable Yield', planner_type: 'fiat' }),
];
const WITHDRAWN = variantOf(example('low-band'), 8, { name: 'Withdrawn Harbour' });

/**
 * RFC 4180, strictly: records end with CRLF, fields are bare (no quote, comma, CR or LF) or quoted
 * with inner quotes doubled. Throws on anything else, so a malformed export fails the test.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let at = 0;
  while (at < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[at] === '"') {
        at++;
        for (;;) {
          const quote = text.indexOf('"', at);
          if (quote < 0) throw new Error(`unterminated quoted field at ${at}`);
          field += text.slice(at, quote);
          at = quote + 1;
          if (text[at] !== '"') break;
          field += '"';
          at++;
        }
      } else {
        const bare = /^[^",\r\n]*/.exec(text.slice(at))?.[0] ?? '';
        field = bare;
        at += bare.length;
      }
      record.push(field);
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text.startsWith('\r\n', at)) {
        at += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${at}, found ${JSON.stringify(text.slice(at, at + 10))}`);
    }
    records.push(record);
  }
  return records;
}

/** A name as the export writes it: a leading formula character defused with an apostrophe. */
const exported = (name: string) => (/^[=+\-@\t\r]/.test(name) ? `'${name}` : name);

describe('the test CSV parser', () => {
  it('reads quoted fields, doubled quotes, empty fields and line breaks inside quotes', () => {
    expect(parseCsv('a,"b,c","d ""e""",,"f\r\ng"\r\n1,2,3,4,5\r\n')).toEqual([
      ['a', 'b,c', 'd "e"', '', 'f\r\ng'],
      ['1', '2', '3', '4', '5'],
    ]);
  });

  it('refuses a record without CRLF and a stray quote', () => {
    expect(() => parseCsv('a,b\n')).toThrow();
    expect(() => parseCsv('a,b')).toThrow();
    expect(() => parseCsv('a,"b\r\n')).toThrow();
    expect(() => parseCsv('a,b"c\r\n')).toThrow();
  });
});

describe.each(engines)('GET /api/v1/scores/export.csv on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [...PROVIDERS, WITHDRAWN]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: WITHDRAWN.provider.id,
      reason: 'ceased lending',
    });
    key = await s.key('PROFESSIONAL');
  });

  const list = async (query = ''): Promise<RiskIndicatorResponse[]> =>
    (await expectJson(await server().get(`/api/v1/scores?limit=500${query}`, { key }), ScoresListResponseSchema)).data;

  async function exportCsv(query = ''): Promise<{ res: Response; text: string; records: string[][] }> {
    const res = await server().get(`/api/v1/scores/export.csv${query}`, { key });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { res, text, records: parseCsv(text) };
  }

  /** Each data row against the JSON list, field by field, in the same order. */
  function expectRowsOf(records: string[][], indicators: RiskIndicatorResponse[]): void {
    const [head, ...rows] = records;
    const modules = indicators[0]?.score_commentary.modules.map((m) => m.module_id) ?? [];
    expect(head).toEqual([...HEADLINE, ...modules.map((id) => `module_${id}_score`)]);
    expect(rows.map((r) => r[0])).toEqual(indicators.map((i) => i.id));
    for (const [n, row] of rows.entries()) {
      const i = indicators[n] as RiskIndicatorResponse;
      expect(row).toHaveLength(HEADLINE.length + modules.length);
      const cell = Object.fromEntries(HEADLINE.map((field, k) => [field, row[k]]));
      expect(cell, i.name).toEqual({
        provider_id: i.id,
        name: exported(i.name),
        planner_type: i.planner_type,
        provider_subtype: i.provider_subtype,
        final_score: i.final_score.toFixed(2),
        risk_band: i.risk_band,
        confidence: i.confidence.toFixed(4),
        framework_version: i.framework_version,
        scored_at: i.scored_at,
        score_verified_at: i.score_verified_at,
        published_at: i.published_at,
        risk_indicator_id: i.risk_indicator_id,
        // The outlook and the watch in force (empty cells: no watch).
        outlook: i.outlook,
        watch_direction: i.watch?.direction ?? '',
        watch_since: i.watch?.since ?? '',
        watch_review_by: i.watch?.review_by ?? '',
      });
      expect(Number(cell.final_score)).toBe(i.final_score);
      const moduleScores = row.slice(HEADLINE.length).map(Number);
      expect(moduleScores, i.name).toEqual(
        modules.map((id) => i.score_commentary.modules.find((m) => m.module_id === id)?.score),
      );
    }
  }

  keyedRouteSecurity('exportScores', server, () => '/api/v1/scores/export.csv');

  describe('happy path', () => {
    it('is an attachment of text/csv with a header row', async () => {
      const { res, records } = await exportCsv();
      expect(res.headers.get('content-type')).toMatch(/^text\/csv\b/);
      expect(res.headers.get('content-type')).toMatch(/charset=utf-8/i);
      expect(res.headers.get('content-disposition')).toMatch(
        /^attachment; filename="risk-indicators-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      expect(records[0]?.slice(0, HEADLINE.length)).toEqual([...HEADLINE]);
      expect(records[0]?.slice(HEADLINE.length).every((h) => /^module_\w+_score$/.test(h))).toBe(true);
    });

    it('has one row per current provider, by name, each equal to the JSON list (scores, bands, module scores)', async () => {
      const indicators = await list();
      expect(indicators).toHaveLength(PROVIDERS.length);
      const { records } = await exportCsv();
      expect(records).toHaveLength(PROVIDERS.length + 1);
      expectRowsOf(records, indicators);
      expect(new Set(indicators.map((i) => i.risk_band)).size).toBe(3);
    });

    it('writes each column of figures at one precision: final_score 2 places, confidence 4, module scores 6', async () => {
      const { records } = await exportCsv();
      const [head, ...rows] = records as [string[], ...string[][]];
      const places = (cell: string) => (/^-?\d+\.(\d+)$/.exec(cell)?.[1] ?? '').length;
      const expected = (column: string) => (column === 'final_score' ? 2 : column === 'confidence' ? 4 : 6);
      const numeric = head.filter((h) => h === 'final_score' || h === 'confidence' || /^module_\w+_score$/.test(h));
      expect(numeric).toHaveLength(2 + (head.length - HEADLINE.length));
      const found: Record<string, number[]> = {};
      for (const column of numeric) {
        const at = head.indexOf(column);
        found[column] = [...new Set(rows.map((r) => places(r[at] ?? '')))];
      }
      expect(found).toEqual(Object.fromEntries(numeric.map((c) => [c, [expected(c)]])));
    });

    it('a withdrawn provider has no row', async () => {
      const { text, records } = await exportCsv();
      expect(records.map((r) => r[0])).not.toContain(WITHDRAWN.provider.id);
      expect(text).not.toContain('Withdrawn Harbour');
    });

    it('names starting with =, +, - or @ come out behind an apostrophe; no cell starts a formula', async () => {
      const { records } = await exportCsv();
      const names = records.slice(1).map((r) => r[1]);
      for (const name of FORMULA_NAMES) {
        expect(names).toContain(`'${name}`);
        expect(names).not.toContain(name);
      }
      for (const row of records) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    });

    it('a name with a comma and quotes is quoted with the quotes doubled, and round-trips', async () => {
      const { text, records } = await exportCsv();
      expect(text).toContain(`,"Comma, ""Quoted"" Lending",`);
      expect(records.slice(1).map((r) => r[1])).toContain(COMMA_QUOTE_NAME);
    });

    it('accented names are written as UTF-8 text', async () => {
      const { records } = await exportCsv();
      expect(records.slice(1).map((r) => r[1])).toContain('Société Générale Sats');
    });

    it('planner_type keeps only the rows of that planner type, as the JSON list does', async () => {
      for (const type of ['btc', 'fiat', 'stablecoin'] as const) {
        const indicators = await list(`&planner_type=${type}`);
        expect(indicators.length).toBeGreaterThan(0);
        const { records } = await exportCsv(`?planner_type=${type}`);
        expectRowsOf(records, indicators);
        expect(records.slice(1).every((r) => r[2] === type)).toBe(true);
      }
    });
  });

  describe('errors', () => {
    it('a planner_type outside btc, fiat, stablecoin gets 400 listing the allowed values', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores/export.csv?planner_type=gold', { key }), [
        'query.planner_type',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/btc.*fiat.*stablecoin/);
    });

    it('an unknown query parameter gets 400 naming it', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores/export.csv?limit=5', { key }), [
        'query.limit',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/not a query parameter/);
    });
  });
});
