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
  const text = value.decimalPlaces() <= places ? padded(value, places) : value.toFixed(places, Decimal.ROUND_HALF_EVEN);
  return text.startsWith('-0') && /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

/**
 * A figure (a JSON number of the engine, at most `places` decimals) as text with exactly `places` decimals: the
 * form for a column of figures (a CSV export), where every cell should read at one precision.
 */
export function figureText(value: number, places: number): string {
  return fixed(dec(value), places);
}

/** toFixed(places) of a value with no more than `places` decimals: its exact text, zeros appended. */
function padded(value: Dec, places: number): string {
  const missing = places - value.decimalPlaces();
  if (missing === 0) return value.toFixed();
  return `${value.toFixed()}${missing === places ? '.' : ''}${'0'.repeat(missing)}`;
}

/** The JSON number for a decimal that is already rounded to what it reports. */
export function toNumber(value: Dec): number {
  const n = value.toNumber();
  return Object.is(n, -0) ? 0 : n;
}

export function sum(values: readonly Dec[]): Dec {
  return values.reduce((acc, v) => acc.plus(v), ZERO);
}

export function minOf(first: Dec, rest: readonly Dec[]): Dec {
  return rest.reduce((low, v) => (v.lt(low) ? v : low), first);
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
