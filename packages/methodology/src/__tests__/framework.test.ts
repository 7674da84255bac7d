import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  assertPublishable,
  currentFramework,
  DCRF_1_0,
  defineFramework,
  ENGINE,
  FrameworkError,
  frameworks,
  frameworkVersionKey,
  getFramework,
  methodologyMarkdown,
  score,
} from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const copy = () => structuredClone(DCRF_1_0) as unknown as Record<string, unknown> & typeof DCRF_1_0;

describe('the framework as data', () => {
  it('DCRF v1.0 is current, signed off by the chief risk officer, with weights summing to 100', () => {
    const fw = currentFramework();
    expect(fw.definition.framework_version).toBe('DCRF v1.0');
    expect(fw.signOff?.role).toBe('chief_risk_officer');
    expect(fw.definition.criteria.reduce((a, c) => a + c.weight, 0)).toBe(100);
    expect(() => assertPublishable(fw)).not.toThrow();
  });

  it('has a stable definition hash (a change to any weight, threshold or cap changes it)', () => {
    const fw = currentFramework();
    expect(fw.sha256).toMatch(/^[0-9a-f]{64}$/);
    const changed = copy();
    (changed.hard_caps[0] as { cap: string }).cap = '34.98';
    expect(defineFramework(changed).sha256).not.toBe(fw.sha256);
    expect(defineFramework(copy()).sha256).toBe(fw.sha256);
  });

  it('is found by "1.0", "v1.0" and "DCRF v1.0"; an unknown version names the supported ones', () => {
    for (const v of ['1.0', 'v1.0', 'DCRF v1.0']) expect(getFramework(v)).toBe(currentFramework());
    expect(() => getFramework('9.9')).toThrow(/supported: 1.0/);
    expect([...frameworks.keys()]).toEqual(['1.0']);
  });

  it('reads a version string one way: "1.0", "v1.0", "V1.0", "DCRF v1.0", "dcrf 1.0" are all the key "1.0"', () => {
    for (const v of ['1.0', 'v1.0', 'V1.0', 'DCRF v1.0', 'dcrf 1.0', 'DCRF  v1.0'])
      expect(frameworkVersionKey(v)).toBe('1.0');
    expect(frameworkVersionKey('1.1-draft')).toBe('1.1-draft');
    expect(frameworkVersionKey('DCRFv1.0')).toBe('DCRFv1.0');
  });

  it('a framework without a sign-off scores drafts but is refused for publication', () => {
    const draft = defineFramework({ ...copy(), version: '1.1', framework_version: 'DCRF v1.1' });
    expect(
      score(JSON.parse(readFileSync(join(here, '../../../../examples/dcrf-1.0/worked-example.json'), 'utf8')), draft)
        .framework_version,
    ).toBe('DCRF v1.1');
    expect(() => assertPublishable(draft)).toThrow(/no chief risk officer sign-off/);
  });

  it('refuses a definition whose weights do not sum to 100, with every problem listed', () => {
    const bad = copy();
    (bad.criteria[0] as { weight: number }).weight = 13;
    try {
      defineFramework(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FrameworkError);
      const messages = (error as FrameworkError).problems.map((p) => p.message);
      expect(messages).toContain('criterion weights sum to 101, not 100');
      expect(messages.some((m) => m.startsWith('module A weight 30'))).toBe(true);
    }
  });

  it('refuses unsorted anchors, an unknown cap operand and an unknown derived quantity', () => {
    const bad = copy();
    const a1 = bad.criteria[0] as { scale: { anchors: [string, string][] } };
    a1.scale.anchors = [...a1.scale.anchors].reverse();
    (bad.hard_caps[0] as { condition: unknown }).condition = { op: 'eq', operand: 'no_such_input', value: true };
    expect(() => defineFramework(bad)).toThrow(FrameworkError);
    const derived = copy();
    (derived.derived[0] as { name: string }).name = 'mystery_bps';
    expect(() => defineFramework(derived)).toThrow(FrameworkError);
  });

  it('is frozen: nothing can change the published numbers at run time', () => {
    const fw = currentFramework();
    expect(() => {
      (fw.definition.criteria[0] as { weight: number }).weight = 50;
    }).toThrow(TypeError);
  });
});

describe('generated documentation', () => {
  it('docs/methodology/dcrf-1.0.md is current with the framework data (run `pnpm docs:generate`)', () => {
    const file = join(here, '../../../../docs/methodology/dcrf-1.0.md');
    expect(readFileSync(file, 'utf8')).toBe(methodologyMarkdown(getFramework('1.0')));
  });
});

describe('the engine identity', () => {
  it('matches package.json', () => {
    const pkg = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8'));
    expect(ENGINE).toEqual({ name: pkg.name, version: pkg.version });
  });
});

describe('calendar arithmetic', () => {
  it('counts days exactly as Date.UTC does, across leap years, centuries and eras', async () => {
    const { daysBetween, isCalendarDate } = await import('../dates.js');
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let t = Date.UTC(1599, 0, 1); t < Date.UTC(2402, 0, 1); t += 86_400_000 * 7.3) {
      const d = new Date(t);
      const text = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
      expect(daysBetween('1970-01-01', text)).toBe(Math.floor(t / 86_400_000));
    }
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2100-02-29')).toBe(false);
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('2026-04-31')).toBe(false);
    expect(isCalendarDate('0000-01-01')).toBe(true);
  });
});
