import { DCRF_1_0, type FrameworkDefinition } from '@svc/methodology';

/** DCRF v1.1 as a draft: A1 recalibrated (stricter coverage anchors) and a new cap on thin coverage. No sign-off. */
export function draft11(): FrameworkDefinition {
  const definition = structuredClone(DCRF_1_0) as FrameworkDefinition;
  definition.version = '1.1';
  definition.framework_version = 'DCRF v1.1';
  definition.effective_date = '2026-10-01';
  const a1 = definition.criteria.find((c) => c.id === 'A1');
  if (!a1) throw new Error('no A1');
  a1.scale = {
    kind: 'linear',
    on: 'input',
    anchors: [
      ['1.00', '0'],
      ['1.10', '30'],
      ['1.30', '60'],
      ['1.60', '90'],
      ['2.00', '100'],
    ],
  };
  definition.hard_caps.push({
    id: 'HC-08',
    label: 'Thin over-collateralisation',
    condition_text: 'collateral_coverage_ratio < 1.60',
    condition: { op: 'lt', operand: 'collateral_coverage_ratio', value: '1.60' },
    cap: '79.99',
  });
  return definition;
}
