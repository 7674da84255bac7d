import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BandChangedDataSchema,
  CHANGE_TYPES,
  CONCENTRATION_LEVELS,
  COVERAGE_REQUEST_STATUSES,
  ComputationPackageSchema,
  DELIVERY_STATUSES,
  HistoryPublicationSchema,
  HistoryWithdrawalSchema,
  IndicatorPublishedDataSchema,
  ISSUANCE_TYPES,
  IssuanceSchema,
  MATCH_KINDS,
  MethodologyResponseSchema,
  OUTLOOKS,
  PlannerTypeSchema,
  RiskBandSchema,
  SigningKeysResponseSchema,
  StatusResponseSchema,
  TIERS,
  TRANSITION_COLUMNS,
  WATCH_DIRECTIONS,
  WEBHOOK_STATUSES,
} from '../index.js';

/** The table of sets in docs/compatibility.md: each row's cells, by its first cell. */
function setsTable(): Map<string, string[]> {
  const text = readFileSync(new URL('../../../../docs/compatibility.md', import.meta.url), 'utf8');
  const rows = new Map<string, string[]>();
  const start = text.indexOf('| set ');
  expect(start, 'the table of sets').toBeGreaterThan(0);
  for (const line of text.slice(start).split('\n')) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
    rows.set(cells[0] ?? '', cells);
  }
  return rows;
}

const key = SigningKeysResponseSchema.shape.keys.element.shape;

/**
 * Every closed set of the contracts, with the values v1 promised: a value added to or removed from a closed set
 * fails here, and so does a set the policy's table no longer lists as it is.
 */
const CLOSED: [row: string, set: string, values: readonly string[], v1: readonly string[]][] = [
  [
    '`risk_band`, `previous_band`, `new_band`, `next_band`',
    'band',
    RiskBandSchema.options,
    ['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE'],
  ],
  ['`outlook`', 'outlook', OUTLOOKS, ['POSITIVE', 'STABLE', 'NEGATIVE', 'DEVELOPING']],
  ['watch `direction`', 'direction', WATCH_DIRECTIONS, ['POSITIVE', 'NEGATIVE', 'DEVELOPING']],
  [
    'transition matrix columns',
    'columns',
    TRANSITION_COLUMNS,
    ['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE', 'WITHDRAWN'],
  ],
  ['tier', 'tier', TIERS, ['FREE', 'PROFESSIONAL', 'ENTERPRISE', 'CUSTOM']],
  ['`planner_type`', 'planner_type', PlannerTypeSchema.options, ['btc', 'fiat', 'stablecoin']],
  ['change-feed `change_type`', 'change_type', CHANGE_TYPES, ['NEW', 'SCORE_CHANGE', 'BAND_CHANGE', 'WITHDRAWN']],
  [
    '`change_type` of `risk_indicator.published`',
    'change_type',
    IndicatorPublishedDataSchema.shape.change_type.unwrap().options,
    ['NEW', 'SCORE_CHANGE', 'BAND_CHANGE'],
  ],
  [
    '`direction` of `risk_indicator.band_changed`',
    'direction',
    BandChangedDataSchema.shape.direction.options,
    ['improved', 'deteriorated'],
  ],
  // `publication` was added on 2026-12-02, by the exception recorded in decision 0017 (a publication carried none).
  [
    'history `entry_type`',
    'entry_type',
    [HistoryPublicationSchema.shape.entry_type.value, HistoryWithdrawalSchema.shape.entry_type.value],
    ['publication', 'withdrawal'],
  ],
  ['status', 'status', StatusResponseSchema.shape.status.options, ['ok', 'degraded']],
  ['status', 'store', StatusResponseSchema.shape.components.shape.store.options, ['ok', 'unavailable']],
  [
    'status',
    'rate_limit_store',
    StatusResponseSchema.shape.components.shape.rate_limit_store.options,
    ['in_process', 'ok', 'degraded'],
  ],
  ['methodology `status`', 'status', MethodologyResponseSchema.shape.status.options, ['approved', 'draft']],
  ['coverage request `status`', 'status', COVERAGE_REQUEST_STATUSES, ['RECEIVED', 'IN_REVIEW', 'COVERED', 'DECLINED']],
  ['issuance `type`, `status`, `coupon_frequency`', 'type', ISSUANCE_TYPES, ['preferred_share', 'bond']],
  [
    'issuance `type`, `status`, `coupon_frequency`',
    'status',
    IssuanceSchema.shape.status.options,
    ['ANNOUNCED', 'PRICING', 'PRICED', 'CANCELLED'],
  ],
  [
    'issuance `type`, `status`, `coupon_frequency`',
    'coupon_frequency',
    IssuanceSchema.shape.coupon_frequency.unwrap().options,
    ['monthly', 'quarterly', 'semiannual', 'annual'],
  ],
  ['webhook endpoint and delivery `status`', 'endpoint', WEBHOOK_STATUSES, ['active', 'disabled']],
  [
    'webhook endpoint and delivery `status`',
    'delivery',
    DELIVERY_STATUSES,
    ['pending', 'delivered', 'failed', 'cancelled'],
  ],
  ['signing key members', 'status', key.status.options, ['active', 'retired']],
  [
    'signing key members',
    'kty, crv, alg, use',
    [key.kty.value, key.crv.value, key.alg.value, key.use.value],
    ['OKP', 'Ed25519', 'EdDSA', 'sig'],
  ],
  ['search `match`', 'match', MATCH_KINDS, ['exact', 'prefix', 'word_prefix', 'substring']],
  ['concentration `level`', 'level', CONCENTRATION_LEVELS, ['low', 'moderate', 'high']],
  [
    '`package_format`',
    'package_format',
    [ComputationPackageSchema.shape.package_format.value],
    ['svc.computation-package/1'],
  ],
];

const OPEN = [
  'problem `code`',
  'webhook event `type`',
  'signed statement `type`',
  'agent tool names',
  'rating action `type`',
  'evidence schedule `reason_codes`',
  'agent resource URIs',
  '`Link` relations',
  '`framework_version`, framework ids',
];

describe('the open and closed sets of docs/compatibility.md', () => {
  const table = setsTable();

  it.each(CLOSED)('closed: %s (%s) keeps exactly its v1 values, as the policy lists them', (row, _set, values, v1) => {
    expect([...values]).toEqual([...v1]);
    const cells = table.get(row);
    expect(cells, `a row "${row}"`).toBeDefined();
    expect(cells?.at(-1)).toMatch(/^closed\b/);
    for (const value of v1) expect(cells?.[2], value).toContain(`\`${value}\``);
  });

  it.each(OPEN)('open: %s', (row) => {
    expect(table.get(row)?.at(-1), row).toMatch(/^open\b/);
  });

  it('every row of the table is one of these', () => {
    expect([...table.keys()].slice(2).sort()).toEqual([...new Set([...CLOSED.map(([row]) => row), ...OPEN])].sort());
  });
});
