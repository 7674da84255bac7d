// `@svc/api/bench`: what a bulk data-set builder (apps/api/bench/dataset.ts) needs beyond the main entry, so that
// the rows it writes in batches are the rows the verbs write (see docs/decisions/0022-bench-dataset.md): the row
// builders the verbs call, the store reads and writes a batch of publications makes, the public snapshot the
// service answers from, and the list cursor. Nothing in the service imports this module.

export { encodeCursor } from './http/pagination.js';
export { newKeyRow } from './services/access.js';
export { PublicSnapshot } from './services/public-snapshot.js';
export {
  changeOf,
  changeRowOf,
  historyRowOf,
  indicatorRowOf,
  type PublishedFacts,
  publishedEventData,
} from './services/publishing.js';
export { deliveryRowOf, eventRowOf } from './services/webhooks/events.js';
export { increment, PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from './store/repositories/meta.js';
export { providerRowOf } from './store/repositories/providers.js';
export { subscribedEndpoints } from './store/repositories/webhooks.js';
