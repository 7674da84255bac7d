import { type Dec, dec, r4 } from '../decimal.js';
import type { CriterionDefinition } from '../framework/schema.js';
import type { InputValue } from '../inputs/document.js';

type LinearAnchors = readonly (readonly [string, string])[];

/**
 * Piecewise-linear points (methodology section 3): flat outside the anchors, the
 * anchor's points at an anchor, otherwise r4(p0 + (x - x0) x (p1 - p0) / (x1 - x0))
 * with the product first, then the division, then the sum.
 */
export function linearPoints(anchors: LinearAnchors, x: Dec): Dec {
  const first = anchors[0] as readonly [string, string];
  if (x.lte(dec(first[0]))) return dec(first[1]);
  for (let i = 1; i < anchors.length; i++) {
    const [x1Text, p1Text] = anchors[i] as readonly [string, string];
    const x1 = dec(x1Text);
    if (x.gt(x1)) continue;
    if (x.eq(x1)) return dec(p1Text);
    const [x0Text, p0Text] = anchors[i - 1] as readonly [string, string];
    const x0 = dec(x0Text);
    const p0 = dec(p0Text);
    const product = x.minus(x0).times(dec(p1Text).minus(p0));
    return r4(p0.plus(product.div(x1.minus(x0))));
  }
  return dec((anchors[anchors.length - 1] as readonly [string, string])[1]);
}

/** Points of an enum or boolean input from its table. */
export function tablePoints(entries: readonly (readonly [string | boolean, string])[], value: InputValue): Dec {
  const entry = entries.find(([v]) => v === value);
  if (!entry) throw new RangeError(`value ${String(value)} is not in the table`);
  return dec(entry[1]);
}

export function criterionPoints(criterion: CriterionDefinition, x: Dec | InputValue): Dec {
  const { scale } = criterion;
  return scale.kind === 'linear' ? linearPoints(scale.anchors, x as Dec) : tablePoints(scale.entries, x as InputValue);
}
