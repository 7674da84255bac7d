import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  type CriterionDefinition,
  checkInputs,
  type InputsDocument,
  type InputValue,
  indicatorChanges,
  type NextBandPath,
  type NextBandStep,
  overridesOf,
  pathToNextBand,
  score,
  suggestionPlaces,
} from '../index.js';
import {
  breathe,
  CRITERIA,
  criterionOf,
  DEFINITION,
  documentArb,
  FRAMEWORK,
  fromUnits,
  improvingDirection,
  SEED,
  tableEntries,
  toUnits,
} from './arbitraries.js';

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 250 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs per property (replay with FC_SEED=${SEED})`);

const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const example = (name: string): InputsDocument =>
  checkInputs(JSON.parse(readFileSync(join(examplesDir, `${name}.json`), 'utf8')), FRAMEWORK);

/** The final score in hundredths, exactly. */
const hundredths = (n: number): bigint => toUnits(n, 2);

/** Scores the document with `key` set to `value`, dated like the step's suggestion. */
function scoreWith(doc: InputsDocument, key: string, value: InputValue, asOf: string | null): number {
  const applied = applyOverrides(doc, { [key]: asOf === null ? value : { value, as_of: asOf } }, FRAMEWORK);
  if (!applied.ok) throw new Error(`${key} = ${String(value)}: ${JSON.stringify(applied.problems)}`);
  return score(applied.document, FRAMEWORK).final_score;
}

/** Whether the evidence date a suggestion for this input assumes is the evaluation date (missing or stale input). */
function renewed(doc: InputsDocument, key: string): string | null {
  const item = doc.inputs[key];
  if (!item) return doc.evaluation_date;
  const age = (Date.parse(doc.evaluation_date) - Date.parse(item.as_of)) / 86_400_000;
  return age > DEFINITION.freshness.decay_until_days ? doc.evaluation_date : null;
}

const inDomain = (criterion: CriterionDefinition, units: bigint, places: number): boolean => {
  const { input } = criterion;
  const min = 'min' in input && input.min !== undefined ? toUnits(input.min, places) : null;
  const max = 'max' in input && input.max !== undefined ? toUnits(input.max, places) : null;
  return (min === null || units >= min) && (max === null || units <= max);
};

/** Is `a` a better value than `b` for this numeric criterion (strictly, along its improving direction)? */
const better = (criterion: CriterionDefinition, a: bigint, b: bigint) =>
  improvingDirection(criterion) === 1 ? a > b : a < b;

/**
 * The values a numeric input can take at its best, found independently of the
 * search: the bound it improves towards, or far past the anchors where it is
 * open, and every anchor of a scale on the input itself.
 */
function bestNumericValues(criterion: CriterionDefinition, places: number): bigint[] {
  const { input, scale } = criterion;
  if (scale.kind !== 'linear') return [];
  const up = improvingDirection(criterion) === 1;
  const bound = 'min' in input ? (up ? input.max : input.min) : undefined;
  const onInput = scale.on === 'input';
  const xs = onInput ? scale.anchors.map(([x]) => toUnits(x, places)) : [];
  const margin = toUnits('1000', places);
  const far = up ? (xs[xs.length - 1] ?? 0n) + margin : (xs[0] ?? 0n) - margin;
  const end = bound !== undefined ? toUnits(bound, places) : far;
  return [end, ...xs].filter((x) => inDomain(criterion, x, places));
}

function checkStep(doc: InputsDocument, path: NextBandPath, step: NextBandStep): void {
  const criterion = criterionOf(step.input_key);
  const min = hundredths(path.next_band_min_score as number);
  const asOf = renewed(doc, step.input_key);
  const reaches = (value: InputValue) => hundredths(scoreWith(doc, step.input_key, value, asOf)) >= min;
  const current = doc.inputs[step.input_key]?.value ?? null;
  expect(step.current_value).toBe(current);

  if (step.reachable) {
    const suggested = step.suggested_value as InputValue;
    expect(step.suggested_as_of).toBe(asOf);
    expect(step.reason).toBeNull();
    // The suggestion, applied alone through applyOverrides, reaches the band and gives the stated score.
    const applied = applyOverrides(doc, overridesOf(step) ?? {}, FRAMEWORK);
    expect(applied.ok).toBe(true);
    if (!applied.ok) return;
    const after = score(applied.document, FRAMEWORK);
    expect(hundredths(after.final_score) >= min, `${step.input_key} = ${String(suggested)}`).toBe(true);
    expect([after.final_score, after.risk_band]).toEqual([step.resulting_score, step.resulting_band]);
    // It changes that criterion alone.
    for (const change of indicatorChanges(score(doc, FRAMEWORK), after).criteria) {
      expect(change.criterion_id).toBe(step.criterion_id);
    }
    // The current value (renewed, where the suggestion renews it) does not reach, else it would be the suggestion.
    if (current !== null && suggested !== current) expect(reaches(current)).toBe(false);
    if (criterion.scale.kind === 'table') {
      // Minimal: no value with fewer points (and more than now) reaches the band.
      const entries = tableEntries(criterion).map(([v, p]) => [v, toUnits(p, 4)] as const);
      const pointsOf = (v: InputValue | null) => entries.find(([e]) => e === v)?.[1];
      const floor = current === null ? -1n : (pointsOf(current) as bigint);
      for (const [value, points] of entries) {
        if (points > floor && points < (pointsOf(suggested) as bigint))
          expect(reaches(value), String(value)).toBe(false);
      }
      if (current !== null && asOf === null) expect((pointsOf(suggested) as bigint) > floor).toBe(true);
    } else {
      // Minimal: one unit less of improvement, at the stated places, does not reach the band.
      const places = suggestionPlaces(criterion);
      const units = toUnits(suggested as number, places);
      if (suggested === current) {
        expect(asOf).not.toBeNull(); // only renewed evidence may keep the value
        return;
      }
      // An improvement: strictly better than the current value (compared exactly, at 12 places).
      if (current !== null)
        expect(better(criterion, toUnits(suggested as number, 12), toUnits(current as number, 12))).toBe(true);
      const less = units - BigInt(improvingDirection(criterion));
      if (inDomain(criterion, less, places)) {
        expect(reaches(Number(fromUnits(less, places))), `${step.input_key} = ${fromUnits(less, places)}`).toBe(false);
      }
    }
    return;
  }

  expect(step.suggested_value).toBeNull();
  expect([step.suggested_as_of, step.resulting_score, step.resulting_band]).toEqual([null, null, null]);
  expect(step.reason).toMatch(/\S/);
  // No value of the input reaches the band: every table value, or the best a numeric input can be.
  const values: InputValue[] =
    criterion.scale.kind === 'table'
      ? tableEntries(criterion).map(([v]) => v)
      : bestNumericValues(criterion, suggestionPlaces(criterion)).map((u) =>
          Number(fromUnits(u, suggestionPlaces(criterion))),
        );
  for (const value of current === null ? values : [current, ...values]) {
    expect(reaches(value), `${step.input_key} = ${String(value)}`).toBe(false);
  }
}

describe('pathToNextBand properties', () => {
  it('reaches and is minimal: each suggestion alone reaches the next band, one unit less does not, and no value of an unreachable input does', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const path = pathToNextBand(doc, FRAMEWORK);
        const indicator = score(doc, FRAMEWORK);
        expect([path.current_score, path.current_band]).toEqual([indicator.final_score, indicator.risk_band]);
        expect(path.next_band).toBe(indicator.svc_decision_object.next_band ?? null);
        if (path.next_band === null) {
          // The best band: said once, in the summary, with no steps.
          expect(path.steps).toEqual([]);
          expect(path.summary).toContain('the best band: there is no next band');
          return;
        }
        expect(path.steps.map((s) => s.criterion_id)).toEqual(CRITERIA.map((c) => c.id));
        for (const step of path.steps) checkStep(doc, path, step);
      }),
    );
    // About 25 s of scoring alone (250 documents, each step re-scored at and below its suggestion), several
    // times that beside the other suites on a loaded machine.
  }, 300_000);

  it('is deterministic: the same document gives the same path', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        expect(pathToNextBand(structuredClone(doc), FRAMEWORK)).toEqual(pathToNextBand(doc, FRAMEWORK));
      }),
      { numRuns: 50 },
    );
  });
});

describe('pathToNextBand examples', () => {
  const stepOf = (path: NextBandPath, id: string) => path.steps.find((s) => s.criterion_id === id) as NextBandStep;
  const suggestion = (step: NextBandStep) => [step.suggested_value, step.resulting_score, step.resulting_band];

  describe('the worked example: 78.46 MEDIUM, 1.54 below LOW', () => {
    const doc = example('worked-example');
    const path = pathToNextBand(doc, FRAMEWORK);
    // LOW needs r2(uncapped) >= 80.00: uncapped >= 79.995 (which rounds half-even up to 80.00), so a single
    // criterion must add at least 79.995 - 78.4625 = 1.5325 points of contribution, i.e. weight x (points gained) / 100.

    it('is 78.46 in MEDIUM with LOW (80.00) next', () => {
      expect([path.current_score, path.current_band, path.next_band, path.next_band_min_score]).toEqual([
        78.46,
        'MEDIUM',
        'LOW',
        80,
      ]);
    });

    it('A1: coverage 1.4778, the least ratio at 4 places (1.4777 gives 79.99)', () => {
      // A1 weight 12 at 75 points needs 75 + 1.5325 / 0.12 = 87.7708.. points. On (1.20, 60)-(1.50, 90):
      // points = 60 + (x - 1.20) x 30 / 0.30 = 100x - 60 >= 87.7708.. gives x >= 1.477708.., so 1.4778:
      // 87.78 points, uncapped 78.4625 - 9 + 10.5336 = 79.9961 -> 80.00. At 1.4777: 87.77, 79.9949 -> 79.99.
      expect(suggestion(stepOf(path, 'A1'))).toEqual([1.4778, 80, 'LOW']);
      expect(scoreWith(doc, 'collateral_coverage_ratio', 1.4777, null)).toBe(79.99);
    });

    it('A2, A3, B1, C2: the first better value by points that gains 1.5325', () => {
      // A2 weight 10: merkle_liabilities_monthly (+15 points) adds 1.50 -> 79.9625 -> 79.96, short;
      // onchain_continuous (+25) adds 2.50 -> 80.9625 -> 80.96.
      expect(suggestion(stepOf(path, 'A2'))).toEqual(['onchain_continuous', 80.96, 'LOW']);
      expect(scoreWith(doc, 'proof_of_reserves', 'merkle_liabilities_monthly', null)).toBe(79.96);
      // A3 weight 8: prohibited (+30) adds 2.40 -> 80.8625 -> 80.86.
      expect(suggestion(stepOf(path, 'A3'))).toEqual(['prohibited', 80.86, 'LOW']);
      // B1 weight 12: multi_institution_multisig (+15) adds 1.80 -> 80.2625 -> 80.26.
      expect(suggestion(stepOf(path, 'B1'))).toEqual(['multi_institution_multisig', 80.26, 'LOW']);
      // C2 weight 6: position_level_monthly (+30) adds 1.80 -> 80.26.
      expect(suggestion(stepOf(path, 'C2'))).toEqual(['position_level_monthly', 80.26, 'LOW']);
    });

    it('C1: exposure 10.4218%, the greatest at 4 places (lower is better)', () => {
      // C1 weight 8 at 80 points needs 80 + 1.5325 / 0.08 = 99.15625, i.e. r4 points >= 99.1563.
      // On (10, 100)-(25, 70): points = 100 - 2(x - 10) = 120 - 2x >= 99.1563 gives x <= 10.42185, so 10.4218:
      // 99.1564 points, uncapped 72.0625 + 7.932512 = 79.995012 -> 80.00. At 10.4219: 99.1562, 79.994996 -> 79.99.
      expect(suggestion(stepOf(path, 'C1'))).toEqual([10.4218, 80, 'LOW']);
      expect(scoreWith(doc, 'largest_counterparty_exposure_pct', 10.4219, null)).toBe(79.99);
    });

    it('D1 and D2: whole days, 0 and 16', () => {
      // D1 weight 8 at 80 needs 99.15625 points: 1 day scores 100 - 20/7 = 97.1429, so only 0 days (100): +1.60 -> 80.06.
      expect(suggestion(stepOf(path, 'D1'))).toEqual([0, 80.06, 'LOW']);
      // D2 weight 7 at 61.25 needs 61.25 + 1.5325 / 0.07 = 83.1428.. points; on (0, 100)-(30, 70) points = 100 - x:
      // 16 days scores 84, +1.5925 -> 80.055 -> 80.06 (half-even, 5 is odd); 17 days scores 83, 79.985 -> 79.98.
      expect(suggestion(stepOf(path, 'D2'))).toEqual([16, 80.06, 'LOW']);
      expect(scoreWith(doc, 'duration_gap_days', 17, null)).toBe(79.98);
    });

    it('C3, E1, E3 fall short at their best; B2, E2, E4 are already at their best', () => {
      // C3 weight 6 at 90: 100 points (spread <= 200 bps, benchmark >= 7.25 - 2.00 = 5.25) adds 0.60 -> 79.06.
      expect(stepOf(path, 'C3').reason).toBe(
        'even at its best value (5.25), benchmark_rate_pct lifts the score only to 79.06, short of LOW at 80.00',
      );
      // E1 weight 5: licensed_tier1 (+30) adds 1.50 -> 79.96. E3 weight 3 at 72.5: 100 points (8 years) adds 0.825 -> 79.29.
      expect(stepOf(path, 'E1').reason).toContain('(licensed_tier1), regulatory_status lifts the score only to 79.96');
      expect(stepOf(path, 'E3').reason).toContain('(8), operating_history_years lifts the score only to 79.29');
      for (const id of ['B2', 'E2', 'E4']) expect(stepOf(path, id).reason).toContain('already at its best value');
      for (const id of ['B2', 'C3', 'E1', 'E2', 'E3', 'E4']) expect(stepOf(path, id).reachable).toBe(false);
    });

    it('sums it up in one sentence', () => {
      expect(path.summary).toBe(
        '78.46 (MEDIUM) is 1.54 points below LOW (80.00). Any one of these changes alone reaches LOW: ' +
          'collateral_coverage_ratio 1.4778, proof_of_reserves onchain_continuous, rehypothecation prohibited, ' +
          'custody_model multi_institution_multisig, largest_counterparty_exposure_pct 10.4218, ' +
          'yield_source_disclosure position_level_monthly, redemption_notice_days 0 and duration_gap_days 16.',
      );
    });
  });

  it('multiple caps: HC-01 holds 34.99 whatever any input but the freeze flag is; lifting the freeze reaches HIGH at HC-02’s 49.99', () => {
    const path = pathToNextBand(example('multiple-caps'), FRAMEWORK);
    expect([path.current_score, path.current_band, path.next_band]).toEqual([34.99, 'SEVERE', 'HIGH']);
    expect(stepOf(path, 'B1').reason).toBe(
      'cap HC-01 (Default or withdrawal freeze) holds the score at 34.99 whatever custody_model is',
    );
    // Even a coverage of 2.00 or more, which lifts HC-02, leaves HC-01.
    expect(stepOf(path, 'A1').reason).toBe(
      'cap HC-01 (Default or withdrawal freeze) holds the score at 34.99 whatever collateral_coverage_ratio is',
    );
    for (const step of path.steps.filter((s) => s.criterion_id !== 'E4')) {
      expect([step.reachable, step.reason?.startsWith('cap HC-01')]).toEqual([false, true]);
    }
    // default_or_freeze_36m = false: uncapped 61.206232 + 3 = 64.206232, still capped by HC-02 at 49.99.
    expect(suggestion(stepOf(path, 'E4'))).toEqual([false, 49.99, 'HIGH']);
  });

  it('several caps below the band are all named, and lifting one leaves the other', () => {
    const doc = example('worked-example');
    const at = (key: string, value: InputValue) => ({
      ...(doc.inputs[key] as InputsDocument['inputs'][string]),
      value,
    });
    const capped: InputsDocument = {
      ...doc,
      inputs: {
        ...doc.inputs,
        collateral_coverage_ratio: at('collateral_coverage_ratio', 0.95),
        proof_of_reserves: at('proof_of_reserves', 'none'),
        financial_statements: at('financial_statements', 'unaudited'),
      },
    };
    // Uncapped 78.4625 - 7.20 (A1 75 -> 15) - 7.50 (A2 75 -> 0) - 2.80 (E2 100 -> 30) = 60.9625, held at 49.99 by
    // HC-02 (coverage < 1.00) and HC-03 (no reserve evidence), both below ELEVATED's 50.00.
    const path = pathToNextBand(capped, FRAMEWORK);
    expect([path.current_score, path.current_band, path.next_band]).toEqual([49.99, 'HIGH', 'ELEVATED']);
    expect(stepOf(path, 'B1').reason).toBe(
      'caps HC-02 (49.99) and HC-03 (49.99) fire whatever custody_model is and hold the score at 49.99',
    );
    // Coverage at 1.00 or more lifts HC-02 but not HC-03; reserve evidence lifts HC-03 but not HC-02.
    expect(stepOf(path, 'A1').reason).toBe(
      'cap HC-03 (No reserve evidence) holds the score at 49.99 whatever collateral_coverage_ratio is',
    );
    expect(stepOf(path, 'A2').reason).toBe(
      'cap HC-02 (Under-collateralised) holds the score at 49.99 whatever proof_of_reserves is',
    );
    expect(path.summary).toBe(
      '49.99 (HIGH) is 0.01 points below ELEVATED (50.00). No change to a single input reaches ELEVATED.',
    );
  });

  it('the best band has no next band, said once: no steps, one summary', () => {
    const path = pathToNextBand(example('low-band'), FRAMEWORK);
    expect(path).toEqual({
      current_score: 95.54,
      current_band: 'LOW',
      next_band: null,
      next_band_min_score: null,
      steps: [],
      summary: '95.54 is in LOW, the best band: there is no next band.',
    });
  });

  it('stale evidence: renewing the stale coverage at its own value lifts HC-07', () => {
    const doc = example('stale-evidence');
    const path = pathToNextBand(doc, FRAMEWORK);
    // Coverage evidence is 381 days old (> 365): HC-07 holds 64.99; dated on the evaluation date it no longer fires.
    expect([path.current_score, path.next_band]).toEqual([64.99, 'MEDIUM']);
    expect(stepOf(path, 'A1')).toMatchObject({
      current_value: 1.97,
      suggested_value: 1.97,
      suggested_as_of: '2026-07-15',
      resulting_score: 84.77,
      resulting_band: 'LOW',
      reachable: true,
    });
    expect(stepOf(path, 'B2').reason).toContain('cap HC-07');
  });

  it('a missing input is suggested as evidence dated on the evaluation date', () => {
    const path = pathToNextBand(example('missing-inputs'), FRAMEWORK);
    const a2 = stepOf(path, 'A2');
    expect([a2.current_value, a2.suggested_as_of, a2.reachable]).toEqual([null, '2026-07-15', true]);
    expect(overridesOf(a2)).toEqual({ proof_of_reserves: { value: a2.suggested_value, as_of: '2026-07-15' } });
  });

  it('is fast: well under 50 ms per document for DCRF v1.0', () => {
    const docs = [
      ...['worked-example', 'multiple-caps', 'stale-evidence', 'missing-inputs', 'low-band'].map(example),
      ...fc.sample(documentArb, { seed: SEED, numRuns: 100 }),
    ];
    for (const doc of docs.slice(0, 10)) pathToNextBand(doc, FRAMEWORK); // warm up
    const times = docs.map((doc) => {
      const start = performance.now();
      pathToNextBand(doc, FRAMEWORK);
      return performance.now() - start;
    });
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(
      `pathToNextBand: median ${median.toFixed(2)} ms, mean ${mean.toFixed(2)} ms over ${times.length} documents`,
    );
    expect(median).toBeLessThan(50);
  });
});
