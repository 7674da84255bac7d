import { derive } from '../../compute/derived.js';
import { type Dec, dec, ONE, toNumber, ZERO } from '../../decimal.js';
import type { CapCondition, CriterionDefinition, FrameworkDefinition } from '../../framework/schema.js';
import type { Outcome, Probe, Trial } from './probe.js';

/** Places of a suggested decimal: the framework sets none for decimal inputs, so the points' 4. */
export const DECIMAL_SUGGESTION_PLACES = 4;

/** Decimal places at which a numeric suggestion is stated: 0 for an integer input, 4 for a decimal one. */
export function suggestionPlaces(criterion: CriterionDefinition): number {
  return criterion.input.type === 'integer' ? 0 : DECIMAL_SUGGESTION_PLACES;
}

/**
 * A linear-scale input: the least improvement, at the input's suggestion
 * places and within its bounds, that reaches the band, found with the real
 * engine. Values are grid positions i (value = direction x i x 10^-places) so
 * that a larger position is a better value. Between two hard-cap thresholds
 * on this input (or on a quantity derived from it) the score never falls as
 * the position rises, so each such segment is bisected exactly; beyond the
 * last anchor and threshold nothing changes, which bounds an open domain.
 */
export function searchNumeric(probe: Probe, fw: FrameworkDefinition): Outcome {
  const { criterion } = probe;
  const { scale, input } = criterion;
  if (scale.kind !== 'linear' || (input.type !== 'decimal' && input.type !== 'integer')) {
    throw new RangeError(`${criterion.id} has no linear scale`);
  }
  const onScale = affineOf(scale.on, probe);
  const pointsDirection = directionOf(scale.anchors.map(([, p]) => dec(p)));
  if (pointsDirection === 0) return { kind: 'not-monotone' };
  const direction = (onScale.b.isNegative() ? -pointsDirection : pointsDirection) as 1 | -1;
  const unit = dec(`1e${suggestionPlaces(criterion)}`);
  const position = (x: Dec) => x.times(unit).times(direction);
  const valueAt = (i: bigint) => toNumber(dec((i * BigInt(direction)).toString()).div(unit));

  const anchors = scale.anchors.map(([x]) => position(inputOf(onScale, dec(x))));
  const thresholds = thresholdsOn(criterion.input_key, fw).map(({ operand, value }) =>
    position(inputOf(operand === criterion.input_key ? IDENTITY : affineOf(operand, probe), value)),
  );
  const cuts = [...anchors, ...thresholds];
  const saturation = cuts.map((c) => ceilOf(c) + 1n).reduce(maxOf);
  const [lowBound, highBound] = boundsOf(input, position, direction);
  let hi = highBound !== null && highBound < saturation ? highBound : saturation;
  let lo: bigint;
  let current: Trial | null = null;
  if (probe.current === null) {
    lo = lowBound ?? cuts.map((c) => floorOf(c) - 1n).reduce(minOf);
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
  const starts = [
    ...new Set([lo, ...thresholds.flatMap((c) => [floorOf(c), floorOf(c) + 1n, ceilOf(c), ceilOf(c) + 1n])]),
  ]
    .filter((s) => s >= lo && s <= hi)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const segments = starts.map((start, k) => ({
    start,
    end: k + 1 < starts.length ? (starts[k + 1] as bigint) - 1n : hi,
  }));
  for (const { start, end } of segments) {
    if (probe.reaches(at(end))) return { kind: 'reached', trial: at(leastIn(start, end, (i) => probe.reaches(at(i)))) };
  }
  // The best value: the least improvement with the highest capped score, and then the highest uncapped one,
  // so the value where the points stop rising (5.25, not 5.2375 which rounds alike), past any cap it can lift.
  const top = segments.reduce((best, s) =>
    at(s.end).computation.capped.gte(at(best.end).computation.capped) ? s : best,
  );
  const { capped, uncapped } = at(top.end).computation;
  const isBest = (i: bigint) => at(i).computation.capped.gte(capped) && at(i).computation.uncapped.gte(uncapped);
  return { kind: 'short', best: at(leastIn(top.start, top.end, isBest)) };
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

/** The lt/gt thresholds of every hard cap that reads this input or a quantity derived from it. */
function thresholdsOn(inputKey: string, fw: FrameworkDefinition): { operand: string; value: Dec }[] {
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
