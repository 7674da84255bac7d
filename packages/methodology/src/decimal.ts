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

export function roundTo(value: Dec, places: number): Dec {
  return value.toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN);
}

/** r4 of the methodology. */
export const r4 = (value: Dec): Dec => roundTo(value, 4);
/** r2 of the methodology. */
export const r2 = (value: Dec): Dec => roundTo(value, 2);

/** Fixed-point text with exactly `places` decimals; never "-0.00". */
export function fixed(value: Dec, places: number): string {
  const text = value.toFixed(places, Decimal.ROUND_HALF_EVEN);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
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

export function isDecimalText(text: string): boolean {
  return /^-?(0|[1-9]\d*)(\.\d+)?$/.test(text);
}
