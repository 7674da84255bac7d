import type { RatingAction } from '@svc/contracts';
import type { ComputationPackage, Framework, InputsDocument, RiskIndicator } from '@svc/methodology';

/** What a publication is and what it comes to: the outcome, the change, the role it needs. */

export type ChangeType = 'NEW' | 'SCORE_CHANGE' | 'BAND_CHANGE' | 'WITHDRAWN';

export type PublishOutcome =
  | {
      status: 'published';
      indicator: RiskIndicator;
      change: ChangeType | null;
      previousBand: string | null;
      /** The score of the indicator it replaced; null for a first publication (or after a withdrawal). */
      previousScore: number | null;
      /** The rating action it is (NEW, UPGRADE, DOWNGRADE, AFFIRM or REINSTATE), signed; null in a dry run. */
      ratingAction: RatingAction | null;
    }
  | { status: 'unchanged'; indicator: RiskIndicator }
  | { status: 'refused'; indicator: RiskIndicator; reason: string };

export interface Publication {
  /** A validated approved-inputs document. */
  document: InputsDocument;
  framework: Framework;
  /** When the inputs were last approved: the indicator's score_verified_at. */
  approvedAt: string;
  /**
   * The re-scoring that follows a framework release, part of the chief risk officer's act (that role is checked);
   * any other publication needs the approver role.
   */
  releaseRescore?: boolean | undefined;
}

/** The role a publication needs (see Publication.releaseRescore). */
export function publishingRole(p: { releaseRescore?: boolean | undefined }): 'approver' | 'chief_risk_officer' {
  return p.releaseRescore ? 'chief_risk_officer' : 'approver';
}

/** A publication scored, checked and serialised, ready to be written (preparePublication). */
export interface PreparedPublication {
  publication: Publication;
  indicator: RiskIndicator;
  pkg: ComputationPackage;
  packageText: string;
  /** The path to the next band, as stored (JSON text). */
  nextBand: string;
}
