import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildPackage, currentFramework, score } from '../index.js';

const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const read = (file: string): unknown => JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
const fw = currentFramework();

interface Expected {
  final_score: string;
  risk_band: string;
  confidence: string;
  uncapped: string;
  publishable: boolean;
  points: Record<string, string>;
  hard_caps_fired: { cap_id: string; binding: boolean; point_impact: string }[];
  ceiling_factors: { criterion_id: string; point_impact: string }[];
  floor_factors: { criterion_id: string; point_impact: string }[];
  next_band?: string;
  points_to_next_band?: string;
}

describe('the worked example of methodology section 11', () => {
  const indicator = score(read('worked-example.json'), fw);
  const decision = indicator.svc_decision_object;

  it('scores every criterion to the published points', () => {
    const points = Object.fromEntries(indicator.criterion_scores.map((c) => [c.criterion_id, c.points]));
    expect(points).toEqual({
      A1: 75,
      A2: 75,
      A3: 70,
      B1: 75,
      B2: 100,
      C1: 80,
      C2: 70,
      C3: 90,
      D1: 80,
      D2: 61.25,
      E1: 70,
      E2: 100,
      E3: 72.5,
      E4: 100,
    });
  });

  it('gives 78.46 MEDIUM, 1.54 points from LOW, confidence 1, publishable, no cap', () => {
    expect(indicator.final_score).toBe(78.46);
    expect(indicator.risk_band).toBe('MEDIUM');
    expect(decision.next_band).toBe('LOW');
    expect(decision.points_to_next_band).toBe(1.54);
    expect(indicator.confidence).toBe(1);
    expect(indicator.publishable).toBe(true);
    expect(decision.hard_caps_fired).toEqual([]);
    expect(indicator.framework_version).toBe('DCRF v1.0');
    expect(indicator.scored_at).toBe('2026-06-30T00:00:00Z');
  });

  it('keeps the uncapped 78.4625 exact in the package', () => {
    const pkg = buildPackage(read('worked-example.json'), fw);
    expect(pkg.steps.uncapped).toBe('78.462500');
    expect(pkg.steps.final_score).toBe('78.46');
    expect(pkg.result.final_score).toBe('78.46');
    expect(pkg.steps.criteria.find((c) => c.criterion_id === 'C3')?.derived).toEqual({
      name: 'spread_bps',
      value: '300',
    });
  });

  it('orders ceiling factors by shortfall with the A1/B1 tie in framework order', () => {
    expect(decision.ceiling_factors.map((f) => [f.criterion_id, f.point_impact])).toEqual([
      ['A1', -3],
      ['B1', -3],
      ['D2', -2.71],
    ]);
    expect(decision.floor_factors.map((f) => [f.criterion_id, f.point_impact])).toEqual([
      ['A1', 9],
      ['B1', 9],
      ['B2', 8],
    ]);
  });

  it('words each factor with its input value and points', () => {
    expect(decision.ceiling_factors[0]?.detail).toBe('Collateral coverage 1.35 scores 75.0000 of 100');
    expect(decision.summary).toContain('78.46');
    expect(decision.summary).toContain('MEDIUM');
  });

  it('reports module scores that add up to the uncapped score', () => {
    const modules = indicator.score_commentary.modules;
    expect(modules.map((m) => [m.module_id, m.score, m.max])).toEqual([
      ['A', 22.1, 30],
      ['B', 17, 20],
      ['C', 16, 20],
      ['D', 10.6875, 15],
      ['E', 12.675, 15],
    ]);
  });
});

describe('the published examples give their expected figures', () => {
  const names = readdirSync(join(examplesDir, 'expected'))
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => f.replace('.expected.json', ''));

  it('covers the four examples with expected figures', () => {
    expect(names.sort()).toEqual(['low-band', 'missing-inputs', 'multiple-caps', 'stale-evidence']);
  });

  for (const name of names) {
    it(`${name} matches its expected file figure by figure`, () => {
      const expected = read(`expected/${name}.expected.json`) as Expected;
      const doc = read(`${name}.json`);
      const indicator = score(doc, fw);
      const pkg = buildPackage(doc, fw);
      const d = indicator.svc_decision_object;
      const n = Number;
      expect(indicator.final_score).toBe(n(expected.final_score));
      expect(indicator.risk_band).toBe(expected.risk_band);
      expect(indicator.confidence).toBe(n(expected.confidence));
      expect(indicator.publishable).toBe(expected.publishable);
      expect(pkg.steps.uncapped).toBe(expected.uncapped);
      expect(Object.fromEntries(indicator.criterion_scores.map((c) => [c.criterion_id, c.points]))).toEqual(
        Object.fromEntries(Object.entries(expected.points).map(([k, v]) => [k, n(v)])),
      );
      expect(d.hard_caps_fired.map((c) => [c.cap_id, c.binding, c.point_impact])).toEqual(
        expected.hard_caps_fired.map((c) => [c.cap_id, c.binding, n(c.point_impact)]),
      );
      expect(d.ceiling_factors.map((f) => [f.criterion_id, f.point_impact])).toEqual(
        expected.ceiling_factors.map((f) => [f.criterion_id, n(f.point_impact)]),
      );
      expect(d.floor_factors.map((f) => [f.criterion_id, f.point_impact])).toEqual(
        expected.floor_factors.map((f) => [f.criterion_id, n(f.point_impact)]),
      );
      expect(d.next_band).toBe(expected.next_band);
      expect(d.points_to_next_band).toBe(
        expected.points_to_next_band === undefined ? undefined : n(expected.points_to_next_band),
      );
    });
  }

  it('the lowest-risk band has no next band and no distance to it', () => {
    const d = score(read('low-band.json'), fw).svc_decision_object;
    expect('next_band' in d).toBe(false);
    expect('points_to_next_band' in d).toBe(false);
  });

  it('a missing criterion scores zero, is marked missing and is not publishable below 0.5 confidence', () => {
    const indicator = score(read('missing-inputs.json'), fw);
    const a2 = indicator.criterion_scores.find((c) => c.criterion_id === 'A2');
    expect(a2).toMatchObject({
      missing: true,
      points: 0,
      contribution: 0,
      freshness: 0,
      input_value: null,
      as_of: null,
    });
    expect(indicator.publishable).toBe(false);
    expect(indicator.svc_decision_object.ceiling_factors[0]?.detail).toContain('missing');
  });
});

describe('the repository copies of the examples', () => {
  const shared = join(examplesDir, '../../../shared/methodology/examples');
  const present = existsSafe(shared);
  // Outside a checkout beside ../shared (a tarball, a copy of the repository alone) there is nothing to compare with:
  // said, not passed in silence.
  if (!present) console.warn(`SKIPPED: ${shared} is not there; the examples are not compared with the published ones`);
  it.skipIf(!present)('are identical to the published ones in shared/', () => {
    const files = readdirSync(shared).filter((f) => f.endsWith('.json'));
    for (const file of files) {
      const ours = join(examplesDir, file.endsWith('.expected.json') ? 'expected' : '', file);
      expect(readFileSync(ours, 'utf8'), file).toBe(readFileSync(join(shared, file), 'utf8'));
    }
    expect(files.length).toBeGreaterThan(0);
  });
});

function existsSafe(path: string): boolean {
  try {
    return readdirSync(path).length > 0;
  } catch {
    return false;
  }
}
