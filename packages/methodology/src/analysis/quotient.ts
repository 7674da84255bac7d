import { type Dec, dec, roundTo } from '../decimal.js';

const TWO = dec(2);

/**
 * numerator / denominator (denominator > 0) rounded half-even to `places`,
 * decided exactly: the 40-digit quotient's rounding is checked against the
 * exact products (q ± half a unit) x denominator and moved by a unit, or to
 * the even neighbour on an exact tie, so a quotient that does not terminate
 * is never rounded twice.
 */
export function roundedQuotient(numerator: Dec, denominator: Dec, places: number): Dec {
  const unit = dec(`1e-${places}`);
  const half = unit.div(TWO);
  let q = roundTo(numerator.div(denominator), places);
  for (;;) {
    const low = q.minus(half).times(denominator);
    const high = q.plus(half).times(denominator);
    if (numerator.lt(low)) q = q.minus(unit);
    else if (numerator.gt(high)) q = q.plus(unit);
    else if (numerator.eq(low)) return isEven(q, unit) ? q : q.minus(unit);
    else if (numerator.eq(high)) return isEven(q, unit) ? q : q.plus(unit);
    else return q;
  }
}

const isEven = (q: Dec, unit: Dec): boolean => q.div(unit).mod(TWO).isZero();
