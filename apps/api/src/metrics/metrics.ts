import { PUBLIC_LIMITS } from '@svc/contracts';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { type OperationalFigures, readOperationalFigures } from '../services/operations/operations.js';
import type { Observer, StoreErrorKind } from '../services/shared/observer.js';
import type { LimitDecision, RateLimiter } from '../services/shared/rate-limit.js';
import type { AttemptResult } from '../services/webhooks/dispatcher.js';
import type { Store } from '../store/store.js';

/**
 * The process's Prometheus metrics (decision 0031), in a registry of its own: never prom-client's global one, so
 * several servers in one process (the tests) keep apart. Every label value comes from a fixed set (a route
 * template, a method, a status code, a limit name, an outcome): never a raw path, an id, a key or an address.
 */

/** Methods kept as they are in the `method` label; any other is `other`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const PUBLIC_LIMIT_NAMES: ReadonlySet<string> = new Set(Object.keys(PUBLIC_LIMITS));
const LIMITER_STATES = ['in_process', 'ok', 'degraded'] as const;
/** From the fast path's tenth of a millisecond to the 10 s a slow page could take. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricsOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How long a scrape waits for the store before counting a store error. */
  storeTimeoutMs: number;
}

export class Metrics implements Observer {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private readonly limitDecisions: Counter<'limit' | 'decision'>;
  private readonly storeErrors: Counter<'kind'>;
  private readonly deliveries: Counter<'outcome'>;
  private limiter: RateLimiter | null = null;
  /** The store read shared by the gauges of one scrape (prom-client collects them all at once). */
  private reading: Promise<OperationalFigures | null> | null = null;

  constructor(private readonly options: MetricsOptions) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by method, route template (`unmatched` when no route matched) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from a request reaching the server to its answer being sent, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.limitDecisions = new Counter({
      name: 'svc_rate_limit_decisions_total',
      help: 'Rate-limit decisions: `key` for keyed requests, else the public limit spent; allowed or refused.',
      labelNames: ['limit', 'decision'],
      registers,
    });
    this.storeErrors = new Counter({
      name: 'svc_store_errors_total',
      help: 'Times the store was unavailable: a request answered 503 (request), the readiness probe (readiness), a scrape (scrape).',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of ['request', 'readiness', 'scrape'] as const) this.storeErrors.inc({ kind }, 0);
    this.deliveries = new Counter({
      name: 'svc_webhook_deliveries_total',
      help: "Webhook attempts made by this process's dispatcher, by outcome: delivered, retry, failed (retries spent), gone (410).",
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['delivered', 'retry', 'failed', 'gone'] as const) this.deliveries.inc({ outcome }, 0);

    const metrics = this;
    new Gauge({
      name: 'svc_rate_limit_store_state',
      help: 'The rate-limit store: 1 for the state it is in (in_process, ok: Redis answers, degraded: Redis is away and each instance limits at limit / SVC_INSTANCES), 0 for the others.',
      labelNames: ['state'],
      registers,
      collect() {
        const state = metrics.limiter?.state() ?? 'in_process';
        for (const s of LIMITER_STATES) this.set({ state: s }, s === state ? 1 : 0);
      },
    });
    new Gauge({
      name: 'svc_webhook_queue_depth',
      help: 'Webhook deliveries pending in the store (due now or scheduled for a retry), read at scrape time.',
      registers,
      async collect() {
        const figures = await metrics.figures();
        if (figures) this.set(figures.pendingDeliveries);
      },
    });
    new Gauge({
      name: 'svc_webhook_oldest_due_age_seconds',
      help: 'How late the oldest due pending webhook delivery is: now minus its next_attempt_at (0 when none is due).',
      registers,
      async collect() {
        const figures = await metrics.figures();
        if (!figures) return;
        const now = metrics.options.clock.now().getTime();
        this.set(figures.oldestDueAt === null ? 0 : Math.max(0, (now - Date.parse(figures.oldestDueAt)) / 1000));
      },
    });
    new Counter({
      name: 'svc_publications_total',
      help: "Publications recorded in the store by any process (the store's publication sequence), read at scrape time.",
      registers,
      async collect() {
        const figures = await metrics.figures();
        if (!figures) return;
        this.reset();
        this.inc(figures.publications);
      },
    });
    new Gauge({
      name: 'svc_providers_rated',
      help: 'Providers with a published Risk Indicator in force, read at scrape time.',
      registers,
      async collect() {
        const figures = await metrics.figures();
        if (figures) this.set(figures.providersRated);
      },
    });
  }

  /** The Prometheus text exposition of every series. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** One answered request; `route` is a template or `unmatched`. */
  observeRequest(method: string | undefined, route: string, status: number, seconds: number): void {
    const labels = { method: method && METHODS.has(method) ? method : 'other', route, status: String(status) };
    this.requests.inc(labels);
    this.durations.observe(labels, seconds);
  }

  storeError(kind: StoreErrorKind): void {
    this.storeErrors.inc({ kind });
  }

  webhookAttempt(result: AttemptResult): void {
    this.deliveries.inc({ outcome: result });
  }

  /** The limiter, counting each decision by limit (never by bucket: that holds a key id or an address). */
  countDecisions(limiter: RateLimiter): RateLimiter {
    this.limiter = limiter;
    const decisions = this.limitDecisions;
    return {
      async consume(bucket: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
        const decision = await limiter.consume(bucket, limit, windowSeconds);
        decisions.inc({ limit: limitOf(bucket), decision: decision.allowed ? 'allowed' : 'refused' });
        return decision;
      },
      state: () => limiter.state(),
      close: () => limiter.close(),
    };
  }

  /** Forgets every series (the process's own collectors keep running; one Metrics per process is the rule). */
  close(): void {
    this.registry.clear();
  }

  private figures(): Promise<OperationalFigures | null> {
    this.reading ??= this.readFigures().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  /** The store's figures, or null (a store error counted, the gauges left as they were) when it does not answer. */
  private async readFigures(): Promise<OperationalFigures | null> {
    const { store, clock, storeTimeoutMs, logger } = this.options;
    try {
      return await readOperationalFigures(store, clock, storeTimeoutMs);
    } catch (error) {
      this.storeError('scrape');
      logger.warn({ err: (error as Error).message }, 'metrics could not read the store');
      return null;
    }
  }
}

/** `key:<id>` is `key`; `ip:<limit>:<address>` is the limit's name (a name this code does not know is `other`). */
function limitOf(bucket: string): string {
  if (bucket.startsWith('key:')) return 'key';
  if (bucket.startsWith('ip:')) {
    const name = bucket.slice(3, bucket.indexOf(':', 3));
    if (PUBLIC_LIMIT_NAMES.has(name)) return name;
  }
  return 'other';
}
