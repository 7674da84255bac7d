import { describe, expect, it } from 'vitest';
import { AS_OF_NOT_A_TIME, AS_OF_TOO_EARLY, AsOfSchema, asOfInstant, asOfProblem } from '../index.js';

const iso = (text: string) => {
  const t = asOfInstant(text);
  return t === null ? null : new Date(t).toISOString();
};

describe('asOfInstant: the instant an as_of value names', () => {
  it.each([
    ['2026-06-30', '2026-06-30T23:59:59.999Z'],
    ['2026-06-30T10:00:00Z', '2026-06-30T10:00:00.000Z'],
    ['2026-06-30t10:00:00z', '2026-06-30T10:00:00.000Z'],
    ['2026-06-30T12:00:00+02:00', '2026-06-30T10:00:00.000Z'],
    ['2026-06-30T00:30:00-01:30', '2026-06-30T02:00:00.000Z'],
    ['2026-06-30T10:00:00-00:00', '2026-06-30T10:00:00.000Z'],
    ['2026-06-30T10:00:00.5Z', '2026-06-30T10:00:00.500Z'],
    ['2026-06-30T10:00:00.123456789Z', '2026-06-30T10:00:00.123Z'],
    ['2026-06-30T10:00:00.9999Z', '2026-06-30T10:00:00.999Z'],
    ['2028-02-29', '2028-02-29T23:59:59.999Z'],
    ['2026-12-31T23:59:59+14:00', '2026-12-31T09:59:59.000Z'],
  ])('%s is %s', (text, instant) => {
    expect(iso(text)).toBe(instant);
  });

  it.each([
    'yesterday',
    '',
    '2026-6-30',
    '2026-06-31',
    '2027-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-06-30T24:00:00Z',
    '2026-06-30T10:60:00Z',
    '2026-06-30T23:59:60Z',
    '2026-06-30T10:00Z',
    '2026-06-30T10:00:00',
    '2026-06-30 10:00:00Z',
    '2026-06-30T10:00:00+0200',
    '2026-06-30T10:00:00+24:00',
    '2026-06-30T10:00:00.Z',
    '2026-06-30T10:00:00.1234567890Z',
    ' 2026-06-30',
  ])('%j is not a date or timestamp', (text) => {
    expect(asOfInstant(text)).toBeNull();
    expect(asOfProblem(text)).toBe(AS_OF_NOT_A_TIME);
  });
});

describe('asOfProblem and AsOfSchema', () => {
  const now = new Date('2026-08-02T13:00:00.000Z');

  it('refuses an instant before 2026-04-01 and, given the present, one after it', () => {
    expect(asOfProblem('2026-03-31', now)).toBe(AS_OF_TOO_EARLY);
    expect(asOfProblem('2026-04-01T01:59:59.999+02:00', now)).toBe(AS_OF_TOO_EARLY);
    expect(asOfProblem('2026-04-01T00:00:00Z', now)).toBeNull();
    expect(asOfProblem('2026-08-02T13:00:00Z', now)).toBeNull();
    expect(asOfProblem('2026-08-02T13:00:00.001Z', now)).toMatch(/^is in the future: 2026-08-02T13:00:00.001Z/);
    expect(asOfProblem('2026-08-02', now)).toMatch(/^is in the future: a date means the end of that day/);
    expect(asOfProblem('2026-08-01', now)).toBeNull();
    // Without the present (the contract's schema), only the form and the start of the record.
    expect(asOfProblem('2999-01-01')).toBeNull();
  });

  it('the schema reports the same messages', () => {
    expect(AsOfSchema.safeParse('2026-06-30').success).toBe(true);
    expect(AsOfSchema.safeParse('soon').error?.issues[0]?.message).toBe(AS_OF_NOT_A_TIME);
    expect(AsOfSchema.safeParse('2026-01-01').error?.issues[0]?.message).toBe(AS_OF_TOO_EARLY);
    expect(AsOfSchema.safeParse('2'.repeat(65)).error?.issues.map((i) => i.message)).toEqual([AS_OF_NOT_A_TIME]);
  });
});
