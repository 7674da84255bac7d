// The computation package's format: the record an auditor replays. The shape
// lives apart from the code that builds and canonicalises it (build.ts,
// canonical-package.ts) so that both can name it without importing each other.
import type { RiskIndicatorOf } from '../indicator.js';
import type { InputsDocument, InputValue } from '../inputs/document.js';

export const PACKAGE_FORMAT = 'svc.computation-package/1';

export interface CriterionTrace {
  criterion_id: string;
  input_key: string;
  input_value: InputValue | null;
  derived: { name: string; value: string } | null;
  missing: boolean;
  as_of: string | null;
  age_days: number | null;
  freshness: string;
  points: string;
  weight: number;
  contribution: string;
}

export interface CapTrace {
  cap_id: string;
  label: string;
  condition: string;
  operands: { operand: string; value: InputValue | string | number | null }[];
  fired: boolean;
  cap: string;
  binding: boolean;
  point_impact: string;
}

/** Methodology section 10: everything an auditor needs to reproduce a Risk Indicator. */
export interface ComputationPackage {
  package_format: typeof PACKAGE_FORMAT;
  engine: { name: string; version: string };
  /** The framework the package was computed under: its version and the SHA-256 of its canonical definition. */
  framework: { framework_version: string; version: string; sha256: string };
  inputs: InputsDocument;
  inputs_sha256: string;
  evaluation_date: string;
  risk_indicator_id: string;
  steps: {
    criteria: CriterionTrace[];
    uncapped: string;
    hard_caps: CapTrace[];
    capped: string;
    final_score: string;
    risk_band: string;
    next_band: string | null;
    points_to_next_band: string | null;
    confidence: string;
    publishable: boolean;
  };
  result: RiskIndicatorOf<string>;
  result_sha256: string;
}
