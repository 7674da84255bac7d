/**
 * Signed statements (decision 0026): every publication and withdrawal is stated, signed and chained per provider in
 * the transaction that makes it, naming the audit entry written with it. Statements are never rewritten.
 */
export { backfillStatements, ensureStatements, signPastPublications } from './backfill.js';
export {
  packageSha256,
  prepareSigning,
  prepareSigningAll,
  signActionStatement,
  signedOf,
  signStatement,
} from './chain.js';
export type {
  PublicationFacts,
  RatingActionFacts,
  SignedStatement,
  Statement,
  StatementFacts,
  WithdrawalFacts,
} from './model.js';
export {
  type CheckedStatement,
  checkedPublicationStatement,
  publicationStatement,
  statementByHash,
  statingRow,
} from './reading.js';
