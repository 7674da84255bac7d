import { compare, type Dec, r4 } from '../decimal.js';
import type { InputValue } from '../inputs/document.js';
import type { CompiledCriterion } from './compiled.js';

/**
 * Piecewise-linear points (methodology section 3): flat outside the anchors, the
 * anchor's points at an anchor, otherwise r4(p0 + (x - x0) x (p1 - p0) / (x1 - x0))
 * with the product first, then the division, then the sum.
 */
export function linearPoints(
  anchors: readonly (readonly [Dec, Dec])[],
  x: Dec,
  spans: readonly (readonly [Dec, Dec])[] | null = null,
): Dec {
  const [x0First, p0First] = anchors[0] as readonly [Dec, Dec];
  if (compare(x, x0First) <= 0) return p0First;
  for (let i = 1; i < anchors.length; i++) {
    const [x1, p1] = anchors[i] as readonly [Dec, Dec];
    const side = compare(x, x1);
    if (side > 0) continue;
    if (side === 0) return p1;
    const [x0, p0] = anchors[i - 1] as readonly [Dec, Dec];
    const [dx, dp] = spans ? (spans[i - 1] as readonly [Dec, Dec]) : [x1.minus(x0), p1.minus(p0)];
    return r4(p0.plus(x.minus(x0).times(dp).div(dx)));
  }
  return (anchors[anchors.length - 1] as readonly [Dec, Dec])[1];
}

/** Points of an enum or boolean input from its table. */
export function tablePoints(table: ReadonlyMap<string | boolean, Dec>, value: InputValue): Dec {
  const points = table.get(value as string | boolean);
  if (points === undefined) throw new RangeError(`value ${String(value)} is not in the table`);
  return points;
}

export function criterionPoints(criterion: CompiledCriterion, x: Dec | InputValue): Dec {
  return criterion.anchors
    ? linearPoints(criterion.anchors, x as Dec, criterion.spans)
    : tablePoints(criterion.table as Map<string | boolean, Dec>, x as InputValue);
}
