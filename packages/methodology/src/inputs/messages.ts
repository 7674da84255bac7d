/** Every message the input validation gives, in one place. */
export const messages = {
  required: 'is required',
  notObject: (got: string) => `must be a JSON object, got ${got}`,
  notString: (got: string) => `must be a string, got ${got}`,
  emptyString: 'must not be empty',
  malformedUnicode: 'must be well-formed Unicode text (no lone surrogates)',
  notNumber: (got: string) => `must be a JSON number, got ${got}`,
  tooPrecise: (text: string) => `has more than 15 significant digits (${text}); write at most 15`,
  notInteger: (n: number) => `must be a whole number, got ${n}`,
  belowMin: (min: string, n: number) => `must be >= ${min}, got ${n}`,
  aboveMax: (max: string, n: number) => `must be <= ${max}, got ${n}`,
  notBoolean: (got: string) => `must be true or false, got ${got}`,
  notEnum: (allowed: readonly string[], got: string) => `must be one of ${allowed.join(', ')}; got ${got}`,
  notDate: (got: string) => `must be a calendar date YYYY-MM-DD, got ${got}`,
  notTimestamp: (got: string) => `must be an ISO 8601 UTC timestamp such as 2026-06-02T10:00:00Z, got ${got}`,
  notUuid: (got: string) => `must be a UUID, got ${got}`,
  nameLength: (n: number) => `must be 1 to 200 characters, got ${n}`,
  notSubtype: (got: string) => `must be 1 to 64 characters of a-z, 0-9 and _, got ${got}`,
  yieldOrder: (min: number, max: number) => `yield_min (${min}) must not exceed yield_max (${max})`,
  asOfAfterEvaluation: (asOf: string, evaluation: string) => `as_of ${asOf} is after the evaluation date ${evaluation}`,
  unknownField: (where: string) => `is not a field of ${where}`,
  unknownInputKey: (framework: string) => `is not an input key of ${framework}`,
} as const;

/** A short description of a JSON value for messages: its type, and the value when short. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    return value instanceof TooPreciseNumber ? `the number ${value.text}` : 'an object';
  }
  const text = JSON.stringify(value) ?? String(value);
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return `${typeof value} ${shown}`;
}

/** A JSON number whose written form has more digits than any reader keeps; kept as text so it can be refused. */
export class TooPreciseNumber {
  constructor(readonly text: string) {}
}
