import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Deprecations, deprecationsIn } from '@svc/contracts';
import type { Framework } from '@svc/methodology';
import pino, { type DestinationStream, type Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { answerClientError } from './http/client-error.js';
import { withPublicScoresFastPath } from './http/fast-path.js';
import { withRequestMetrics } from './http/request-metrics.js';
import { withScoreDetailFastPath } from './http/score-fast-path.js';
import { type MetricsListener, startMetricsListener } from './metrics/listener.js';
import { Metrics } from './metrics/metrics.js';
import { KeyAuthenticator } from './services/access/access.js';
import { FrameworkReleases } from './services/frameworks/framework-releases.js';
import { backfillNextBand } from './services/publishing/packaged.js';
import type { Services } from './services/services.js';
import { PublicSnapshot } from './services/shared/public-snapshot.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter, redact } from './services/shared/rate-limit.js';
import { loadMasterKey, secretBox } from './services/shared/secrets.js';
import { signPastPublications } from './services/statements/statements.js';
import { type DispatcherOptions, WebhookDispatcher } from './services/webhooks/dispatcher.js';
import { migrate } from './store/migrate.js';
import { openStore, type Store, type StoreLocation } from './store/store.js';

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  /** Overrides where the store is (tests: a PostgreSQL schema of their own). */
  storeLocation?: StoreLocation;
  /** Run a webhook dispatcher in this process (default: SVC_WEBHOOK_DISPATCH). */
  dispatch?: boolean;
  /** Every framework this process knows (default: the engine's built-in ones; tests add a test framework). */
  frameworks?: readonly Framework[];
  /** Routes deprecated besides the contract's (tests); see AppOptions. */
  deprecations?: Deprecations;
}

/**
 * Logs to stdout unless `destination` says otherwise (a CLI command whose stdout is its result logs to stderr). Stdout
 * is written synchronously: the service logs events (start-up warnings, failures, stops), never each request, so the
 * cost is nil, a line is never lost to a crash, and the lines keep their order with what `svc serve` prints itself.
 */
export function createLogger(
  config: Pick<Config, 'logLevel'>,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'svc-api' },
      redact: {
        paths: ['key', 'api_key', 'secret', 'webhook_secret', '*.key', '*.secret', 'headers'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** Opens the store (and migrates it), the limiter and the caches: everything a request handler uses. */
export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  return (await openServices(config, options)).services;
}

/**
 * The services, and the Prometheus metrics that observe them when metrics are on: the services know them only as
 * their observer (services/shared/observer.ts); the server also serves their exposition on the metrics listener.
 */
async function openServices(
  config: Config,
  options: ServiceOptions,
): Promise<{ services: Services; metrics: Metrics | null }> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const store = openStore(options.storeLocation ?? config.store, { timeoutMs: config.storeTimeoutMs });
  const frameworks = new FrameworkReleases(store, clock, options.frameworks ? { known: options.frameworks } : {});
  try {
    await migrate(store);
    await backfillNextBand(store, logger, { frameworks });
    const past = await signPastPublications(store, {
      configured: config.signingKey,
      box: () => secretBox(loadMasterKey(config.masterKey, config.dataDir)),
    });
    if ('error' in past) logger.warn({ reason: past.error }, 'could not sign the statements of earlier publications');
    else if (past.signed > 0) logger.info(past, 'signed the statements of earlier publications');
    // Read once at the start, so the framework in force is known even if the store is down at the first request.
    await frameworks.list();
  } catch (error) {
    await store.close();
    throw error;
  }
  const limiter = createLimiter(config, clock, logger);
  if (limiter instanceof RedisRateLimiter) {
    // Limit through Redis from the first request when it answers; start degraded, not failed, when it does not.
    await limiter.ready(1500).catch(() => undefined);
  }
  // Only with metrics on is anything wrapped or counted (decision 0031).
  const metrics = config.metrics ? new Metrics({ store, clock, logger, storeTimeoutMs: config.storeTimeoutMs }) : null;
  const webhookPolicy = { allowLoopback: config.webhooks.allowLoopback };
  const dispatcher =
    (options.dispatch ?? config.webhooks.dispatch)
      ? createDispatcher(config, store, logger, metrics ? (result) => metrics.webhookAttempt(result) : undefined)
      : null;
  const services: Services = {
    store,
    clock,
    limiter: metrics ? metrics.countDecisions(limiter) : limiter,
    auth: new KeyAuthenticator(store, clock),
    snapshot: new PublicSnapshot(store, clock),
    frameworks,
    logger,
    startedAt: clock.now(),
    siteUrl: config.siteUrl,
    mcpEnabled: config.mcpEnabled,
    webhookPolicy,
    freshness: config.freshness,
    dispatcher,
    storeTimeoutMs: config.storeTimeoutMs,
    metrics,
  };
  return { services, metrics };
}

/** A webhook dispatcher over the store, with the configured schedule, timeout and URL rules. */
export function createDispatcher(
  config: Config,
  store: Store,
  logger: Logger,
  onAttempt?: DispatcherOptions['onAttempt'],
): WebhookDispatcher {
  return new WebhookDispatcher({
    store,
    box: secretBox(loadMasterKey(config.masterKey, config.dataDir)),
    logger,
    policy: { allowLoopback: config.webhooks.allowLoopback },
    schedule: config.webhooks.retrySchedule,
    timeoutMs: config.webhooks.timeoutMs,
    leaseMarginMs: config.webhooks.leaseMarginMs,
    pollMs: config.webhooks.pollMs,
    concurrency: config.webhooks.concurrency,
    ...(onAttempt ? { onAttempt } : {}),
  });
}

function createLimiter(config: Config, clock: Clock, logger: Logger): RateLimiter {
  if (!config.redisUrl) return new MemoryRateLimiter(clock);
  const url = config.redisUrl;
  return new RedisRateLimiter({
    url,
    instances: config.instances,
    clock,
    onStateChange: (state, error) => {
      if (state === 'degraded') {
        logger.warn(
          { redis: redact(url), err: error?.message },
          'rate-limit store unreachable: limiting in process at limit / SVC_INSTANCES',
        );
      } else logger.info({ redis: redact(url) }, 'rate-limit store reachable again');
    },
  });
}

export interface RunningServer {
  url: string;
  server: Server;
  /** Where the metrics listener took its port (`http://host:port`, serving /metrics); null when metrics are off. */
  metricsUrl: string | null;
  services: Services;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes the store. */
  close(): Promise<void>;
}

export async function startServer(config: Config, options: ServiceOptions = {}): Promise<RunningServer> {
  // A deprecation on short notice is refused before anything opens (buildApp would refuse it too).
  deprecationsIn(options.deprecations);
  const { services, metrics } = await openServices(config, options);
  const app = buildApp(services, {
    trustProxy: config.trustProxy,
    bodyTimeoutMs: config.bodyTimeoutMs,
    ...(options.deprecations ? { deprecations: options.deprecations } : {}),
  });
  const listener = withScoreDetailFastPath(app, services, withPublicScoresFastPath(app, services));
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(metrics ? withRequestMetrics(listener, metrics) : listener);
    // A listen error (port in use, no permission) rejects; once listening, errors belong to the connections.
    s.once('error', reject);
    s.listen(config.port, config.host, () => {
      s.off('error', reject);
      resolve(s);
    });
  }).catch(async (error) => {
    await closeServices(services);
    throw error;
  });
  let metricsListener: MetricsListener | null = null;
  if (metrics && config.metrics) {
    try {
      metricsListener = await startMetricsListener(metrics, config.metrics, services.logger);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServices(services);
      throw error;
    }
  }
  services.dispatcher?.start();
  server.keepAliveTimeout = 5_000;
  // Headers must arrive within 10 s; a body within the body timeout (the JSON reader answers 408 problem+json). The
  // request timeout is Node's last resort for a request that neither the reader nor a route ever finishes reading.
  server.headersTimeout = 10_000;
  server.requestTimeout = Math.max(30_000, config.bodyTimeoutMs + 5_000);
  server.on('clientError', answerClientError(services.siteUrl));
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
      await Promise.race([drained, grace]);
      server.closeAllConnections();
      await metricsListener?.close();
      await closeServices(services);
    })();
    return closing;
  };
  return { url, server, metricsUrl: metricsListener?.url ?? null, services, close };
}

export async function closeServices(services: Services): Promise<void> {
  // The attempts in flight finish (each within the webhook timeout) before the store closes.
  await services.dispatcher?.stop();
  await services.limiter.close();
  await services.store.close();
  services.metrics?.close();
}
