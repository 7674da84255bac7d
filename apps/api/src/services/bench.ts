// `@svc/api/bench`: what a bulk data-set builder (apps/api/bench/dataset.ts) needs beyond the main entry, so that
// the rows it writes in batches are the rows the verbs write (see docs/decisions/0023-bench-dataset.md): the row
// builders the verbs call, the store reads and writes a batch of publications makes, the public snapshot the
// service answers from, and the list cursor. It is part of the service layer (the one way to the repositories);
// nothing in the service imports it.

export { appendAudit } from '../store/repositories/audit.js';
export { increment, PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from '../store/repositories/meta.js';
export { providerRowOf } from '../store/repositories/providers.js';
export { RATING_ACTION_SEQ } from '../store/repositories/rating-actions.js';
export { subscribedEndpoints } from '../store/repositories/webhooks.js';
export { newKeyRow } from './access.js';
export { encodeCursor } from './paging.js';
export { PublicSnapshot } from './public-snapshot.js';
export {
  changeOf,
  changeRowOf,
  historyRowOf,
  indicatorRowOf,
  type PublishedFacts,
  publishedEventData,
} from './publishing.js';
export { publicationActionRow } from './rating-actions.js';
export { deliveryRowOf, eventRowOf } from './webhooks/events.js';
