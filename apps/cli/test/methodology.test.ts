import type { FrameworkDefinition } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { svc, svcJson } from './svc.js';

interface ShowJson {
  framework_version: string;
  version: string;
  sha256: string;
  sign_off: { role: string; signed_off_by: string; signed_off_on: string } | null;
  definition: FrameworkDefinition;
}

describe('svc methodology show', () => {
  it('prints the framework as data in --json mode: version, hash, sign-off and definition', async () => {
    const run = await svcJson('methodology', 'show');
    expect(run.status).toBe(0);
    const body = run.json as ShowJson;
    expect(Object.keys(body)).toEqual(['framework_version', 'version', 'sha256', 'sign_off', 'definition']);
    expect(body.framework_version).toBe('DCRF v1.0');
    expect(body.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(body.sign_off?.role).toBe('chief_risk_officer');
    expect(body.definition.criteria).toHaveLength(14);
    expect(body.definition.hard_caps.map((c) => c.id)).toEqual([
      'HC-01',
      'HC-02',
      'HC-03',
      'HC-04',
      'HC-05',
      'HC-06',
      'HC-07',
    ]);
  });

  it('shows people the name, effective date, sign-off, hash, weights, scales, caps, bands and freshness rule', async () => {
    const run = await svc('methodology', 'show');
    const { sha256 } = (await svcJson('methodology', 'show')).json as ShowJson;
    expect(run.status).toBe(0);
    for (const text of [
      'Digital Credit Risk Framework (DCRF v1.0)',
      'effective 2026-04-01',
      'signed off by Chief Risk Officer',
      sha256,
      'Reserves and collateral',
      'collateral_coverage_ratio',
      '(0.90, 0) (1.00, 30) (1.20, 60) (1.50, 90) (2.00, 100)',
      'linear on spread_bps',
      'HC-07',
      '64.99',
      '>= 65.00 and < 80.00',
      'Freshness: factor 1 up to 90 days old',
      'Publishable when confidence >= 0.5',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });

  it('accepts "v1.0" and "DCRF v1.0" as the version', async () => {
    expect((await svc('methodology', 'show', '--framework', 'v1.0')).status).toBe(0);
    expect((await svc('methodology', 'show', '--framework', 'DCRF v1.0')).status).toBe(0);
  });

  it('refuses an unknown version with exit 2, naming the supported versions', async () => {
    const run = await svc('methodology', 'show', '--framework', '2.0');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: unknown framework version "2.0"; supported: 1.0\n');
  });
});

describe('svc methodology diff', () => {
  it('finds no differences between a version and itself (exit 0)', async () => {
    const run = await svc('methodology', 'diff', '1.0', 'DCRF v1.0');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('no differences');
  });

  it('reports an identical comparison in --json mode', async () => {
    const run = await svcJson('methodology', 'diff', '1.0', '1.0');
    expect(run.status).toBe(0);
    expect(run.json).toMatchObject({
      from: { framework_version: 'DCRF v1.0' },
      to: { framework_version: 'DCRF v1.0' },
      identical: true,
      changes: [],
    });
  });

  it('refuses an unknown version with exit 2, naming the supported versions', async () => {
    const run = await svcJson('methodology', 'diff', '1.0', '1.1');
    expect(run.status).toBe(2);
    expect(run.json).toEqual({
      error: 'unknown framework version "1.1"; supported: 1.0',
      code: 'unknown_framework',
    });
  });
});
