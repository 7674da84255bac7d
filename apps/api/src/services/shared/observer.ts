import type { AttemptResult } from '../webhooks/dispatcher.js';

/** Where the store failed: a request answered 503, the readiness probe, or a scrape of the metrics. */
export type StoreErrorKind = 'request' | 'readiness' | 'scrape';

/**
 * What the process's observers are told (decision 0031): each answered request, each time the store failed, each
 * webhook attempt whose outcome was written. Defined here, with the services that accept it (`Services.metrics`);
 * the Prometheus metrics (metrics/metrics.ts) implement it, so that nothing in services/ imports metrics/.
 */
export interface Observer {
  /** One answered request; `route` is a template or `unmatched`. */
  observeRequest(method: string | undefined, route: string, status: number, seconds: number): void;
  storeError(kind: StoreErrorKind): void;
  webhookAttempt(result: AttemptResult): void;
  /** Observes nothing more (the process's observer is closed with its services). */
  close(): void;
}
