import { type Logger, pino } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import type { Store } from '../store/store.js';
import type { KeyAuthenticator } from './access/access.js';
import type { Actor, ServiceContext } from './context.js';
import { FrameworkReleases } from './frameworks/framework-releases.js';
import { DEFAULT_FRESHNESS_POLICY, type FreshnessPolicy } from './shared/freshness-policy.js';
import type { Observer } from './shared/observer.js';
import { PublicSnapshot } from './shared/public-snapshot.js';
import type { RateLimiter } from './shared/rate-limit.js';
import type { SecretBox } from './shared/secrets.js';
import type { Signer } from './shared/signer.js';
import type { UrlPolicy } from './shared/webhook-url.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

/** What a request handler may use; built once per process by the server. */
export interface Services {
  store: Store;
  clock: Clock;
  limiter: RateLimiter;
  auth: KeyAuthenticator;
  snapshot: PublicSnapshot;
  /** The frameworks this process knows and the releases recorded, read at most once a second. */
  frameworks: FrameworkReleases;
  logger: Logger;
  startedAt: Date;
  siteUrl: string | null;
  mcpEnabled: boolean;
  /** The URL rules webhook endpoints are registered under. */
  webhookPolicy: UrlPolicy;
  /** The freshness policy (SVC_MAX_EVALUATION_AGE_DAYS, SVC_REVIEW_CADENCE_DAYS…; decision 0053). */
  freshness: FreshnessPolicy;
  /** This process's webhook dispatcher, when it runs one (woken when a request queues a delivery). */
  dispatcher: WebhookDispatcher | null;
  /** How long a request waits for the store before it counts as unavailable (SVC_STORE_TIMEOUT_MS). */
  storeTimeoutMs: number;
  /** What observes the process (the Prometheus metrics, when SVC_METRICS_PORT is set); null: nothing is counted. */
  metrics: Observer | null;
}

/** The context a verb runs in for one request or one tool call, acting for `actor`. */
export function contextFor(services: Services, actor: Actor): ServiceContext {
  const { dispatcher } = services;
  return {
    store: services.store,
    clock: services.clock,
    logger: services.logger,
    policy: services.webhookPolicy,
    freshness: services.freshness,
    actor,
    snapshot: services.snapshot,
    frameworks: services.frameworks,
    wake: dispatcher ? () => dispatcher.wake() : undefined,
  };
}

export interface StandaloneOptions {
  actor: Actor;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  box?: SecretBox | undefined;
  /** The key statements are signed with: needed by the verbs that publish or withdraw. */
  signer?: Signer | undefined;
  policy?: UrlPolicy | undefined;
  /** The freshness policy (the configuration's); by default every default (decision 0053). */
  freshness?: FreshnessPolicy | undefined;
  /** The frameworks known and recorded; by default the engine's, read from the store when first asked. */
  frameworks?: FrameworkReleases | undefined;
}

/**
 * The context of verbs run outside the server (a CLI command, a seed, a bench): over a store already open, with
 * its own public snapshot, silent unless given a logger, refusing loopback webhook URLs unless given a policy.
 */
export function standaloneContext(store: Store, options: StandaloneOptions): ServiceContext {
  const clock = options.clock ?? systemClock;
  return {
    store,
    clock,
    logger: options.logger ?? pino({ level: 'silent' }),
    policy: options.policy ?? { allowLoopback: false },
    freshness: options.freshness ?? DEFAULT_FRESHNESS_POLICY,
    actor: options.actor,
    snapshot: new PublicSnapshot(store, clock),
    frameworks: options.frameworks ?? new FrameworkReleases(store, clock),
    box: options.box,
    signer: options.signer,
  };
}
