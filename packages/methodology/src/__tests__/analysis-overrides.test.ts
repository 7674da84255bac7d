import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  checkInputs,
  currentFramework,
  type InputsDocument,
  type InputValue,
  indicatorChanges,
  type Problem,
  score,
} from '../index.js';
import { criterionOf, documentWithInputsArb, improvedValueArb, SEED, toUnits } from './arbitraries.js';

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 200 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs per property (replay with FC_SEED=${SEED})`);

const fw = currentFramework();
const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const example = (name: string): InputsDocument =>
  checkInputs(JSON.parse(readFileSync(join(examplesDir, `${name}.json`), 'utf8')), fw);
const worked = example('worked-example');

function problemsOf(overrides: Record<string, unknown>, doc: InputsDocument = worked): Problem[] {
  const result = applyOverrides(doc, overrides, fw);
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('applyOverrides refuses what validation refuses, with paths', () => {
  it('an unknown input key', () => {
    expect(problemsOf({ collateral_ratio: 1.5 })).toEqual([
      { path: 'inputs.collateral_ratio', message: 'is not an input key of DCRF v1.0' },
    ]);
  });

  it('a value of the wrong type', () => {
    expect(problemsOf({ custody_model: 3 })).toEqual([
      {
        path: 'inputs.custody_model.value',
        message:
          'must be one of exchange_hot_wallet, single_custodian, qualified_custodian, multi_institution_multisig, collaborative_client_keys; got number 3',
      },
    ]);
    expect(problemsOf({ collateral_coverage_ratio: '1.5' })[0]?.path).toBe('inputs.collateral_coverage_ratio.value');
    expect(problemsOf({ default_or_freeze_36m: null })[0]?.path).toBe('inputs.default_or_freeze_36m.value');
  });

  it('a value out of range or not whole', () => {
    expect(problemsOf({ collateral_coverage_ratio: -0.1 })).toEqual([
      { path: 'inputs.collateral_coverage_ratio.value', message: 'must be >= 0, got -0.1' },
    ]);
    expect(problemsOf({ largest_counterparty_exposure_pct: 100.5 })).toEqual([
      { path: 'inputs.largest_counterparty_exposure_pct.value', message: 'must be <= 100, got 100.5' },
    ]);
    expect(problemsOf({ redemption_notice_days: 7.5 })).toEqual([
      { path: 'inputs.redemption_notice_days.value', message: 'must be a whole number, got 7.5' },
    ]);
  });

  it('every problem at once, sorted by path', () => {
    expect(problemsOf({ redemption_notice_days: -1, custody_model: 'vault', zzz: true }).map((p) => p.path)).toEqual([
      'inputs.custody_model.value',
      'inputs.redemption_notice_days.value',
      'inputs.zzz',
    ]);
  });

  it('an override object with a field other than value and as_of, or without a value', () => {
    expect(problemsOf({ custody_model: { value: 'single_custodian', source: 'call notes' } })).toEqual([
      { path: 'inputs.custody_model.source', message: 'is not a field of an override (value, as_of)' },
    ]);
    expect(problemsOf({ custody_model: { as_of: '2026-06-01' } })).toEqual([
      { path: 'inputs.custody_model.value', message: 'is required' },
    ]);
  });

  it('an evidence date after the evaluation date, or not a date', () => {
    expect(problemsOf({ custody_model: { value: 'single_custodian', as_of: '2026-07-01' } })).toEqual([
      { path: 'inputs.custody_model.as_of', message: 'as_of 2026-07-01 is after the evaluation date 2026-06-30' },
    ]);
    expect(problemsOf({ custody_model: { value: 'single_custodian', as_of: '30/06/2026' } })[0]?.path).toBe(
      'inputs.custody_model.as_of',
    );
  });

  it('a "__proto__" key is an unknown input, never a prototype', () => {
    const overrides = JSON.parse('{"__proto__": {"value": 1}}') as Record<string, unknown>;
    expect(problemsOf(overrides)).toEqual([{ path: 'inputs.__proto__', message: 'is not an input key of DCRF v1.0' }]);
    expect(({} as Record<string, unknown>).value).toBeUndefined();
  });

  it('overrides that are not an object', () => {
    expect(problemsOf([] as unknown as Record<string, unknown>)).toEqual([
      { path: 'overrides', message: 'overrides must be a JSON object of input keys' },
    ]);
  });
});

describe('applyOverrides replaces values and nothing else', () => {
  it('a plain value keeps the item’s as_of, source and approvals, and changes exactly that criterion', () => {
    const result = applyOverrides(worked, { collateral_coverage_ratio: 1.4778 }, fw);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.document.inputs.collateral_coverage_ratio).toEqual({
      ...worked.inputs.collateral_coverage_ratio,
      value: 1.4778,
    });
    expect({ ...result.document, inputs: { ...result.document.inputs, collateral_coverage_ratio: null } }).toEqual({
      ...worked,
      inputs: { ...worked.inputs, collateral_coverage_ratio: null },
    });
    // 1.4778 scores 100 x 1.4778 - 60 = 87.78 points (from 75): +12.78 points, +1.5336 -> 80.00 (from 78.46).
    expect(indicatorChanges(score(worked, fw), score(result.document, fw))).toEqual({
      final_score_delta: 1.54,
      band_from: 'MEDIUM',
      band_to: 'LOW',
      criteria: [
        {
          criterion_id: 'A1',
          input_key: 'collateral_coverage_ratio',
          value_before: 1.35,
          value_after: 1.4778,
          points_before: 75,
          points_after: 87.78,
          points_delta: 12.78,
        },
      ],
    });
  });

  it('an object {value, as_of} also moves the evidence date', () => {
    const result = applyOverrides(worked, { custody_model: { value: 'single_custodian', as_of: '2025-01-02' } }, fw);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.document.inputs.custody_model).toMatchObject({ value: 'single_custodian', as_of: '2025-01-02' });
    // 544 days old: B1 is stale evidence, so HC-07 caps the score at 64.99.
    const after = score(result.document, fw);
    expect(after.criterion_scores.find((c) => c.criterion_id === 'B1')?.age_days).toBe(544);
    expect(after.svc_decision_object.hard_caps_fired.map((c) => c.cap_id)).toEqual(['HC-07']);
  });

  it('a missing input is added as evidence dated on the evaluation date', () => {
    const sparse = example('missing-inputs');
    const result = applyOverrides(sparse, { custody_model: 'qualified_custodian' }, fw);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.document.inputs.custody_model).toEqual({
      value: 'qualified_custodian',
      as_of: '2026-07-15',
      source: 'what-if override',
      approved_by: 'what-if',
      approved_at: '2026-07-15T00:00:00Z',
    });
    const changes = indicatorChanges(score(sparse, fw), score(result.document, fw));
    expect(changes.criteria).toEqual([
      {
        criterion_id: 'B1',
        input_key: 'custody_model',
        value_before: null,
        value_after: 'qualified_custodian',
        points_before: 0,
        points_after: 75,
        points_delta: 75,
      },
    ]);
  });

  it('does not touch the document it is given', () => {
    const copy = structuredClone(worked);
    applyOverrides(
      worked,
      { collateral_coverage_ratio: 2, custody_model: { value: 'single_custodian', as_of: '2026-01-01' } },
      fw,
    );
    expect(worked).toEqual(copy);
  });

  it('property: overriding one input with another valid value changes only that criterion in the indicator', () => {
    const arb = documentWithInputsArb.chain((doc) =>
      fc.constantFrom(...Object.keys(doc.inputs)).chain((key) =>
        improvedValueArb(criterionOf(key), doc.inputs[key]?.value as InputValue).map((value) => ({
          doc,
          key,
          value,
        })),
      ),
    );
    fc.assert(
      fc.property(arb, ({ doc, key, value }) => {
        const result = applyOverrides(doc, { [key]: value }, fw);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.document.inputs[key]).toEqual({ ...doc.inputs[key], value });
        const [before, after] = [score(doc, fw), score(result.document, fw)];
        const changes = indicatorChanges(before, after);
        const same = value === doc.inputs[key]?.value;
        expect(changes.criteria.map((c) => [c.input_key, c.value_after])).toEqual(same ? [] : [[key, value]]);
        const delta = toUnits(after.final_score, 2) - toUnits(before.final_score, 2);
        expect(toUnits(changes.final_score_delta, 2)).toBe(delta);
      }),
    );
  });
});

describe('indicatorChanges', () => {
  it('deltas are exact decimals, not binary floating point (80.00 - 78.46 is 1.54, not 1.5400000000000063)', () => {
    const before = score(worked, fw);
    const result = applyOverrides(worked, { duration_gap_days: 16 }, fw);
    if (!result.ok) throw new Error('invalid');
    const changes = indicatorChanges(before, score(result.document, fw));
    // D2: 45 days scores 61.25, 16 days 84: +22.75 points, +1.5925 -> 80.055 -> 80.06 (half-even), delta 1.60.
    expect(changes.final_score_delta).toBe(1.6);
    expect(changes.criteria).toEqual([
      {
        criterion_id: 'D2',
        input_key: 'duration_gap_days',
        value_before: 45,
        value_after: 16,
        points_before: 61.25,
        points_after: 84,
        points_delta: 22.75,
      },
    ]);
    expect(80.06 - 78.46).not.toBe(1.6);
  });

  it('lists nothing between an indicator and itself, and a negative delta for a worse value', () => {
    const before = score(worked, fw);
    expect(indicatorChanges(before, before)).toEqual({
      final_score_delta: 0,
      band_from: 'MEDIUM',
      band_to: 'MEDIUM',
      criteria: [],
    });
    const worse = applyOverrides(worked, { custody_model: 'exchange_hot_wallet' }, fw);
    if (!worse.ok) throw new Error('invalid');
    const changes = indicatorChanges(before, score(worse.document, fw));
    // HC-06 caps at 64.99: 64.99 - 78.46 = -13.47; B1 75 -> 10 points.
    expect([changes.final_score_delta, changes.band_to, changes.criteria[0]?.points_delta]).toEqual([
      -13.47,
      'ELEVATED',
      -65,
    ]);
  });

  it('refuses indicators of different frameworks', () => {
    const before = score(worked, fw);
    expect(() => indicatorChanges(before, { ...before, framework_version: 'DCRF v2.0' })).toThrow(
      /different frameworks/,
    );
  });
});
