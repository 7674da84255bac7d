import type { InputsDocument, InputValue } from '../inputs/document.js';

/**
 * The worked example of each framework version (methodology section 11), as data so the page generated from
 * it needs no file beside the engine; examples/dcrf-<version>/worked-example.json is the same document (a test
 * keeps them equal).
 */

const evidence = (value: InputValue) => ({
  value,
  as_of: '2026-05-31',
  source: 'Provider disclosure pack, 2026-05',
  approved_by: 'analyst.a',
  approved_at: '2026-06-02T10:00:00Z',
});

const DCRF_1_0_WORKED_EXAMPLE: InputsDocument = {
  provider: {
    id: '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11',
    name: 'Example Sats Lending',
    planner_type: 'btc',
    provider_subtype: 'lender',
    yield_min: 2.5,
    yield_max: 7.25,
  },
  evaluation_date: '2026-06-30',
  inputs: {
    collateral_coverage_ratio: evidence(1.35),
    proof_of_reserves: evidence('third_party_quarterly'),
    rehypothecation: evidence('limited'),
    custody_model: evidence('qualified_custodian'),
    security_incidents_36m: evidence('none'),
    largest_counterparty_exposure_pct: evidence(20),
    yield_source_disclosure: evidence('strategy_level'),
    benchmark_rate_pct: evidence(4.25),
    redemption_notice_days: evidence(7),
    duration_gap_days: evidence(45),
    regulatory_status: evidence('licensed_tier2'),
    financial_statements: evidence('audited'),
    operating_history_years: evidence(4),
    default_or_freeze_36m: evidence(false),
  },
};

/** By framework version. */
export const WORKED_EXAMPLES: ReadonlyMap<string, InputsDocument> = new Map([['1.0', DCRF_1_0_WORKED_EXAMPLE]]);
