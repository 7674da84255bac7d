import { type Dec, dec } from '../decimal.js';
import type { CriterionDefinition } from '../framework/schema.js';
import type { InputValue } from '../inputs/document.js';
import type { Outcome, Probe, Trial } from './probe.js';

/**
 * An enum or boolean input: the better values in order of increasing points
 * (ties in table order), the first that reaches the band. A refreshed input
 * tries its current value first.
 */
export function searchTable(probe: Probe): Outcome {
  const { scale } = probe.criterion;
  if (scale.kind !== 'table') throw new RangeError(`${probe.criterion.id} has no table`);
  const byPoints = entriesByPoints(scale);
  const now = byPoints.find((e) => e.value === probe.current);
  const better = now === undefined ? byPoints : byPoints.filter((e) => e.points.gt(now.points));
  const values = [...(probe.refresh && now ? [now.value] : []), ...better.map((e) => e.value)];
  const trials: Trial[] = [];
  for (const value of values) {
    const trial = probe.trial(value);
    if (probe.reaches(trial)) return { kind: 'reached', trial };
    trials.push(trial);
  }
  if (better.length === 0) return { kind: 'at-best', best: trials[0] ?? probe.trial(probe.current as InputValue) };
  // The highest unrounded score, ties to the value with more points (the later one).
  const best = trials.reduce((top, t) => (t.computation.capped.gte(top.computation.capped) ? t : top));
  return { kind: 'short', best };
}

type TableScale = Extract<CriterionDefinition['scale'], { kind: 'table' }>;
type Entry = { value: string | boolean; points: Dec; index: number };

/** A table's entries by increasing points (ties in table order), worked out once per (frozen) scale. */
const sortedTables = new WeakMap<TableScale, Entry[]>();

function entriesByPoints(scale: TableScale): Entry[] {
  let sorted = sortedTables.get(scale);
  if (!sorted) {
    sorted = scale.entries
      .map(([value, points], index) => ({ value, points: dec(points), index }))
      .sort((a, b) => a.points.comparedTo(b.points) || a.index - b.index);
    sortedTables.set(scale, sorted);
  }
  return sorted;
}
