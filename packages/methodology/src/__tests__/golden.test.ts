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
import { BREAKAGES, copy } from './breakages.js';

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
