import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildPackage,
  canonicalJson,
  type InputsDocument,
  readJson,
  score,
  scoreWithPackage,
  serializePackage,
  validateInputs,
  verifyPackage,
} from '../index.js';
import { documentArb, FRAMEWORK } from './arbitraries.js';

/**
 * Every output byte of the engine, pinned: indicators, packages, hashes,
 * identifiers and validation problems of ~200 documents, hashed into one
 * constant recorded from the engine before any speed work. A change of any
 * output byte changes the hash; a speed-up must leave it as it is.
 */

/**
 * Fixed here (not FC_SEED): the constant below belongs to exactly these documents. It was recorded
 * again when free text began to refuse control characters (issue 11 item 4): the generated names and
 * sources keep that rule since (arbitraries.ts), so the sample changed; the constant was recorded from
 * the engine before the rule and is the same after it, so no result of a valid document changed.
 */
const GOLDEN_SEED = 20_260_401;
const GOLDEN_SHA256 = '3a308f1d4e35bdb4447ac9baf7b7f81e9800b65e689f359c624afc61d73a55b8';

const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const exampleTexts = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => readFileSync(join(examplesDir, f), 'utf8'));

const DOCUMENTS: InputsDocument[] = [
  ...exampleTexts.map((t) => JSON.parse(t) as InputsDocument),
  ...fc.sample(documentArb, { seed: GOLDEN_SEED, numRuns: 200 }),
];

type Doc = { [key: string]: unknown; provider: Record<string, unknown>; inputs: Record<string, unknown> };
const copy = (doc: InputsDocument): Doc => structuredClone(doc) as unknown as Doc;
const firstItem = (d: Doc) => Object.values(d.inputs)[0] as Record<string, unknown> | undefined;

/** Deliberate breakages, each applied to several documents: every kind of problem validation reports. */
const BREAKAGES: ((d: Doc) => void)[] = [
  (d) => (d.extra = 1),
  (d) => (d.provider.rating = 'AAA'),
  (d) => delete (d as Record<string, unknown>).provider,
  (d) => (d.provider.id = 'provider-1'),
  (d) => (d.provider.name = ''),
  (d) => (d.provider.name = 'x'.repeat(201)),
  (d) => (d.provider.planner_type = 'gold'),
  (d) => (d.provider.provider_subtype = 'Lender'),
  (d) => (d.provider.yield_min = -1),
  (d) => (d.provider.yield_max = 100.5),
  (d) => (d.provider.yield_max = '7.25'),
  (d) => (d.provider.yield_min = 0.1 + 0.2),
  (d) => (d.provider.yield_max = 1.0000000000000002),
  (d) => {
    d.provider.yield_min = 8;
    d.provider.yield_max = 7;
  },
  (d) => (d.evaluation_date = '30/06/2026'),
  (d) => (d.evaluation_date = '2026-02-29'),
  (d) => (d.evaluation_date = '2000-01-01'),
  (d) => (d.inputs.reserve_magic = { value: 1 }),
  (d) => ((d as Record<string, unknown>).inputs = []),
  (d) => (d.inputs.custody_model = null),
  (d) => (d.inputs.custody_model = { value: 'vault', as_of: '2026-13-01', source: '', approved_by: 7 }),
  (d) => (d.inputs.collateral_coverage_ratio = { value: '1.35', as_of: '2026-05-31', note: 'x' }),
  (d) => (d.inputs.redemption_notice_days = { value: 7.5, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.redemption_notice_days = { value: -1, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.benchmark_rate_pct = { value: 101, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.default_or_freeze_36m = { value: 'false', as_of: 'x', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.largest_counterparty_exposure_pct = { value: 1e21, as_of: '2026-05-31' }),
  (d) => (d.inputs.operating_history_years = { value: 1e-7, approved_at: '2026-06-02T10:00:00+02:00' }),
  (d) => (d.inputs.duration_gap_days = { value: Number.NaN, approved_at: '2026-06-02T24:00:00Z' }),
  (d) => {
    const item = firstItem(d);
    if (item) item.source = 'pack \ud800';
  },
  (d) => {
    const item = firstItem(d);
    if (item) item.as_of = '2999-01-01';
  },
  (d) => {
    const item = firstItem(d);
    if (item) item.value = null;
  },
  (d) => {
    const item = firstItem(d);
    if (item) delete item.approved_by;
  },
];

/** JSON texts for readJson: too-precise numbers, exponents, duplicate keys and syntax errors among valid ones. */
const JSON_TEXTS = [
  ...exampleTexts,
  ...DOCUMENTS.slice(5, 25).map((d) => JSON.stringify(d)),
  ...exampleTexts.map((t) => t.replace(/"value": 1\.35/, '"value": 1.35000000000000000001')),
  ...exampleTexts.map((t) => t.replace(/"yield_max": ([0-9.]+)/, '"yield_max": $1e0')),
  ...exampleTexts.map((t) => t.replace(/"yield_min": ([0-9.]+)/, '"yield_min": 0.1234567890123456')),
  ...exampleTexts.map((t) => t.replace(/"yield_min": ([0-9.]+)/, '"yield_min": 123456789012345.0')),
  '{"a": 1, "a": 2}',
  '{"provider": {"__proto__": {"x": 1}}, "inputs": {}, "evaluation_date": "2026-06-30"}',
  '{"a": 12345678901234567890, "b": -0.000000000000000000012345, "c": 1E400, "d": -0}',
  '[1, 2',
  '',
];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function outcomeOf(run: () => unknown): string {
  try {
    return canonicalJson(run());
  } catch (error) {
    const e = error as Error & { problems?: unknown };
    return `${e.name}: ${e.message} ${e.problems === undefined ? '' : canonicalJson(e.problems)}`;
  }
}

function goldenLines(): string[] {
  const lines: string[] = [];
  DOCUMENTS.forEach((doc, i) => {
    lines.push(canonicalJson(score(doc, FRAMEWORK)));
    const scored = scoreWithPackage(doc, FRAMEWORK);
    const bytes = serializePackage(scored.package);
    lines.push(canonicalJson(scored.indicator), bytes);
    if (i % 10 === 0) {
      lines.push(serializePackage(buildPackage(doc, FRAMEWORK)));
      lines.push(canonicalJson(verifyPackage(readJson(bytes), bytes)));
    }
  });
  BREAKAGES.forEach((breakage, b) => {
    for (const doc of DOCUMENTS.slice(b % 7, (b % 7) + 3)) {
      const broken = copy(doc);
      breakage(broken);
      lines.push(canonicalJson(validateInputs(broken, FRAMEWORK)));
      lines.push(outcomeOf(() => score(broken, FRAMEWORK)));
    }
  });
  for (const text of JSON_TEXTS) {
    lines.push(
      outcomeOf(() => {
        const value = readJson(text);
        return { value: String(JSON.stringify(value)), validation: validateInputs(value, FRAMEWORK) };
      }),
    );
  }
  return lines;
}

describe('golden outputs', () => {
  it(`every indicator, package, hash and problem list is byte-identical (seed ${GOLDEN_SEED})`, () => {
    const lines = goldenLines();
    expect(lines.length).toBeGreaterThan(900);
    expect(sha256(lines.join('\n'))).toBe(GOLDEN_SHA256);
  });
});
