import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { futureDatedProblems, isAfterPresent } from '../index.js';

const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const worked = () =>
  JSON.parse(readFileSync(join(examplesDir, 'worked-example.json'), 'utf8')) as {
    evaluation_date: string;
    inputs: Record<string, { as_of: string; approved_at: string }>;
  };

describe('future-dated evidence', () => {
  it('finds nothing in a document dated in the past', () => {
    expect(futureDatedProblems(worked(), new Date('2027-01-01T00:00:00Z'))).toEqual([]);
  });

  it('names the evaluation date, each as_of and each approved_at after the present', () => {
    const doc = worked();
    doc.evaluation_date = '2030-01-01';
    const [first] = Object.keys(doc.inputs) as [string];
    (doc.inputs[first] as { as_of: string }).as_of = '2029-06-01';
    (doc.inputs[first] as { approved_at: string }).approved_at = '2029-06-02T10:00:00.123456Z';
    const problems = futureDatedProblems(doc, new Date('2027-01-01T00:00:00Z'));
    expect(problems.map((p) => p.path)).toEqual([
      'evaluation_date',
      `inputs.${first}.as_of`,
      `inputs.${first}.approved_at`,
    ]);
    expect(problems[0]?.message).toBe('2030-01-01 is after the present (2027-01-01T00:00:00.000Z)');
  });

  it('allows five minutes of clock skew, and not one millisecond more', () => {
    const now = new Date('2026-07-01T23:55:00.000Z');
    expect(isAfterPresent('2026-07-02', now)).toBe(false);
    expect(isAfterPresent('2026-07-02', new Date('2026-07-01T23:54:59.999Z'))).toBe(true);
    expect(isAfterPresent('2026-07-02T00:00:00Z', now)).toBe(false);
    expect(isAfterPresent('2026-07-02T00:00:00.001Z', now)).toBe(true);
    expect(isAfterPresent('2026-07-01', now)).toBe(false);
  });

  it('leaves what is not a date to the validation', () => {
    expect(futureDatedProblems({ evaluation_date: 'soon', inputs: { x: { as_of: 7 } } }, new Date())).toEqual([]);
    expect(futureDatedProblems(null, new Date())).toEqual([]);
  });
});
