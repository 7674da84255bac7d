// The store's own reads and writes that a bulk writer of the verbs' rows needs besides the verbs' row builders (the
// bench's large data set, docs/decisions/0023-bench-dataset.md): the counters a batch of publications moves, the
// provider row, the endpoints subscribed to an event. Reached only through the bench's entry, `@svc/api/bench`
// (src/bench.ts): a dependency rule (.dependency-cruiser.cjs, `bulk-for-the-bench-only`) keeps the service's own code
// on its verbs.

export { increment, PUBLICATION_SEQ, PUBLICATION_VERSION, readMeta } from './repositories/meta.js';
export { providerRowOf } from './repositories/providers.js';
export { RATING_ACTION_SEQ } from './repositories/rating-actions.js';
export { subscribedEndpoints } from './repositories/webhooks.js';
