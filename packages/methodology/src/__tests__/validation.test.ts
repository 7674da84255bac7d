import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { currentFramework, InputsError, readJson, score, validateInputs } from '../index.js';

const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const workedText = readFileSync(join(examplesDir, 'worked-example.json'), 'utf8');
const fw = currentFramework();

type Doc = {
  provider: Record<string, unknown>;
  evaluation_date: unknown;
  inputs: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};
const worked = (): Doc => JSON.parse(workedText);

function problemsOf(doc: unknown) {
  const v = validateInputs(doc, fw);
  if (v.ok) throw new Error('expected the document to be refused');
  return v.problems;
}

describe('a valid document', () => {
  it('validates and scores', () => {
    expect(validateInputs(worked(), fw).ok).toBe(true);
  });

  it('accepts 7.0 as the integer 7', () => {
    const doc = worked();
    (doc.inputs.redemption_notice_days as Record<string, unknown>).value = 7.0;
    expect(validateInputs(doc, fw).ok).toBe(true);
  });

  it('accepts a document with inputs missing', () => {
    const doc = worked();
    delete doc.inputs.proof_of_reserves;
    expect(validateInputs(doc, fw).ok).toBe(true);
  });
});

describe('every problem is reported at once with its path', () => {
  it('names an unknown input key, a wrong type, an out-of-domain value and an as_of after the evaluation date together', () => {
    const doc = worked();
    doc.inputs.reserve_magic = { ...doc.inputs.custody_model };
    (doc.inputs.custody_model as Record<string, unknown>).value = 42;
    (doc.inputs.largest_counterparty_exposure_pct as Record<string, unknown>).value = 140;
    (doc.inputs.rehypothecation as Record<string, unknown>).as_of = '2026-07-01';
    const paths = problemsOf(doc).map((p) => p.path);
    expect(paths).toEqual([
      'inputs.custody_model.value',
      'inputs.largest_counterparty_exposure_pct.value',
      'inputs.rehypothecation.as_of',
      'inputs.reserve_magic',
    ]);
  });

  it('says what is wrong in each message', () => {
    const doc = worked();
    (doc.inputs.custody_model as Record<string, unknown>).value = 'vault';
    const [problem] = problemsOf(doc);
    expect(problem?.message).toContain('must be one of exchange_hot_wallet, single_custodian');
    expect(problem?.message).toContain('vault');
  });

  it('scores nothing from an invalid document: score throws InputsError with the problems', () => {
    const doc = worked();
    doc.evaluation_date = '2026-02-30';
    expect(() => score(doc, fw)).toThrow(InputsError);
    try {
      score(doc, fw);
    } catch (error) {
      expect((error as InputsError).problems.map((p) => p.path)).toContain('evaluation_date');
    }
  });
});

describe('the rules of methodology section 2', () => {
  const cases: [string, (d: Doc) => void, string, string][] = [
    ['an unknown document field', (d) => (d.extra = 1), 'extra', 'is not a field of the document'],
    ['an unknown provider field', (d) => (d.provider.rating = 'AAA'), 'provider.rating', 'is not a field of provider'],
    [
      'an unknown input item field',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).note = 'x'),
      'inputs.custody_model.note',
      'is not a field of an input item',
    ],
    ['a missing provider', (d) => delete (d as Record<string, unknown>).provider, 'provider', 'is required'],
    ['a non-UUID id', (d) => (d.provider.id = 'provider-1'), 'provider.id', 'must be a UUID'],
    ['an empty name', (d) => (d.provider.name = ''), 'provider.name', 'must be 1 to 200 characters'],
    ['a 201-character name', (d) => (d.provider.name = 'x'.repeat(201)), 'provider.name', '1 to 200'],
    [
      'an unknown planner type',
      (d) => (d.provider.planner_type = 'gold'),
      'provider.planner_type',
      'btc, fiat, stablecoin',
    ],
    [
      'an upper-case subtype',
      (d) => (d.provider.provider_subtype = 'Lender'),
      'provider.provider_subtype',
      'a-z, 0-9 and _',
    ],
    ['a negative yield', (d) => (d.provider.yield_min = -1), 'provider.yield_min', 'must be >= 0'],
    ['a yield over 100', (d) => (d.provider.yield_max = 100.5), 'provider.yield_max', 'must be <= 100'],
    [
      'yield_min above yield_max',
      (d) => {
        d.provider.yield_min = 8;
        d.provider.yield_max = 7;
      },
      'provider.yield_min',
      'must not exceed yield_max',
    ],
    ['a yield as a string', (d) => (d.provider.yield_max = '7.25'), 'provider.yield_max', 'must be a JSON number'],
    ['a malformed evaluation date', (d) => (d.evaluation_date = '30/06/2026'), 'evaluation_date', 'YYYY-MM-DD'],
    ['an impossible calendar date', (d) => (d.evaluation_date = '2026-02-29'), 'evaluation_date', 'YYYY-MM-DD'],
    [
      'an as_of after the evaluation date',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).as_of = '2026-07-01'),
      'inputs.custody_model.as_of',
      'is after the evaluation date 2026-06-30',
    ],
    [
      'a non-UTC approval timestamp',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).approved_at = '2026-06-02T10:00:00+02:00'),
      'inputs.custody_model.approved_at',
      'UTC timestamp',
    ],
    [
      'an empty source',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).source = ''),
      'inputs.custody_model.source',
      'must not be empty',
    ],
    [
      'a missing approver',
      (d) => delete (d.inputs.custody_model as Record<string, unknown>).approved_by,
      'inputs.custody_model.approved_by',
      'is required',
    ],
    [
      'a null value',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).value = null),
      'inputs.custody_model.value',
      'null',
    ],
    [
      'a decimal written as a string',
      (d) => ((d.inputs.collateral_coverage_ratio as Record<string, unknown>).value = '1.35'),
      'inputs.collateral_coverage_ratio.value',
      'must be a JSON number',
    ],
    [
      'a fractional integer',
      (d) => ((d.inputs.redemption_notice_days as Record<string, unknown>).value = 7.5),
      'inputs.redemption_notice_days.value',
      'must be a whole number',
    ],
    [
      'a negative notice period',
      (d) => ((d.inputs.redemption_notice_days as Record<string, unknown>).value = -1),
      'inputs.redemption_notice_days.value',
      'must be >= 0',
    ],
    [
      'a boolean written as a string',
      (d) => ((d.inputs.default_or_freeze_36m as Record<string, unknown>).value = 'false'),
      'inputs.default_or_freeze_36m.value',
      'must be true or false',
    ],
    [
      'a benchmark over 100',
      (d) => ((d.inputs.benchmark_rate_pct as Record<string, unknown>).value = 101),
      'inputs.benchmark_rate_pct.value',
      'must be <= 100',
    ],
    [
      'a lone surrogate in a source',
      (d) => ((d.inputs.custody_model as Record<string, unknown>).source = 'pack \ud800'),
      'inputs.custody_model.source',
      'well-formed Unicode',
    ],
    [
      'inputs given as an array',
      (d) => ((d as Record<string, unknown>).inputs = []),
      'inputs',
      'must be a JSON object',
    ],
  ];

  for (const [what, mutate, path, message] of cases) {
    it(`refuses ${what}`, () => {
      const doc = worked();
      mutate(doc);
      const problems = problemsOf(doc);
      expect(problems.map((p) => p.path)).toContain(path);
      expect(problems.find((p) => p.path === path)?.message).toContain(message);
    });
  }

  it('refuses a document that is not an object, with a root path', () => {
    for (const raw of [null, 42, 'text', [], undefined]) {
      expect(problemsOf(raw)).toEqual([{ path: '', message: expect.stringContaining('JSON object') }]);
    }
  });

  it('refuses control characters, line breaks and bidi overrides in every free-text field, naming each path and the character', () => {
    const doc = worked();
    doc.provider.name = 'Evil\u0000Lending';
    (doc.inputs.custody_model as Record<string, unknown>).source = 'pack\u001b[2Jcleared';
    (doc.inputs.proof_of_reserves as Record<string, unknown>).approved_by = 'Alice\r\nBob';
    (doc.inputs.redemption_notice_days as Record<string, unknown>).source = 'report \u202egnp.exe';
    (doc.inputs.collateral_coverage_ratio as Record<string, unknown>).approved_by = 'C1\u0085next';
    (doc.inputs.operating_history_years as Record<string, unknown>).source = 'isolate\u2066x\u2069';
    expect(problemsOf(doc)).toEqual([
      {
        path: 'inputs.collateral_coverage_ratio.approved_by',
        message: expect.stringContaining('found U+0085 at character 3'),
      },
      { path: 'inputs.custody_model.source', message: expect.stringContaining('found U+001B at character 5') },
      {
        path: 'inputs.operating_history_years.source',
        message: expect.stringContaining('found U+2066 at character 8'),
      },
      { path: 'inputs.proof_of_reserves.approved_by', message: expect.stringContaining('found U+000D at character 6') },
      { path: 'inputs.redemption_notice_days.source', message: expect.stringContaining('found U+202E at character 8') },
      { path: 'provider.name', message: expect.stringContaining('found U+0000 at character 5') },
    ]);
    expect(problemsOf(doc)[0]?.message).toMatch(/^must not hold control characters, bidirectional overrides/);
  });

  it('keeps every result of a valid document: names with accents, emoji, CJK and RTL letters are plain text', () => {
    const doc = worked();
    const before = score(worked(), fw);
    doc.provider.name = 'Société Générale 🚀 東京 شركة';
    const after = score(doc, fw);
    expect(after.final_score).toBe(before.final_score);
    expect(after.risk_band).toBe(before.risk_band);
  });

  it('refuses a JS number that is not finite (NaN, Infinity) from a programmatic caller', () => {
    const doc = worked();
    (doc.inputs.collateral_coverage_ratio as Record<string, unknown>).value = Number.NaN;
    (doc.inputs.operating_history_years as Record<string, unknown>).value = Number.POSITIVE_INFINITY;
    expect(problemsOf(doc).map((p) => p.path)).toEqual([
      'inputs.collateral_coverage_ratio.value',
      'inputs.operating_history_years.value',
    ]);
  });
});

describe('numbers are read exactly as written', () => {
  it('refuses a number with more than 15 significant digits instead of rounding it', () => {
    const text = workedText.replace('"value": 1.35', '"value": 1.35000000000000001');
    const problems = problemsOf(readJson(text));
    expect(problems).toEqual([
      { path: 'inputs.collateral_coverage_ratio.value', message: expect.stringContaining('more than 15 significant') },
    ]);
  });

  it('accepts 15 significant digits', () => {
    const text = workedText.replace('"value": 1.35', '"value": 1.35000000000001');
    expect(validateInputs(readJson(text), fw).ok).toBe(true);
  });

  it('treats trailing zeros as the same value (1.350 is 1.35)', () => {
    const a = score(readJson(workedText), fw);
    const b = score(readJson(workedText.replace('"value": 1.35', '"value": 1.350')), fw);
    expect(b.final_score).toBe(a.final_score);
  });

  it('refuses duplicate keys and bad JSON with a syntax error, never a partial document', () => {
    expect(() => readJson('{"a": 1, "a": 2}')).toThrow(/Duplicate key/);
    expect(() => readJson('{"a": ')).toThrow();
  });

  it('keeps __proto__ as a plain key, which validation then refuses', () => {
    const doc = readJson(workedText.replace('"evaluation_date"', '"__proto__": {"x": 1}, "evaluation_date"'));
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(problemsOf(doc).map((p) => p.path)).toEqual(['__proto__']);
  });
});
