// `@svc/api/bench`: what a bulk data-set builder (apps/api/bench/dataset.ts) and the audit bench need beyond the
// main entry, so that the rows they write in batches are the rows the verbs write (docs/decisions/0023-bench-dataset.md):
// the row builders the verbs call and the audit trail's append as a verb makes it (from the services), the public
// snapshot the service answers from and the list cursor, and the few store reads and writes a batch of publications
// makes (store/bulk.ts). Outside the services, like the main entry; nothing in the service imports it (a dependency
// rule, `bench-entry-unused`).

export { newKeyRow } from './services/access/access.js';
export { recordAudit } from './services/operators/audit.js';
export {
  changeOf,
  changeRowOf,
  historyRowOf,
  indicatorRowOf,
  type PublishedFacts,
  publishedEventData,
} from './services/publishing/publishing.js';
export { publicationActionRow } from './services/rating-actions/rating-actions.js';
export { encodeCursor } from './services/shared/paging.js';
export { PublicSnapshot } from './services/shared/public-snapshot.js';
export { deliveryRowOf, eventRowOf } from './services/webhooks/events.js';
export {
  increment,
  PUBLICATION_SEQ,
  PUBLICATION_VERSION,
  providerRowOf,
  RATING_ACTION_SEQ,
  readMeta,
  subscribedEndpoints,
} from './store/bulk.js';
