import type { InputsDocument } from '../index.js';

/** An approved-inputs document as a breakage edits it. */
export type Doc = { [key: string]: unknown; provider: Record<string, unknown>; inputs: Record<string, unknown> };
export const copy = (doc: InputsDocument): Doc => structuredClone(doc) as unknown as Doc;
const firstItem = (d: Doc) => Object.values(d.inputs)[0] as Record<string, unknown> | undefined;

/** Deliberate breakages, each applied to several documents: every kind of problem validation reports. */
export const BREAKAGES: ((d: Doc) => void)[] = [
  (d) => (d.extra = 1),
  (d) => (d.provider.rating = 'AAA'),
  (d) => delete (d as Record<string, unknown>).provider,
  (d) => (d.provider.id = 'provider-1'),
  (d) => (d.provider.name = ''),
  (d) => (d.provider.name = 'x'.repeat(201)),
  (d) => (d.provider.planner_type = 'gold'),
  (d) => (d.provider.provider_subtype = 'Lender'),
  (d) => (d.provider.yield_min = -1),
  (d) => (d.provider.yield_max = 100.5),
  (d) => (d.provider.yield_max = '7.25'),
  (d) => (d.provider.yield_min = 0.1 + 0.2),
  (d) => (d.provider.yield_max = 1.0000000000000002),
  (d) => {
    d.provider.yield_min = 8;
    d.provider.yield_max = 7;
  },
  (d) => (d.evaluation_date = '30/06/2026'),
  (d) => (d.evaluation_date = '2026-02-29'),
  (d) => (d.evaluation_date = '2000-01-01'),
  (d) => (d.inputs.reserve_magic = { value: 1 }),
  (d) => ((d as Record<string, unknown>).inputs = []),
  (d) => (d.inputs.custody_model = null),
  (d) => (d.inputs.custody_model = { value: 'vault', as_of: '2026-13-01', source: '', approved_by: 7 }),
  (d) => (d.inputs.collateral_coverage_ratio = { value: '1.35', as_of: '2026-05-31', note: 'x' }),
  (d) => (d.inputs.redemption_notice_days = { value: 7.5, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.redemption_notice_days = { value: -1, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.benchmark_rate_pct = { value: 101, as_of: '2026-05-31', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.default_or_freeze_36m = { value: 'false', as_of: 'x', source: 's', approved_by: 'a' }),
  (d) => (d.inputs.largest_counterparty_exposure_pct = { value: 1e21, as_of: '2026-05-31' }),
  (d) => (d.inputs.operating_history_years = { value: 1e-7, approved_at: '2026-06-02T10:00:00+02:00' }),
  (d) => (d.inputs.duration_gap_days = { value: Number.NaN, approved_at: '2026-06-02T24:00:00Z' }),
  (d) => {
    const item = firstItem(d);
    if (item) item.source = 'pack \ud800';
  },
  (d) => {
    const item = firstItem(d);
    if (item) item.as_of = '2999-01-01';
  },
  (d) => {
    const item = firstItem(d);
    if (item) item.value = null;
  },
  (d) => {
    const item = firstItem(d);
    if (item) delete item.approved_by;
  },
];
