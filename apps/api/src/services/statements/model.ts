import type { RatingActionForm } from '../rating-actions/rating-action-form.js';

/** What a statement states: a publication, a withdrawal, a rating action, and the chain fields. */

/** What a publication states: the figures as the public form has them, and the hashes that pin the package. */
export interface PublicationFacts {
  risk_indicator_id: string;
  provider_id: string;
  provider_name: string;
  final_score: number;
  risk_band: string;
  confidence: number;
  framework_version: string;
  framework_sha256: string;
  inputs_sha256: string;
  result_sha256: string;
  /** SHA-256 of the package's canonical bytes: exactly what GET /api/v1/computation/{id} answers. */
  package_sha256: string;
  evaluation_date: string;
  published_at: string;
}

/** What a withdrawal states. */
export interface WithdrawalFacts {
  risk_indicator_id: string;
  provider_id: string;
  provider_name: string;
  framework_version: string;
  previous_score: number;
  previous_band: string;
  reason: string | null;
  withdrawn_at: string;
}

/** What a rating action states: its provider and indicator, and the action as it took effect (decision 0030). */
export interface RatingActionFacts {
  provider_id: string;
  risk_indicator_id: string;
  action: RatingActionForm;
}

/** What a statement states, before its chain fields. */
export type StatementFacts =
  | ({ type: 'publication' } & PublicationFacts)
  | ({ type: 'withdrawal' } & WithdrawalFacts)
  | ({ type: 'rating_action' } & RatingActionFacts);

export type Statement = StatementFacts & StatementChain;

interface StatementChain {
  /** The statement_sha256 of the provider's previous statement; null for its first. */
  prev_statement_sha256: string | null;
  /** The audit trail's entry written with it: a trail cut short is visible to anyone holding a later statement. */
  audit_head: { seq: number; hash: string };
  signed_at: string;
}

/** A statement as served: the statement, its signature (base64url, Ed25519 over its RFC 8785 bytes) and the key. */
export interface SignedStatement {
  statement: Statement;
  signature: string;
  kid: string;
  alg: 'EdDSA';
  statement_sha256: string;
}
