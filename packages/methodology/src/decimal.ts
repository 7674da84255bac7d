import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The engine's only door to decimal.js: every figure the methodology touches is
 * computed with this configuration (section 1: 40 significant digits, half-even).
 */
const Decimal = DecimalJs.clone({
  precision: 40,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
});

export type Dec = InstanceType<typeof Decimal>;

/** A decimal from a string in the framework data, or from a JSON number read as written. */
export function dec(value: string | number): Dec {
  // String() of a double with at most 15 significant digits gives those digits back exactly.
  return new Decimal(typeof value === 'number' ? String(value) : value);
}

export const ZERO: Dec = dec(0);
export const ONE: Dec = dec(1);
export const HUNDRED: Dec = dec(100);
const HUNDREDTH: Dec = dec('0.01');

/** value / 100, as a product: both are the exact quotient correctly rounded to 40 digits, and a product is cheaper. */
export function percent(value: Dec): Dec {
  return value.times(HUNDREDTH);
}

export function roundTo(value: Dec, places: number): Dec {
  // Decimals are immutable: a value already within `places` is its own rounding.
  return value.decimalPlaces() <= places ? value : value.toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN);
}

/** r4 of the methodology. */
export const r4 = (value: Dec): Dec => roundTo(value, 4);
/** r2 of the methodology. */
export const r2 = (value: Dec): Dec => roundTo(value, 2);

/** Fixed-point text with exactly `places` decimals; never "-0.00". */
export function fixed(value: Dec, places: number): string {
  const exact = exactFixed(value, places);
  if (exact !== null) return exact;
  const text = value.toFixed(places, Decimal.ROUND_HALF_EVEN);
  return text.startsWith('-0') && /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

const WORD_ZEROS = '0000000';

/**
 * fixed(value, places) of a finite value with at most `places` decimals, written from decimal.js's documented
 * representation (`d`: the digits in words of 7, the first without leading zeros; `e`: the exponent of the first
 * digit; `s`: the sign): its digits with the point put in and zeros appended to `places`, without "-" for a zero.
 * Null for a value with more decimals, which toFixed rounds. The property suite holds it to toFixed.
 */
function exactFixed(value: Dec, places: number): string | null {
  const { d, e } = value;
  let digits = `${d[0]}`;
  for (let i = 1; i < d.length; i++) {
    const word = `${d[i]}`;
    digits += word.length === 7 ? word : WORD_ZEROS.slice(word.length) + word;
  }
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 0x30) end--;
  if (end - 1 - e > places) return null;
  let whole: string;
  let fraction: string;
  if (e < 0) {
    whole = '0';
    fraction = '0'.repeat(-e - 1) + digits.slice(0, end);
  } else if (end > e + 1) {
    whole = digits.slice(0, e + 1);
    fraction = digits.slice(e + 1, end);
  } else {
    whole = end === digits.length && end === e + 1 ? digits : digits.slice(0, end) + '0'.repeat(e + 1 - end);
    fraction = '';
  }
  if (places > 0)
    whole += `.${fraction.length === places ? fraction : fraction + '0'.repeat(places - fraction.length)}`;
  return value.s < 0 && d[0] !== 0 ? `-${whole}` : whole;
}

/**
 * A figure (a JSON number of the engine, at most `places` decimals) as text with exactly `places` decimals: the
 * form for a column of figures (a CSV export), where every cell should read at one precision.
 */
export function figureText(value: number, places: number): string {
  return fixed(dec(value), places);
}

/** The JSON number for a decimal that is already rounded to what it reports. */
export function toNumber(value: Dec): number {
  const n = value.toNumber();
  return Object.is(n, -0) ? 0 : n;
}

/**
 * a.comparedTo(b) (-1, 0 or 1) of two finite decimals, read from decimal.js's documented representation (`d`, `e`,
 * `s`) without the copy of `b` that every comparison of decimal.js makes: zeros of either sign are equal; otherwise
 * the sign, then the exponent of the first digit, then the words of digits (aligned alike at an equal exponent), then
 * the count of words decide. The property suite holds it to comparedTo.
 */
export function compare(a: Dec, b: Dec): number {
  const ad = a.d;
  const bd = b.d;
  if (ad[0] === 0 || bd[0] === 0) return ad[0] !== 0 ? a.s : bd[0] !== 0 ? -b.s : 0;
  if (a.s !== b.s) return a.s;
  const larger = a.s; // the sign of a when |a| > |b|
  if (a.e !== b.e) return a.e > b.e ? larger : -larger;
  const shorter = Math.min(ad.length, bd.length);
  for (let i = 0; i < shorter; i++) {
    if (ad[i] !== bd[i]) return (ad[i] as number) > (bd[i] as number) ? larger : -larger;
  }
  return ad.length === bd.length ? 0 : ad.length > bd.length ? larger : -larger;
}

export function sum(values: readonly Dec[]): Dec {
  return values.reduce((acc, v) => acc.plus(v), ZERO);
}

export function minOf(first: Dec, rest: readonly Dec[]): Dec {
  return rest.reduce((low, v) => (compare(v, low) < 0 ? v : low), first);
}

/** Significant digits of a number as written, trailing zeros of an integer not counted. */
export function significantDigits(value: Dec): number {
  return value.isZero() ? 1 : value.sd(false);
}

/**
 * significantDigits(dec(text)) for a JSON number lexeme or the String() of a
 * number. Plain decimal text is counted as written, without building a
 * decimal: its digits from the first non-zero one to the last (1 for zero).
 */
export function significantDigitsOfText(text: string): number {
  // With an exponent decimal.js may underflow to zero, so let it decide.
  if (text.includes('e') || text.includes('E')) return significantDigits(dec(text));
  let first = -1;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x30 && code <= 0x39) {
      if (first === -1) first = i;
      last = i;
    }
  }
  if (first === -1) return 1;
  const point = text.indexOf('.');
  return last - first + 1 - (first < point && point < last ? 1 : 0);
}

/**
 * A test of `n >= bound` or `n <= bound` for a number read as written, the
 * decimal String(n), exactly. String() picks for each double a decimal inside
 * its rounding interval, so it orders numbers as their doubles do: when the
 * bound is exactly some double's String(), comparing the doubles is exact.
 */
export function boundTest(bound: string, side: 'min' | 'max'): (n: number) => boolean {
  const limit = dec(bound);
  const double = Number(bound);
  if (Number.isFinite(double) && dec(double).eq(limit)) {
    return side === 'min' ? (n) => n >= double : (n) => n <= double;
  }
  return side === 'min' ? (n) => dec(n).gte(limit) : (n) => dec(n).lte(limit);
}

export function isDecimalText(text: string): boolean {
  return /^-?(0|[1-9]\d*)(\.\d+)?$/.test(text);
}
