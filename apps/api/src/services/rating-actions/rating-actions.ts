/**
 * Rating actions (decision 0030; DESIGN-record section 4). A publication or a withdrawal is an action, derived in
 * its own transaction (NEW, UPGRADE, DOWNGRADE, AFFIRM, REINSTATE, WITHDRAW); an analyst proposes a watch, its
 * removal or a new outlook, and another person with the approver role makes it effective. Every effective action is
 * numbered, signed as a statement in its provider's chain and sent as `rating_action.created`; the outlook and watch
 * in force live on the provider's row, so every indicator form reads them at no cost.
 */

export {
  approveRatingActions,
  listRatingActions,
  proposeOutlook,
  proposeWatch,
  proposeWatchRemoval,
} from './analyst.js';
export {
  completeAction,
  type PublicationMaker,
  type PublishedAction,
  publicationActionRow,
  publicationMaker,
  recordPublicationAction,
  recordWithdrawalAction,
} from './derived.js';
export type { Proposal, RatingActionRecord } from './model.js';
export type { RatingActionForm } from './rating-action-form.js';
export { ratingActionStatement, ratingActionsPage, watchesInForce } from './reading.js';
