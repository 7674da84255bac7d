import { compile, oncePerFramework, type PerFramework } from '../compute/compiled.js';
import { derive } from '../compute/derived.js';
import { type Dec, dec, HUNDRED, ONE, percent, toNumber, ZERO } from '../decimal.js';
import type { CapCondition, CriterionDefinition, FrameworkDefinition } from '../framework/schema.js';
import type { Outcome, Probe, Trial } from './probe.js';

/** Places of a suggested decimal: the framework sets none for decimal inputs, so the points' 4. */
export const DECIMAL_SUGGESTION_PLACES = 4;

/** Decimal places at which a numeric suggestion is stated: 0 for an integer input, 4 for a decimal one. */
export function suggestionPlaces(criterion: CriterionDefinition): number {
  return criterion.input.type === 'integer' ? 0 : DECIMAL_SUGGESTION_PLACES;
}

/**
 * A linear-scale input: the least improvement, at the input's suggestion
 * places and within its bounds, that reaches the band. Values are grid
 * positions i (value = direction x i x 10^-places) so that a larger position
 * is a better value. Between two hard-cap thresholds on this input (or on a
 * quantity derived from it) the score never falls as the position rises, so
 * in each such segment the least position that reaches the band is read off
 * the scale inverted exactly (the points the band needs, the value that gives
 * them: see operandFor), then settled by scoring its neighbours, since the
 * points and the score are rounded; beyond the last anchor and threshold
 * nothing changes, which bounds an open domain.
 */
export function searchNumeric(probe: Probe, fw: FrameworkDefinition, target: Dec): Outcome {
  const { criterion } = probe;
  const { scale, input } = criterion;
  if (scale.kind !== 'linear' || (input.type !== 'decimal' && input.type !== 'integer')) {
    throw new RangeError(`${criterion.id} has no linear scale`);
  }
  const layout = layoutOf(probe, fw);
  if (layout === null) return { kind: 'not-monotone' };
  const { onScale, pointsDirection, direction, unit, position, saturation, lowBound, highBound, thresholds } = layout;
  const valueAt = (i: bigint) => toNumber(dec((i * BigInt(direction)).toString()).div(unit));
  let hi = highBound !== null && highBound < saturation ? highBound : saturation;
  let lo: bigint;
  let current: Trial | null = null;
  if (probe.current === null) {
    lo = lowBound ?? layout.belowCuts;
    if (lo > hi) hi = lo;
  } else {
    const now = probe.current as number;
    lo = floorOf(position(dec(now))) + 1n;
    if (lowBound !== null && lo < lowBound) lo = lowBound;
    if (probe.refresh) {
      current = probe.trial(now);
      if (probe.reaches(current)) return { kind: 'reached', trial: current };
    }
    if (lo > hi) return { kind: 'at-best', best: current ?? probe.trial(now) };
  }

  const trials = new Map<bigint, Trial>();
  const at = (i: bigint): Trial => {
    let trial = trials.get(i);
    if (!trial) {
      trial = probe.trial(valueAt(i));
      trials.set(i, trial);
    }
    return trial;
  };
  const starts = [...new Set([lo, ...thresholds])]
    .filter((s) => s >= lo && s <= hi)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const segments = starts.map((start, k) => ({
    start,
    end: k + 1 < starts.length ? (starts[k + 1] as bigint) - 1n : hi,
  }));
  const { scaleAnchors, weight, halfUnit } = layout;
  /** The least position (a guess, settled by leastFrom) at which the criterion's points reach `points`. */
  const guessFor = (points: Dec, segment: { start: bigint; end: bigint }): bigint => {
    const x = operandFor(scaleAnchors, points, pointsDirection);
    if (x === 'below') return segment.start;
    if (x === 'above') return segment.end;
    return ceilOf(position(inputOf(onScale, x)));
  };
  for (const segment of segments) {
    const { start, end } = segment;
    const last = at(end);
    if (!probe.reaches(last)) continue;
    // The points that lift the uncapped score to half a unit of the final score under the target, the rest held as at `end`.
    const rest = last.computation.uncapped.minus(percent(weight.times(last.points as Dec)));
    const needed = target.minus(halfUnit).minus(rest).times(HUNDRED).div(weight);
    const least = leastFrom(start, end, guessFor(needed, segment), (i) => probe.reaches(at(i)));
    return { kind: 'reached', trial: at(least) };
  }
  // The best value: the least improvement with the highest capped score, and then the highest uncapped one,
  // so the value where the points stop rising (5.25, not 5.2375 which rounds alike), past any cap it can lift.
  const top = segments.reduce((best, s) =>
    at(s.end).computation.capped.gte(at(best.end).computation.capped) ? s : best,
  );
  const last = at(top.end);
  const { capped, uncapped } = last.computation;
  const isBest = (i: bigint) => at(i).computation.capped.gte(capped) && at(i).computation.uncapped.gte(uncapped);
  return { kind: 'short', best: at(leastFrom(top.start, top.end, guessFor(last.points as Dec, top), isBest)) };
}

type Anchors = readonly (readonly [Dec, Dec])[];

/**
 * The operand at which the piecewise-linear points first reach `points`, moving the way the points rise
 * (direction +1: the least operand, -1: the greatest), by inverting the segment that crosses them:
 * x = x0 + (points - p0) x (x1 - x0) / (p1 - p0). 'below' when the first anchor already gives them,
 * 'above' when no operand does.
 */
function operandFor(anchors: Anchors, points: Dec, direction: 1 | -1): Dec | 'below' | 'above' {
  const ordered = direction === 1 ? anchors : [...anchors].reverse();
  const at = ordered.findIndex(([, p]) => p.gte(points));
  if (at === -1) return 'above';
  if (at === 0) return 'below';
  const [x0, p0] = ordered[at - 1] as readonly [Dec, Dec];
  const [x1, p1] = ordered[at] as readonly [Dec, Dec];
  return x0.plus(points.minus(p0).times(x1.minus(x0)).div(p1.minus(p0)));
}

/** Steps a guess may be off (the points and the score are rounded) before the settling falls back to halving. */
const SETTLE_STEPS = 8;

/**
 * The least i in [lo, hi] where `holds`, given that it holds at hi and, once it holds, holds above: from a guess,
 * by scoring its neighbours; a guess off by more than SETTLE_STEPS is settled by halving the rest of the range.
 */
function leastFrom(lo: bigint, hi: bigint, guess: bigint, holds: (i: bigint) => boolean): bigint {
  let i = guess < lo ? lo : guess > hi ? hi : guess;
  if (holds(i)) {
    for (let step = 0; step < SETTLE_STEPS; step++) {
      if (i === lo || !holds(i - 1n)) return i;
      i -= 1n;
    }
    return leastIn(lo, i, holds);
  }
  for (let step = 0; step < SETTLE_STEPS; step++) {
    i += 1n;
    if (holds(i)) return i;
  }
  return leastIn(i + 1n, hi, holds);
}

/** Where a criterion's values sit on its grid of positions: what searchNumeric reads before it tries any value. */
interface Layout {
  onScale: Affine;
  pointsDirection: 1 | -1;
  /** +1 when a larger input is better, -1 when a smaller one is. */
  direction: 1 | -1;
  /** 10^places: a position is direction x value x unit. */
  unit: Dec;
  position: (x: Dec) => Dec;
  /** Past every anchor and threshold, where nothing changes any more. */
  saturation: bigint;
  /** Below every anchor and threshold: where a missing input's search starts in an open domain. */
  belowCuts: bigint;
  lowBound: bigint | null;
  highBound: bigint | null;
  /** The positions where a segment may start: either side of each hard-cap threshold. */
  thresholds: bigint[];
  scaleAnchors: Anchors;
  weight: Dec;
  /** Half a unit of the final score (0.005): the least uncapped score that can round up to the target. */
  halfUnit: Dec;
}

/** Layouts of criteria whose scale and thresholds read the input itself: the same for every document. */
const layouts: PerFramework<Layout | null> = new WeakMap();

/** A criterion's layout; null when its points neither only rise nor only fall along the anchors. */
function layoutOf(probe: Probe, fw: FrameworkDefinition): Layout | null {
  const { criterion } = probe;
  const { scale } = criterion;
  if (scale.kind !== 'linear') throw new RangeError(`${criterion.id} has no linear scale`);
  const limits = thresholdsOn(criterion.input_key, fw);
  const fixed = scale.on === 'input' && limits.every((t) => t.operand === criterion.input_key);
  return fixed
    ? oncePerFramework(layouts, fw, criterion.id, () => layoutFor(probe, fw, scale, limits))
    : layoutFor(probe, fw, scale, limits);
}

/** The layout of the probe's criterion in its document. */
function layoutFor(
  probe: Probe,
  fw: FrameworkDefinition,
  scale: Extract<CriterionDefinition['scale'], { kind: 'linear' }>,
  limits: { operand: string; value: Dec }[],
): Layout | null {
  const { criterion } = probe;
  // As the bisecting search did: an operand with no exact inverse throws before the direction is looked at.
  const onScale = affineOf(scale.on, probe);
  const { pointsDirection, unit, anchorXs, scaleAnchors, weight, halfUnit } = constantsOf(criterion, fw);
  let layout: Layout | null = null;
  if (pointsDirection !== 0) {
    const direction = (onScale.b.isNegative() ? -pointsDirection : pointsDirection) as 1 | -1;
    const position = (x: Dec) => x.times(unit).times(direction);
    const anchors = anchorXs.map((x) => position(inputOf(onScale, x)));
    const cutsAt = limits.map(({ operand, value }) =>
      position(inputOf(operand === criterion.input_key ? IDENTITY : affineOf(operand, probe), value)),
    );
    const cuts = [...anchors, ...cutsAt];
    const [lowBound, highBound] = boundsOf(criterion.input as { min?: string; max?: string }, position, direction);
    layout = {
      onScale,
      pointsDirection,
      direction,
      unit,
      position,
      saturation: cuts.map((c) => ceilOf(c) + 1n).reduce(maxOf),
      belowCuts: cuts.map((c) => floorOf(c) - 1n).reduce(minOf),
      lowBound,
      highBound,
      thresholds: cutsAt.flatMap((c) => [floorOf(c), floorOf(c) + 1n, ceilOf(c), ceilOf(c) + 1n]),
      scaleAnchors,
      weight,
      halfUnit,
    };
  }
  return layout;
}

/** What a criterion's layout reads from the framework alone, whatever the document. */
interface Constants {
  pointsDirection: 1 | -1 | 0;
  unit: Dec;
  /** The anchors' operands (x). */
  anchorXs: Dec[];
  scaleAnchors: Anchors;
  weight: Dec;
  halfUnit: Dec;
}

/** Constants by criterion, worked out once per (frozen) framework definition. */
const constants: PerFramework<Constants> = new WeakMap();

function constantsOf(criterion: CriterionDefinition, fw: FrameworkDefinition): Constants {
  const { scale } = criterion;
  if (scale.kind !== 'linear') throw new RangeError(`${criterion.id} has no linear scale`);
  return oncePerFramework(constants, fw, criterion.id, () => ({
    pointsDirection: directionOf(scale.anchors.map(([, p]) => dec(p))),
    unit: dec(`1e${suggestionPlaces(criterion)}`),
    anchorXs: scale.anchors.map(([x]) => dec(x)),
    scaleAnchors: compile(fw).criteria.find((c) => c.definition.id === criterion.id)?.anchors as Anchors,
    weight: dec(criterion.weight),
    halfUnit: dec(`5e-${fw.arithmetic.final_score_places + 1}`),
  }));
}

/** operand = a + b x input. */
interface Affine {
  a: Dec;
  b: Dec;
}

const IDENTITY: Affine = { a: ZERO, b: ONE };

/** A derived quantity as a function of this input, read off the engine's own derivation at three points. */
function affineOf(name: string, probe: Probe): Affine {
  if (name === 'input') return IDENTITY;
  const at = (x: number) => derive(name, probe.documentWith(x)) as Dec;
  const a = at(0);
  const b = at(1).minus(a);
  if (b.isZero() || !at(2).eq(a.plus(b.times(2)))) {
    throw new RangeError(`${name} is not an affine function of ${probe.criterion.input_key}: no exact inverse`);
  }
  return { a, b };
}

const inputOf = ({ a, b }: Affine, operand: Dec): Dec => operand.minus(a).div(b);

/** Thresholds by input key, worked out once per (frozen) framework definition. */
const thresholdsByInput: PerFramework<{ operand: string; value: Dec }[]> = new WeakMap();

/** The lt/gt thresholds of every hard cap that reads this input or a quantity derived from it. */
function thresholdsOn(inputKey: string, fw: FrameworkDefinition): { operand: string; value: Dec }[] {
  return oncePerFramework(thresholdsByInput, fw, inputKey, () => thresholdsOf(inputKey, fw));
}

function thresholdsOf(inputKey: string, fw: FrameworkDefinition): { operand: string; value: Dec }[] {
  const operands = new Set([inputKey, ...fw.derived.filter((d) => d.reads.includes(inputKey)).map((d) => d.name)]);
  const walk = (cond: CapCondition): { operand: string; value: Dec }[] => {
    if (cond.op === 'all') return cond.of.flatMap(walk);
    if ((cond.op === 'lt' || cond.op === 'gt') && operands.has(cond.operand)) {
      return [{ operand: cond.operand, value: dec(cond.value) }];
    }
    return [];
  };
  return fw.hard_caps.flatMap((cap) => walk(cap.condition));
}

/** +1 when points never fall along the anchors, -1 when they never rise, 0 when they do both. */
function directionOf(points: Dec[]): 1 | -1 | 0 {
  const steps = points.slice(1).map((p, i) => p.comparedTo(points[i] as Dec));
  if (steps.every((s) => s >= 0)) return 1;
  return steps.every((s) => s <= 0) ? -1 : 0;
}

/** The input's domain as [lowest, highest] grid position; null where it is open. */
function boundsOf(
  input: { min?: string | undefined; max?: string | undefined },
  position: (x: Dec) => Dec,
  direction: 1 | -1,
): [bigint | null, bigint | null] {
  const [worst, best] = direction === 1 ? [input.min, input.max] : [input.max, input.min];
  return [
    worst === undefined ? null : ceilOf(position(dec(worst))),
    best === undefined ? null : floorOf(position(dec(best))),
  ];
}

/** The least i in [lo, hi] where `holds`, given that it holds at hi and, once it holds, holds above. */
function leastIn(lo: bigint, hi: bigint, holds: (i: bigint) => boolean): bigint {
  let [low, high] = [lo, hi];
  while (low < high) {
    const mid = low + (high - low) / 2n;
    if (holds(mid)) high = mid;
    else low = mid + 1n;
  }
  return low;
}

const floorOf = (x: Dec): bigint => BigInt(x.floor().toFixed());
const ceilOf = (x: Dec): bigint => BigInt(x.ceil().toFixed());
const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const minOf = (a: bigint, b: bigint): bigint => (a < b ? a : b);
