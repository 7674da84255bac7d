import {
  type CriterionDefinition,
  currentFramework,
  DCRF_1_0,
  defineFramework,
  type FrameworkDefinition,
} from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { compareFrameworks, diffDefinitions } from '../framework-diff.js';

/** A valid variant of DCRF v1.0, as a later version would be: a copy changed by `edit`, then validated. */
function variant(edit: (d: FrameworkDefinition) => void): FrameworkDefinition {
  const copy = structuredClone(DCRF_1_0);
  copy.version = '1.1';
  copy.framework_version = 'DCRF v1.1';
  edit(copy);
  return defineFramework(copy).definition;
}

function criterion(d: FrameworkDefinition, id: string): CriterionDefinition {
  const found = d.criteria.find((c) => c.id === id);
  if (!found) throw new Error(`no criterion ${id}`);
  return found;
}

const versionChanges = [
  { path: 'version', change: 'changed', before: '1.0', after: '1.1' },
  { path: 'framework_version', change: 'changed', before: 'DCRF v1.0', after: 'DCRF v1.1' },
];

describe('diffDefinitions', () => {
  it('finds nothing between a definition and itself', () => {
    expect(diffDefinitions(DCRF_1_0, structuredClone(DCRF_1_0))).toEqual([]);
    expect(compareFrameworks(currentFramework(), currentFramework())).toMatchObject({ identical: true, changes: [] });
  });

  it('reports a moved weight pair and a changed cap by criterion and cap id, and nothing else', () => {
    const next = variant((d) => {
      criterion(d, 'A1').weight = 10;
      criterion(d, 'A2').weight = 12;
      const cap = d.hard_caps.find((c) => c.id === 'HC-04');
      if (cap) cap.cap = '59.99';
    });
    expect(diffDefinitions(DCRF_1_0, next)).toEqual([
      ...versionChanges,
      { path: 'criteria[A1].weight', change: 'changed', before: 12, after: 10 },
      { path: 'criteria[A2].weight', change: 'changed', before: 10, after: 12 },
      { path: 'hard_caps[HC-04].cap', change: 'changed', before: '64.99', after: '59.99' },
    ]);
  });

  it('reports scale anchors by x and table entries by value, added and removed ones too', () => {
    const next = variant((d) => {
      const a1 = criterion(d, 'A1').scale;
      if (a1.kind === 'linear') a1.anchors = a1.anchors.map(([x, p]) => (x === '1.20' ? [x, '65'] : [x, p]));
      const a2 = criterion(d, 'A2').scale;
      if (a2.kind === 'table') {
        a2.entries = a2.entries.filter(([v]) => v !== 'self_attested').concat([['self_attested_monthly', '30']]);
      }
    });
    expect(diffDefinitions(DCRF_1_0, next).slice(versionChanges.length)).toEqual([
      { path: 'criteria[A1].scale.anchors[1.20]', change: 'changed', before: '60', after: '65' },
      { path: 'criteria[A2].scale.entries[self_attested]', change: 'removed', before: '25' },
      { path: 'criteria[A2].scale.entries[self_attested_monthly]', change: 'added', after: '30' },
    ]);
  });

  it('reports removed and added criteria whole, and band thresholds by band', () => {
    const next = variant((d) => {
      const e3 = criterion(d, 'E3');
      const audit: CriterionDefinition = {
        id: 'E5',
        module_id: 'E',
        label: 'Audit trail',
        input_key: 'audit_trail',
        weight: e3.weight,
        input: { type: 'boolean' },
        scale: {
          kind: 'table',
          entries: [
            [true, '100'],
            [false, '0'],
          ],
        },
      };
      d.criteria = [...d.criteria.filter((c) => c.id !== 'E3'), audit];
      d.bands = d.bands.map((b) => (b.band === 'MEDIUM' ? { ...b, min: '66.00' } : b));
    });
    const changes = diffDefinitions(DCRF_1_0, next).slice(versionChanges.length);
    expect(changes.map(({ path, change }) => [path, change])).toEqual([
      ['criteria[E3]', 'removed'],
      ['criteria[E5]', 'added'],
      ['bands[MEDIUM].min', 'changed'],
    ]);
    expect(changes[1]?.after).toMatchObject({ id: 'E5', weight: 3 });
  });

  it('reports a new criterion order, because the order is the order of calculation', () => {
    const next = variant((d) => {
      d.criteria = [...d.criteria.slice(1, 3), ...d.criteria.slice(0, 1), ...d.criteria.slice(3)];
    });
    const [reordered] = diffDefinitions(DCRF_1_0, next).slice(versionChanges.length);
    expect(reordered).toMatchObject({ path: 'criteria', change: 'reordered' });
    expect(reordered?.after).toEqual(['A2', 'A3', 'A1', ...DCRF_1_0.criteria.slice(3).map((c) => c.id)]);
  });

  it('compares whole frameworks by hash first, carrying both versions and hashes', () => {
    const next = defineFramework(variant(() => {}));
    const comparison = compareFrameworks(currentFramework(), next);
    expect(comparison.identical).toBe(false);
    expect(comparison.from).toEqual({ framework_version: 'DCRF v1.0', sha256: currentFramework().sha256 });
    expect(comparison.to).toEqual({ framework_version: 'DCRF v1.1', sha256: next.sha256 });
    expect(comparison.changes).toEqual(versionChanges);
  });
});
