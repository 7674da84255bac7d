import type { InputItem, InputsDocument, InputValue, Provider } from '@svc/methodology';

/**
 * The demo data set's approved-inputs documents (DCRF v1.0). Every provider
 * is fictional: the names end in "(demo)" and the evidence sources say so.
 * Two scoring rounds: every provider on the first evaluation date, then four
 * of them again on the second with changed evidence.
 */

/**
 * The framework the documents are written for. The seed publishes each round under the framework in force on its
 * day (frameworkInForce), which is this one while no later release is recorded.
 */
export const DEMO_FRAMEWORK_VERSION = '1.0';

type InputKey =
  | 'collateral_coverage_ratio'
  | 'proof_of_reserves'
  | 'rehypothecation'
  | 'custody_model'
  | 'security_incidents_36m'
  | 'largest_counterparty_exposure_pct'
  | 'yield_source_disclosure'
  | 'benchmark_rate_pct'
  | 'redemption_notice_days'
  | 'duration_gap_days'
  | 'regulatory_status'
  | 'financial_statements'
  | 'operating_history_years'
  | 'default_or_freeze_36m';

type Values = Partial<Record<InputKey, InputValue>>;

/** Where an input's value comes from: `as_of`, `source` and the approval. */
type Evidence = Omit<InputItem, 'value'>;

/** One document: the provider's values, one evidence record for most of them, older evidence for some. */
function document(
  provider: Provider,
  evaluation_date: string,
  values: Values,
  evidence: Evidence,
  other: Partial<Record<InputKey, Evidence>> = {},
): InputsDocument {
  const inputs: Record<string, InputItem> = {};
  for (const [key, value] of Object.entries(values) as [InputKey, InputValue][]) {
    inputs[key] = { value, ...(other[key] ?? evidence) };
  }
  return { provider, evaluation_date, inputs };
}

const evidence = (as_of: string, source: string, approved_by: string, approved_at: string): Evidence => ({
  as_of,
  source: `${source} (fictional demo evidence)`,
  approved_by,
  approved_at,
});

// ---- providers ----

const northwind: Provider = {
  id: 'ef9611a2-52e5-4f19-aa85-afeec1cdf829',
  name: 'Northwind Sats Lending (demo)',
  planner_type: 'btc',
  provider_subtype: 'lender',
  yield_min: 1.5,
  yield_max: 5.5,
};
const bluefjord: Provider = {
  id: '85ca1de6-895b-4e56-832d-39f159d2e5e3',
  name: 'Bluefjord Bitcoin Credit (demo)',
  planner_type: 'btc',
  provider_subtype: 'lender',
  yield_min: 3,
  yield_max: 8,
};
const harbourlight: Provider = {
  id: '88690597-8688-4c2e-86a0-5a43c1e650b0',
  name: 'Harbourlight Exchange Earn (demo)',
  planner_type: 'btc',
  provider_subtype: 'exchange_earn',
  yield_min: 2,
  yield_max: 6,
};
const quillmoor: Provider = {
  id: 'ef0322a4-558a-41b5-a41e-63a63f41532b',
  name: 'Quillmoor BTC Yield (demo)',
  planner_type: 'btc',
  provider_subtype: 'custodian_yield',
  yield_min: 2.5,
  yield_max: 6.5,
};
const tallowcreek: Provider = {
  id: 'fb8f748a-287d-45bd-9462-e4ad09b2631c',
  name: 'Tallowcreek Sats Vault (demo)',
  planner_type: 'btc',
  provider_subtype: 'lender',
  yield_min: 4,
  yield_max: 9,
};
const examplia: Provider = {
  id: '210f14fa-c030-4bac-be13-c19c900948d4',
  name: 'Examplia Preferred Income (demo)',
  planner_type: 'fiat',
  provider_subtype: 'preferred_share',
  yield_min: 6.5,
  yield_max: 8,
};
const larkspur: Provider = {
  id: '661d27c0-f933-417b-a1a6-14f72c0d9733',
  name: 'Larkspur Capital Notes (demo)',
  planner_type: 'fiat',
  provider_subtype: 'bond_issuer',
  yield_min: 7,
  yield_max: 9.5,
};
const redwater: Provider = {
  id: '0439aa33-4a52-48b3-a5e3-ee3646de648f',
  name: 'Redwater Credit Preferred (demo)',
  planner_type: 'fiat',
  provider_subtype: 'preferred_share',
  yield_min: 9,
  yield_max: 11,
};
const orchardLane: Provider = {
  id: '27080d6a-5ae2-48d6-a423-713f04e17223',
  name: 'Orchard Lane Bonds (demo)',
  planner_type: 'fiat',
  provider_subtype: 'bond_issuer',
  yield_min: 8,
  yield_max: 10,
};
const meridian: Provider = {
  id: 'c4677854-738a-41ca-9c81-ebe998beac75',
  name: 'Meridian Dollar Yield (demo)',
  planner_type: 'stablecoin',
  provider_subtype: 'custodian_yield',
  yield_min: 3.5,
  yield_max: 4.8,
};
const cobaltbay: Provider = {
  id: 'a38873d0-e170-42a5-8f0a-cda0f60e6f2b',
  name: 'Cobaltbay Stable Earn (demo)',
  planner_type: 'stablecoin',
  provider_subtype: 'exchange_earn',
  yield_min: 5,
  yield_max: 9,
};
const fernhollow: Provider = {
  id: 'fc154c24-77cf-4ab3-be0e-cdc229fcaf54',
  name: 'Fernhollow USD Vault (demo)',
  planner_type: 'stablecoin',
  provider_subtype: 'lender',
  yield_min: 12,
  yield_max: 18,
};
const driftwood: Provider = {
  id: 'af1e8e90-5ba7-4734-8f48-d47e6b8129ee',
  name: 'Driftwood Stable Lending (demo)',
  planner_type: 'stablecoin',
  provider_subtype: 'lender',
  yield_min: 6,
  yield_max: 11,
};
const pinecrest: Provider = {
  id: '20a51c09-4c78-453b-82fb-91a91fd5b927',
  name: 'Pinecrest Treasury Stable (demo)',
  planner_type: 'stablecoin',
  provider_subtype: 'custodian_yield',
  yield_min: 4,
  yield_max: 6.5,
};

/** The demo providers, ids fixed once. */
export const DEMO_PROVIDERS: readonly Provider[] = [
  northwind,
  bluefjord,
  harbourlight,
  quillmoor,
  tallowcreek,
  examplia,
  larkspur,
  redwater,
  orchardLane,
  meridian,
  cobaltbay,
  fernhollow,
  driftwood,
  pinecrest,
];

// ---- round 1: evaluated 2026-09-30 ----

const R1 = '2026-09-30';
const q3 = (source: string, by = 'analyst.demo.a') => evidence('2026-08-31', source, by, '2026-09-24T10:00:00Z');
const statements2025 = (source: string) => evidence('2026-07-15', source, 'analyst.demo.b', '2026-09-24T10:00:00Z');

const round1: InputsDocument[] = [
  document(
    northwind,
    R1,
    {
      collateral_coverage_ratio: 1.85,
      proof_of_reserves: 'merkle_liabilities_monthly',
      rehypothecation: 'prohibited',
      custody_model: 'multi_institution_multisig',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 12,
      yield_source_disclosure: 'position_level_monthly',
      benchmark_rate_pct: 4,
      redemption_notice_days: 3,
      duration_gap_days: 10,
      regulatory_status: 'licensed_tier1',
      financial_statements: 'audited',
      operating_history_years: 7,
      default_or_freeze_36m: false,
    },
    q3('Northwind monthly reserve attestation, 2026-08'),
    { financial_statements: statements2025('Northwind audited statements FY2025') },
  ),
  document(
    bluefjord,
    R1,
    {
      collateral_coverage_ratio: 1.4,
      proof_of_reserves: 'third_party_annual',
      rehypothecation: 'limited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 22,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4,
      redemption_notice_days: 14,
      duration_gap_days: 40,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 5,
      default_or_freeze_36m: false,
    },
    q3('Bluefjord loan book disclosure, 2026-08'),
  ),
  document(
    harbourlight,
    R1,
    {
      collateral_coverage_ratio: 1.5,
      proof_of_reserves: 'merkle_liabilities_monthly',
      rehypothecation: 'permitted_without_consent',
      custody_model: 'exchange_hot_wallet',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 15,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4,
      redemption_notice_days: 0,
      duration_gap_days: 5,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 8,
      default_or_freeze_36m: false,
    },
    q3('Harbourlight earn programme terms and reserve report, 2026-08', 'analyst.demo.b'),
  ),
  document(
    quillmoor,
    R1,
    {
      collateral_coverage_ratio: 0.95,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'limited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 20,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4,
      redemption_notice_days: 7,
      duration_gap_days: 30,
      regulatory_status: 'registered',
      financial_statements: 'reviewed',
      operating_history_years: 4,
      default_or_freeze_36m: false,
    },
    q3('Quillmoor quarterly custody attestation, 2026-08'),
  ),
  document(
    tallowcreek,
    R1,
    {
      collateral_coverage_ratio: 1.1,
      proof_of_reserves: 'self_attested',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'single_custodian',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 40,
      yield_source_disclosure: 'general',
      benchmark_rate_pct: 4,
      redemption_notice_days: 30,
      duration_gap_days: 90,
      regulatory_status: 'registered',
      financial_statements: 'unaudited',
      operating_history_years: 3,
      default_or_freeze_36m: true,
    },
    q3('Tallowcreek withdrawal-pause notice and creditor update, 2026-08', 'analyst.demo.b'),
  ),
  document(
    examplia,
    R1,
    {
      collateral_coverage_ratio: 2.4,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'prohibited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 10,
      yield_source_disclosure: 'position_level_monthly',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 2,
      duration_gap_days: 20,
      regulatory_status: 'licensed_tier1',
      financial_statements: 'audited',
      operating_history_years: 12,
      default_or_freeze_36m: false,
    },
    q3('Examplia series A prospectus supplement and asset-coverage report, 2026-08'),
    { financial_statements: statements2025('Examplia audited statements FY2025') },
  ),
  document(
    larkspur,
    R1,
    {
      collateral_coverage_ratio: 1.3,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'limited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 30,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 30,
      duration_gap_days: 60,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 6,
      default_or_freeze_36m: false,
    },
    q3('Larkspur note programme investor report, 2026-08', 'analyst.demo.b'),
  ),
  document(
    redwater,
    R1,
    {
      collateral_coverage_ratio: 1.15,
      proof_of_reserves: 'third_party_annual',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'single_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 35,
      yield_source_disclosure: 'general',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 30,
      duration_gap_days: 90,
      regulatory_status: 'registered',
      financial_statements: 'audited',
      operating_history_years: 4,
      default_or_freeze_36m: false,
    },
    q3('Redwater preferred dividend coverage statement, 2026-08'),
  ),
  document(
    orchardLane,
    R1,
    {
      collateral_coverage_ratio: 1.25,
      proof_of_reserves: 'none',
      rehypothecation: 'limited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 25,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 7,
      duration_gap_days: 45,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'unaudited',
      operating_history_years: 3,
      default_or_freeze_36m: false,
    },
    q3('Orchard Lane bond offering memorandum, 2026-08', 'analyst.demo.b'),
  ),
  document(
    meridian,
    R1,
    {
      collateral_coverage_ratio: 1.6,
      proof_of_reserves: 'onchain_continuous',
      rehypothecation: 'prohibited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 15,
      yield_source_disclosure: 'position_level_monthly',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 1,
      duration_gap_days: 15,
      regulatory_status: 'licensed_tier1',
      financial_statements: 'audited',
      operating_history_years: 5,
      default_or_freeze_36m: false,
    },
    q3('Meridian on-chain reserve dashboard snapshot, 2026-08'),
  ),
  document(
    cobaltbay,
    R1,
    {
      collateral_coverage_ratio: 1.3,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 25,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 1,
      duration_gap_days: 20,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 6,
      default_or_freeze_36m: false,
    },
    q3('Cobaltbay earn product disclosure, 2026-08', 'analyst.demo.b'),
  ),
  document(
    fernhollow,
    R1,
    {
      collateral_coverage_ratio: 1.2,
      proof_of_reserves: 'third_party_annual',
      rehypothecation: 'limited',
      custody_model: 'single_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 25,
      yield_source_disclosure: 'general',
      benchmark_rate_pct: 4.5,
      redemption_notice_days: 7,
      duration_gap_days: 30,
      regulatory_status: 'unregistered',
      financial_statements: 'reviewed',
      operating_history_years: 3,
      default_or_freeze_36m: false,
    },
    q3('Fernhollow vault strategy page and attestation letter, 2026-08'),
  ),
  document(
    driftwood,
    R1,
    {
      collateral_coverage_ratio: 1,
      proof_of_reserves: 'self_attested',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'single_custodian',
      security_incidents_36m: 'client_loss_under_1pct',
      largest_counterparty_exposure_pct: 60,
      yield_source_disclosure: 'general',
      benchmark_rate_pct: 4.5,
      redemption_notice_days: 90,
      duration_gap_days: 150,
      regulatory_status: 'registered',
      financial_statements: 'unaudited',
      operating_history_years: 1.5,
      default_or_freeze_36m: false,
    },
    q3('Driftwood lending terms and incident report, 2026-08', 'analyst.demo.b'),
  ),
  document(
    pinecrest,
    R1,
    {
      collateral_coverage_ratio: 1.2,
      proof_of_reserves: 'third_party_annual',
      rehypothecation: 'limited',
      custody_model: 'single_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 30,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 7,
      regulatory_status: 'registered',
      financial_statements: 'reviewed',
      operating_history_years: 2,
      default_or_freeze_36m: false,
    },
    q3('Pinecrest treasury-backed token reserve letter, 2026-08'),
  ),
];

// ---- round 2: evaluated 2026-10-31, four providers re-scored on new evidence ----

const R2 = '2026-10-31';
const oct = (source: string, by = 'analyst.demo.a') => evidence('2026-10-15', source, by, '2026-10-27T14:30:00Z');

const round2: InputsDocument[] = [
  // Monthly liability proofs and a higher coverage ratio: MEDIUM to LOW.
  document(
    bluefjord,
    R2,
    {
      collateral_coverage_ratio: 1.7,
      proof_of_reserves: 'merkle_liabilities_monthly',
      rehypothecation: 'prohibited',
      custody_model: 'multi_institution_multisig',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 18,
      yield_source_disclosure: 'position_level_monthly',
      benchmark_rate_pct: 4,
      redemption_notice_days: 7,
      duration_gap_days: 30,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 5,
      default_or_freeze_36m: false,
    },
    oct('Bluefjord custody migration notice and October reserve proof'),
  ),
  // A larger single counterparty: the score falls, the band holds.
  document(
    larkspur,
    R2,
    {
      collateral_coverage_ratio: 1.3,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'limited',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 38,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 30,
      duration_gap_days: 60,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 6,
      default_or_freeze_36m: false,
    },
    oct('Larkspur note programme investor report, 2026-10', 'analyst.demo.b'),
  ),
  // Asset coverage below 1.00: HC-02 binds, ELEVATED to HIGH.
  document(
    redwater,
    R2,
    {
      collateral_coverage_ratio: 0.97,
      proof_of_reserves: 'third_party_annual',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'single_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 35,
      yield_source_disclosure: 'general',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 30,
      duration_gap_days: 90,
      regulatory_status: 'registered',
      financial_statements: 'audited',
      operating_history_years: 4,
      default_or_freeze_36m: false,
    },
    oct('Redwater preferred dividend coverage statement, 2026-10'),
  ),
  // Position-level reporting and a shorter duration gap: the score rises, the band holds.
  document(
    cobaltbay,
    R2,
    {
      collateral_coverage_ratio: 1.3,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'permitted_with_consent',
      custody_model: 'qualified_custodian',
      security_incidents_36m: 'no_client_loss',
      largest_counterparty_exposure_pct: 25,
      yield_source_disclosure: 'position_level_monthly',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 1,
      duration_gap_days: 10,
      regulatory_status: 'licensed_tier2',
      financial_statements: 'audited',
      operating_history_years: 6,
      default_or_freeze_36m: false,
    },
    oct('Cobaltbay earn product disclosure, 2026-10', 'analyst.demo.b'),
  ),
];

// ---- round 3: evaluated 2026-11-10, the provider withdrawn on 2026-11-05 reinstated on new evidence ----

const R3 = '2026-11-10';

const round3: InputsDocument[] = [
  // The reserve letter renewed and the operating history a year longer: reinstated, its band as before.
  document(
    pinecrest,
    R3,
    {
      collateral_coverage_ratio: 1.2,
      proof_of_reserves: 'third_party_quarterly',
      rehypothecation: 'limited',
      custody_model: 'single_custodian',
      security_incidents_36m: 'none',
      largest_counterparty_exposure_pct: 30,
      yield_source_disclosure: 'strategy_level',
      benchmark_rate_pct: 4.25,
      redemption_notice_days: 7,
      regulatory_status: 'registered',
      financial_statements: 'reviewed',
      operating_history_years: 2,
      default_or_freeze_36m: false,
    },
    evidence('2026-11-06', 'Pinecrest renewed reserve attestation, 2026-11', 'analyst.demo.b', '2026-11-10T11:00:00Z'),
  ),
];

/** A scoring round: its documents are published in order, at `published_at` (a fixed time, so a re-seed is stable). */
export interface DemoRound {
  evaluation_date: string;
  published_at: string;
  documents: readonly InputsDocument[];
}

export const DEMO_ROUNDS: readonly DemoRound[] = [
  { evaluation_date: R1, published_at: '2026-10-01T08:00:00.000Z', documents: round1 },
  { evaluation_date: R2, published_at: '2026-11-02T08:00:00.000Z', documents: round2 },
  { evaluation_date: R3, published_at: '2026-11-12T08:00:00.000Z', documents: round3 },
];

/** Who proposes and who approves the demo's analyst actions (two people: maker-checker), and who withdraws. */
export const DEMO_ANALYST = 'analyst.demo.a';
export const DEMO_APPROVER = 'approver.demo';

/**
 * What the risk team did between the second and the third round, each at a fixed time: an outlook turned NEGATIVE
 * after a downgrade, a watch placed on a provider whose score fell, and a provider withdrawn (and reinstated by the
 * third round). Each analyst action is proposed at `proposed_at` and approved at `approved_at`.
 */
export const DEMO_RATING_ACTIONS = {
  outlook: {
    provider_id: redwater.id,
    outlook: 'NEGATIVE',
    rationale: 'Asset coverage fell below 1.00 in October; dividend cover is thin and may weaken further.',
    proposed_at: '2026-11-03T09:00:00.000Z',
    approved_at: '2026-11-03T15:00:00.000Z',
  },
  watch: {
    provider_id: larkspur.id,
    direction: 'NEGATIVE',
    rationale: 'The largest counterparty rose to 38% of the book; reviewing concentration before the next report.',
    proposed_at: '2026-11-04T09:00:00.000Z',
    approved_at: '2026-11-04T15:00:00.000Z',
  },
  withdrawal: {
    provider_id: pinecrest.id,
    reason: 'Reserve attestation lapsed; withdrawn until a renewed attestation is received.',
    at: '2026-11-05T10:00:00.000Z',
  },
} as const;
