import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildPackage,
  type CapCondition,
  type ComputationPackage,
  ComputationPackageSchema,
  canonicalJson,
  type InputItem,
  type InputsDocument,
  score,
  scoreWithPackage,
  serializePackage,
  verifyPackage,
  withEvaluationDate,
} from '../index.js';
import {
  breathe,
  CRITERIA,
  criterionOf,
  DECIMAL_PLACES,
  DEFINITION,
  dateOfDay,
  dayOfDate,
  documentArb,
  documentWithInputsArb,
  FRAMEWORK,
  fromUnits,
  improvedValueArb,
  SEED,
  toUnits,
} from './arbitraries.js';

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 300 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs per property (replay with FC_SEED=${SEED})`);

// ---------------------------------------------------------------------------
// Exact decimal oracle: scaled BigInt arithmetic, rounding half-even like the methodology.

/** num / den rounded half-even to an integer (den > 0). */
function roundHalfEven(num: bigint, den: bigint): bigint {
  const floor = num >= 0n ? num / den : -((-num + den - 1n) / den);
  const twice = 2n * (num - floor * den);
  return twice > den || (twice === den && floor % 2n !== 0n) ? floor + 1n : floor;
}

const scaleDown = (units: bigint, from: number, to: number) => roundHalfEven(units, 10n ** BigInt(from - to));

/** Places of each figure in a package (methodology section 10). */
const P = { points: 4, contribution: 6, score: 2, confidence: 4 } as const;
const SCORE_MIN = toUnits(DEFINITION.score_range.min, P.score);
const SCORE_MAX = toUnits(DEFINITION.score_range.max, P.score);
const BANDS = DEFINITION.bands.map((b) => ({ band: b.band, min: toUnits(b.min, P.score) }));
const MIN_CONFIDENCE = toUnits(DEFINITION.publication.min_confidence, P.confidence);

/** A package the engine makes, checked against the package's zod schema (the format it is typed by) on the way. */
function packageOf(doc: unknown): ComputationPackage {
  const pkg = buildPackage(doc, FRAMEWORK);
  ComputationPackageSchema.parse(pkg);
  return pkg;
}
const ageOf = (doc: InputsDocument, item: InputItem) => dayOfDate(doc.evaluation_date) - dayOfDate(item.as_of);

/** Every key of every object in a copy of `value` in a random order (arrays keep theirs). */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j] as [string, unknown], entries[i] as [string, unknown]];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)]));
}

/** mulberry32: a small seeded PRNG, so a shuffle replays from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The value x a criterion's linear scale reads, in units of 10^-DECIMAL_PLACES; null when missing. */
function scaleInput(doc: InputsDocument, inputKey: string, on: string): bigint | null {
  const item = doc.inputs[inputKey];
  if (!item) return null;
  const x = toUnits(item.value as number, DECIMAL_PLACES);
  // spread_bps = (provider.yield_max - benchmark_rate_pct) x 100 (methodology section 3)
  return on === 'input' ? x : (toUnits(doc.provider.yield_max, DECIMAL_PLACES) - x) * 100n;
}

/** Points of a piecewise-linear scale in units of 10^-4: flat outside, r4 of the interpolation between anchors. */
function linearPoints(anchors: readonly (readonly [string, string])[], x: bigint): bigint {
  const pts = anchors.map(([ax, ap]) => [toUnits(ax, DECIMAL_PLACES), toUnits(ap, P.points)] as const);
  const [first] = pts;
  const last = pts[pts.length - 1];
  if (!first || !last) throw new RangeError('a scale needs anchors');
  if (x <= first[0]) return first[1];
  for (let i = 1; i < pts.length; i++) {
    const [x0, p0] = pts[i - 1] as readonly [bigint, bigint];
    const [x1, p1] = pts[i] as readonly [bigint, bigint];
    if (x > x1) continue;
    return roundHalfEven(p0 * (x1 - x0) + (x - x0) * (p1 - p0), x1 - x0);
  }
  return last[1];
}

/** Freshness in units of 10^-4 (methodology section 7). */
function freshness(ageDays: number | null): bigint {
  const rule = DEFINITION.freshness;
  if (ageDays === null) return 0n;
  if (ageDays <= rule.full_until_days) return 10_000n;
  if (ageDays > rule.decay_until_days) return toUnits(rule.stale_factor, 4);
  const span = BigInt(rule.decay_until_days - rule.full_until_days);
  return roundHalfEven(10_000n * span - toUnits(rule.decay, 4) * BigInt(ageDays - rule.full_until_days), span);
}

/** Whether a hard cap's condition holds on the document; a condition reading a missing input is false as a whole. */
function capFires(cond: CapCondition, doc: InputsDocument): { holds: boolean; readsMissing: boolean } {
  switch (cond.op) {
    case 'all': {
      const parts = cond.of.map((c) => capFires(c, doc));
      return { holds: parts.every((p) => p.holds), readsMissing: parts.some((p) => p.readsMissing) };
    }
    case 'stale': {
      const stale = cond.criteria.some((id) => {
        const item = doc.inputs[CRITERIA.find((c) => c.id === id)?.input_key ?? ''];
        return item !== undefined && ageOf(doc, item) > cond.age_days_over;
      });
      return { holds: stale, readsMissing: false };
    }
    case 'eq':
    case 'in': {
      const item = doc.inputs[cond.operand];
      if (!item) return { holds: false, readsMissing: true };
      const holds = cond.op === 'eq' ? item.value === cond.value : cond.values.includes(item.value as string);
      return { holds, readsMissing: false };
    }
    case 'lt':
    case 'gt': {
      // A derived operand is read through the criterion whose scale reads it (C3 reads spread_bps).
      const reader = CRITERIA.find((c) => c.scale.kind === 'linear' && c.scale.on === cond.operand);
      const x = reader ? scaleInput(doc, reader.input_key, cond.operand) : scaleInput(doc, cond.operand, 'input');
      if (x === null) return { holds: false, readsMissing: true };
      const bound = toUnits(cond.value, DECIMAL_PLACES);
      return { holds: cond.op === 'lt' ? x < bound : x > bound, readsMissing: false };
    }
  }
}

/** The band whose range holds a score (bands listed best first, each from its min up to the previous band's min). */
function bandOf(final: bigint) {
  const at = BANDS.findIndex((b) => final >= b.min);
  const index = at === -1 ? BANDS.length - 1 : at;
  return { band: BANDS[index], better: index > 0 ? BANDS[index - 1] : undefined };
}

const stableLargestFirst = <T>(items: T[], key: (t: T) => bigint) =>
  items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => {
      const d = key(b.item) - key(a.item);
      return d > 0n ? 1 : d < 0n ? -1 : a.index - b.index;
    })
    .map((e) => e.item);

// ---------------------------------------------------------------------------

describe('DCRF v1.0 scoring properties', () => {
  it('is deterministic: the same document gives byte-identical canonical output on two runs', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        expect(canonicalJson(score(doc, FRAMEWORK))).toBe(canonicalJson(score(structuredClone(doc), FRAMEWORK)));
        expect(serializePackage(packageOf(doc))).toBe(serializePackage(packageOf(structuredClone(doc))));
      }),
    );
  });

  it('is independent of key order: shuffling the keys of the input at every level changes no output byte', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, fc.integer(), async (doc, shuffleSeed) => {
        await breathe();
        const shuffled = shuffleKeys(doc, mulberry32(shuffleSeed));
        expect(canonicalJson(score(shuffled, FRAMEWORK))).toBe(canonicalJson(score(doc, FRAMEWORK)));
        expect(JSON.stringify(score(shuffled, FRAMEWORK))).toBe(JSON.stringify(score(doc, FRAMEWORK)));
        expect(serializePackage(packageOf(shuffled))).toBe(serializePackage(packageOf(doc)));
      }),
    );
  });

  it('stays in range: 0 <= final_score <= 100', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const { indicator, package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        const final = toUnits(pkg.result.final_score, P.score);
        expect(final >= SCORE_MIN && final <= SCORE_MAX).toBe(true);
        expect(indicator.final_score).toBeGreaterThanOrEqual(0);
        expect(indicator.final_score).toBeLessThanOrEqual(100);
        expect(indicator.final_score).toBe(Number(pkg.result.final_score));
      }),
    );
  });

  it('bands the score: risk_band is the band whose range holds final_score, next_band the band just better (absent for LOW)', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const { indicator, package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        const final = toUnits(pkg.steps.final_score, P.score);
        const { band, better } = bandOf(final);
        expect(band && final >= band.min).toBe(true);
        if (better) expect(final < better.min).toBe(true);
        expect(indicator.risk_band).toBe(band?.band);
        expect(pkg.steps.risk_band).toBe(band?.band);
        expect(pkg.steps.next_band).toBe(better ? better.band : null);
        if (better) expect(indicator.svc_decision_object.next_band).toBe(better.band);
        else {
          expect(band?.band).toBe(BANDS[0]?.band);
          expect('next_band' in indicator.svc_decision_object).toBe(false);
          expect('points_to_next_band' in indicator.svc_decision_object).toBe(false);
        }
      }),
    );
  });

  it('scores by the scale: each criterion’s points, contribution and the uncapped sum follow the framework data exactly', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const pkg = packageOf(doc);
        let uncapped = 0n;
        CRITERIA.forEach((criterion, i) => {
          const trace = pkg.steps.criteria[i];
          const item = doc.inputs[criterion.input_key];
          expect(trace?.criterion_id).toBe(criterion.id);
          expect(trace?.missing).toBe(item === undefined);
          let points = 0n;
          if (item && criterion.scale.kind === 'table') {
            const entry = criterion.scale.entries.find(([v]) => v === item.value);
            points = toUnits(entry?.[1] ?? 'NaN', P.points);
          } else if (item && criterion.scale.kind === 'linear') {
            points = linearPoints(
              criterion.scale.anchors,
              scaleInput(doc, criterion.input_key, criterion.scale.on) as bigint,
            );
          }
          const contribution = BigInt(criterion.weight) * points;
          uncapped += contribution;
          expect(trace?.points).toBe(fromUnits(points, P.points));
          expect(trace?.contribution).toBe(fromUnits(contribution, P.contribution));
        });
        expect(pkg.steps.uncapped).toBe(fromUnits(uncapped, P.contribution));
      }),
    );
  });

  it('caps fire by their conditions: a hard cap fires exactly when its condition holds on the inputs present', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const pkg = packageOf(doc);
        DEFINITION.hard_caps.forEach((cap, i) => {
          const expected = capFires(cap.condition, doc);
          expect(pkg.steps.hard_caps[i]?.cap_id).toBe(cap.id);
          expect(pkg.steps.hard_caps[i]?.fired, cap.id).toBe(expected.holds && !expected.readsMissing);
        });
      }),
    );
  });

  it('caps bind: final_score never exceeds a fired cap and equals r2(min(uncapped, fired caps))', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const { indicator, package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        const uncapped = toUnits(pkg.steps.uncapped, P.contribution);
        const final = toUnits(pkg.steps.final_score, P.score);
        const fired = indicator.svc_decision_object.hard_caps_fired;
        expect(fired.map((c) => c.cap_id)).toEqual(pkg.steps.hard_caps.filter((c) => c.fired).map((c) => c.cap_id));
        for (const cap of fired) expect(indicator.final_score).toBeLessThanOrEqual(cap.cap);
        const caps = pkg.steps.hard_caps.filter((c) => c.fired).map((c) => toUnits(c.cap, P.score) * 10_000n);
        // biome-ignore lint/complexity/useMathMinMax: Math.min takes no bigint
        const capped = caps.reduce((low, c) => (c < low ? c : low), uncapped);
        expect(pkg.steps.capped).toBe(fromUnits(capped, P.contribution));
        expect(final).toBe(scaleDown(capped, P.contribution, P.score));
        for (const cap of pkg.result.svc_decision_object.hard_caps_fired) {
          const value = toUnits(cap.cap, P.score) * 10_000n;
          expect(cap.binding).toBe(value < uncapped);
          const impact = cap.binding ? scaleDown(value - uncapped, P.contribution, P.score) : 0n;
          expect(cap.point_impact).toBe(fromUnits(impact, P.score));
        }
      }),
    );
  });

  it('is monotone: improving one input’s points never lowers the uncapped score', async () => {
    const improvementArb = documentWithInputsArb.chain((doc) =>
      fc.constantFrom(...Object.keys(doc.inputs)).chain((key) => {
        const item = doc.inputs[key] as InputItem;
        return improvedValueArb(criterionOf(key), item.value).map((value) => ({ doc, key, value }));
      }),
    );
    await fc.assert(
      fc.asyncProperty(improvementArb, async ({ doc, key, value }) => {
        await breathe();
        const item = doc.inputs[key] as InputItem;
        const improved: InputsDocument = { ...doc, inputs: { ...doc.inputs, [key]: { ...item, value } } };
        const before = packageOf(doc);
        const after = packageOf(improved);
        const i = CRITERIA.findIndex((c) => c.input_key === key);
        const pointsBefore = toUnits(before.steps.criteria[i]?.points ?? 'NaN', P.points);
        const pointsAfter = toUnits(after.steps.criteria[i]?.points ?? 'NaN', P.points);
        expect(pointsAfter >= pointsBefore, `${key}: ${String(item.value)} -> ${String(value)}`).toBe(true);
        const uncappedBefore = toUnits(before.steps.uncapped, P.contribution);
        const uncappedAfter = toUnits(after.steps.uncapped, P.contribution);
        expect(uncappedAfter >= uncappedBefore).toBe(true);
      }),
    );
  });

  it('measures the gap: points_to_next_band = next band’s lower bound - final_score, exactly to 2 decimals', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const { indicator, package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        const final = toUnits(pkg.result.final_score, P.score);
        const { better } = bandOf(final);
        const gap = pkg.result.svc_decision_object.points_to_next_band;
        if (!better) {
          expect(gap).toBeUndefined();
          expect(pkg.steps.points_to_next_band).toBeNull();
          return;
        }
        expect(gap).toBe(fromUnits(better.min - final, P.score));
        expect(pkg.steps.points_to_next_band).toBe(gap);
        expect(indicator.svc_decision_object.points_to_next_band).toBe(Number(gap));
      }),
    );
  });

  it('confidence is a fraction in [0, 1], and a result is publishable iff confidence >= 0.5', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const { indicator, package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        const confidence = toUnits(pkg.result.confidence, P.confidence);
        expect(confidence >= 0n && confidence <= 10_000n).toBe(true);
        expect(indicator.confidence).toBe(Number(pkg.result.confidence));
        expect(indicator.publishable).toBe(confidence >= MIN_CONFIDENCE);
        expect(pkg.steps.publishable).toBe(indicator.publishable);
      }),
    );
  });

  it('weighs freshness: age_days, freshness and confidence = r4(sum of weight x freshness / 100) follow the as_of dates', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const pkg = packageOf(doc);
        let weighted = 0n;
        CRITERIA.forEach((criterion, i) => {
          const item = doc.inputs[criterion.input_key];
          const age = item ? ageOf(doc, item) : null;
          const f = freshness(age);
          weighted += BigInt(criterion.weight) * f;
          expect(pkg.steps.criteria[i]?.age_days).toBe(age);
          expect(pkg.steps.criteria[i]?.freshness).toBe(fromUnits(f, 4));
        });
        expect(pkg.steps.confidence).toBe(fromUnits(roundHalfEven(weighted, 100n), P.confidence));
      }),
    );
  });

  it('round trips: a serialised package verifies as reproduced, from canonical bytes', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const bytes = serializePackage(packageOf(doc));
        const verification = verifyPackage(JSON.parse(bytes), bytes);
        expect(verification.status).toBe('reproduced');
        if (verification.status === 'reproduced') expect(verification.canonical_bytes).toBe(true);
      }),
    );
  });

  it('is tamper-evident: a package with any one value changed does not verify as reproduced', async () => {
    type Path = (string | number)[];
    const leafPaths = (value: unknown, path: Path): Path[] => {
      if (Array.isArray(value)) return value.flatMap((v, i) => leafPaths(v, [...path, i]));
      if (value !== null && typeof value === 'object') {
        return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
      }
      return [path];
    };
    const change = (leaf: unknown, delta: number, at: number, pick: number): unknown => {
      if (typeof leaf === 'boolean') return !leaf;
      if (typeof leaf === 'number') return leaf + delta;
      if (leaf === null) return pick % 2 === 0 ? 0 : 'x';
      const chars = [...String(leaf)];
      if (chars.length === 0) return 'x';
      const i = at % chars.length;
      const c = chars[i] as string;
      chars[i] = /[0-9]/.test(c)
        ? String((Number(c) + 1 + (pick % 9)) % 10)
        : /[a-f]/.test(c)
          ? ('abcdef'.replace(c, '')[pick % 5] as string)
          : c === 'X'
            ? 'Y'
            : 'X';
      return chars.join('');
    };
    const tamperArb = fc.record({
      doc: documentArb,
      group: fc.nat(),
      leaf: fc.nat(),
      delta: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -1000, max: -1 })),
      at: fc.nat(),
      pick: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(tamperArb, async ({ doc, group, leaf, delta, at, pick }) => {
        await breathe();
        const bytes = serializePackage(packageOf(doc));
        const tampered = JSON.parse(bytes) as Record<string, unknown>;
        // `engine` is informational (who built the package), not part of what is reproduced.
        const groups = Object.keys(tampered).filter((k) => k !== 'engine');
        const top = groups[group % groups.length] as string;
        const paths = leafPaths(tampered[top], [top]);
        const path = paths[leaf % paths.length] as Path;
        let parent = tampered as Record<string | number, unknown>;
        for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
        const last = path[path.length - 1] as string | number;
        const before = parent[last];
        parent[last] = change(before, delta, at, pick);
        expect(parent[last]).not.toEqual(before);
        const verification = verifyPackage(tampered);
        expect(verification.status, `${path.join('.')}: ${String(before)} -> ${String(parent[last])}`).not.toBe(
          'reproduced',
        );
      }),
    );
  });

  it('dates the result: scored_at is the evaluation date at 00:00 UTC, and risk_indicator_id (ri_ + 24 hex) changes with it', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, fc.integer({ min: 1, max: 2000 }), async (doc, later) => {
        await breathe();
        const first = score(doc, FRAMEWORK);
        expect(first.scored_at).toBe(`${doc.evaluation_date}T00:00:00Z`);
        expect(first.risk_indicator_id).toMatch(/^ri_[0-9a-f]{24}$/);
        // A later evaluation date keeps every as_of on or before it.
        const date = dateOfDay(dayOfDate(doc.evaluation_date) + later);
        const second = score(withEvaluationDate(doc, date), FRAMEWORK);
        expect(second.scored_at).toBe(`${date}T00:00:00Z`);
        expect(second.risk_indicator_id).toMatch(/^ri_[0-9a-f]{24}$/);
        expect(second.risk_indicator_id).not.toBe(first.risk_indicator_id);
      }),
    );
  });

  it('explains the score: ceiling factors are the largest shortfalls, floor factors the largest contributions of criteria at 70+ points', async () => {
    const floorMin = toUnits(DEFINITION.decision.floor_min_points, P.points);
    await fc.assert(
      fc.asyncProperty(documentArb, async (doc) => {
        await breathe();
        const pkg = packageOf(doc);
        const decision = pkg.result.svc_decision_object;
        const traces = pkg.steps.criteria;
        const byId = new Map(traces.map((t) => [t.criterion_id, t]));
        // shortfall = weight x (100 - points) / 100, in units of 10^-6
        const shortfall = (t: (typeof traces)[number]) => BigInt(t.weight) * (1_000_000n - toUnits(t.points, P.points));
        const contribution = (t: (typeof traces)[number]) => toUnits(t.contribution, P.contribution);

        const ceiling = decision.ceiling_factors;
        expect(ceiling.length).toBeLessThanOrEqual(DEFINITION.decision.max_ceiling_factors);
        const impacts = ceiling.map((f) => toUnits(f.point_impact, P.score));
        impacts.forEach((impact, i) => {
          expect(impact <= 0n).toBe(true);
          if (i > 0) expect(impact >= (impacts[i - 1] as bigint)).toBe(true);
        });
        for (const f of ceiling) expect(shortfall(byId.get(f.criterion_id) as (typeof traces)[number]) > 0n).toBe(true);
        const expectedCeiling = stableLargestFirst(
          traces.filter((t) => shortfall(t) > 0n),
          shortfall,
        ).slice(0, DEFINITION.decision.max_ceiling_factors);
        expect(ceiling.map((f) => f.criterion_id)).toEqual(expectedCeiling.map((t) => t.criterion_id));
        expect(ceiling.map((f) => f.point_impact)).toEqual(
          expectedCeiling.map((t) => fromUnits(-scaleDown(shortfall(t), P.contribution, P.score), P.score)),
        );

        const floor = decision.floor_factors;
        expect(floor.length).toBeLessThanOrEqual(DEFINITION.decision.max_floor_factors);
        for (const f of floor) {
          expect(toUnits((byId.get(f.criterion_id) as (typeof traces)[number]).points, P.points) >= floorMin).toBe(
            true,
          );
        }
        const expectedFloor = stableLargestFirst(
          traces.filter((t) => toUnits(t.points, P.points) >= floorMin),
          contribution,
        ).slice(0, DEFINITION.decision.max_floor_factors);
        expect(floor.map((f) => f.criterion_id)).toEqual(expectedFloor.map((t) => t.criterion_id));
        expect(floor.map((f) => f.point_impact)).toEqual(
          expectedFloor.map((t) => fromUnits(scaleDown(contribution(t), P.contribution, P.score), P.score)),
        );
      }),
    );
  });
});

describe('DCRF v1.0 scoring examples', () => {
  const provider = {
    id: '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11',
    name: 'Example Sats Lending',
    planner_type: 'btc',
    provider_subtype: 'lender',
    yield_min: 2.5,
    yield_max: 7.25,
  } as const;
  const item = (value: string | number | boolean) => ({
    value,
    as_of: '2026-05-31',
    source: 'Q1 2026 attestation, p. 4',
    approved_by: 'analyst.a',
    approved_at: '2026-06-02T10:00:00Z',
  });
  const doc = (inputs: Record<string, ReturnType<typeof item>>) => ({
    provider,
    evaluation_date: '2026-06-30',
    inputs,
  });

  it('a document with every input missing scores 0.00 (SEVERE), confidence 0, not publishable, held back by the heaviest criteria', () => {
    const indicator = score(doc({}), FRAMEWORK);
    expect(indicator.final_score).toBe(0);
    expect(indicator.risk_band).toBe('SEVERE');
    expect(indicator.confidence).toBe(0);
    expect(indicator.publishable).toBe(false);
    expect(indicator.svc_decision_object.ceiling_factors.map((f) => [f.criterion_id, f.point_impact])).toEqual([
      ['A1', -12],
      ['B1', -12],
      ['A2', -10],
    ]);
    expect(indicator.svc_decision_object.floor_factors).toEqual([]);
    expect(indicator.svc_decision_object.points_to_next_band).toBe(35);
  });

  it('HC-03 does not fire when financial_statements is missing, whatever proof_of_reserves says', () => {
    const pkg = packageOf(doc({ proof_of_reserves: item('none') }));
    expect(pkg.steps.hard_caps.find((c) => c.cap_id === 'HC-03')?.fired).toBe(false);
    const both = packageOf(doc({ proof_of_reserves: item('none'), financial_statements: item('unaudited') }));
    expect(both.steps.hard_caps.find((c) => c.cap_id === 'HC-03')?.fired).toBe(true);
  });

  it('a score exactly on a band’s lower bound belongs to that band', () => {
    // 12 + 12 + 8 + 3 = 35.00, HIGH's lower bound
    const pkg = packageOf(
      doc({
        collateral_coverage_ratio: item(2),
        custody_model: item('collaborative_client_keys'),
        security_incidents_36m: item('none'),
        default_or_freeze_36m: item(false),
      }),
    );
    expect([pkg.steps.final_score, pkg.steps.risk_band, pkg.steps.next_band]).toEqual(['35.00', 'HIGH', 'ELEVATED']);
    expect(pkg.steps.points_to_next_band).toBe('15.00');
  });

  it('a cap equal to the uncapped score fires but does not bind', () => {
    // 12 + 12 + 10 + 3 x 33 / 100 = 34.99, HC-01's cap
    const pkg = packageOf(
      doc({
        collateral_coverage_ratio: item(2),
        custody_model: item('collaborative_client_keys'),
        proof_of_reserves: item('onchain_continuous'),
        operating_history_years: item(1.2),
        default_or_freeze_36m: item(true),
      }),
    );
    expect(pkg.steps.uncapped).toBe('34.990000');
    const hc01 = pkg.steps.hard_caps.find((c) => c.cap_id === 'HC-01');
    expect([hc01?.fired, hc01?.binding, hc01?.point_impact]).toEqual([true, false, '0.00']);
    expect([pkg.steps.final_score, pkg.steps.risk_band]).toEqual(['34.99', 'SEVERE']);
  });

  it('a higher benchmark narrows the C3 spread and raises its points', () => {
    const points = (benchmark: number) =>
      packageOf(doc({ benchmark_rate_pct: item(benchmark) })).steps.criteria.find((c) => c.criterion_id === 'C3')
        ?.points;
    expect(points(0)).toBe('52.0000'); // spread 725 bps, between the anchors 500 and 1000
    expect(points(2.25)).toBe('70.0000'); // spread 500 bps, an anchor
    expect(points(4.25)).toBe('90.0000'); // spread 300 bps, the worked example
    expect(points(7.25)).toBe('100.0000'); // spread 0 bps, below the first anchor
  });
});
