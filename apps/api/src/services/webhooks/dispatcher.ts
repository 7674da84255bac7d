import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../../clock.js';
import { appendAudit } from '../../store/repositories/audit.js';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDue,
  nextDue,
  recordAttempt,
  retireEndpoint,
} from '../../store/repositories/webhooks.js';
import { isStoreUnavailable, type Store } from '../../store/store.js';
import type { SecretBox } from '../shared/secrets.js';
import type { UrlPolicy } from '../shared/webhook-url.js';
import { parseRetryAfter, retryDelay } from './schedule.js';
import { WebhookSender } from './sender.js';
import { signatureHeaders } from './signing.js';

/** What became of one attempt, once written: delivered (2xx), retry (scheduled again), failed (retries spent), gone (410). */
export type AttemptResult = 'delivered' | 'retry' | 'failed' | 'gone';

export interface DispatcherOptions {
  store: Store;
  box: SecretBox;
  logger: Logger;
  policy: UrlPolicy;
  /** Delays before each retry, in milliseconds. */
  schedule: readonly number[];
  /** Per attempt: the receiver must answer within this. */
  timeoutMs: number;
  /** How often to look for due deliveries written by other processes. */
  pollMs: number;
  /** Attempts in flight at once. */
  concurrency: number;
  /** Added to twice the timeout to make a claim's lease: time to write the outcome (default 30 s). */
  leaseMarginMs?: number;
  clock?: Clock;
  random?: () => number;
  /** Told the result of each attempt whose outcome was written (the metrics count them). */
  onAttempt?: (result: AttemptResult) => void;
}

/**
 * Drains the webhook outbox: claims due deliveries with a lease (so several dispatchers, in several
 * processes, never start the same attempt), signs and sends each, and records the outcome: delivered
 * on 2xx; the endpoint disabled on 410; otherwise retried on the schedule with jitter, honouring
 * Retry-After, until the schedule is spent and the delivery is marked failed. Delivery is
 * at-least-once: a dispatcher that dies mid-attempt leaves its lease to expire, and the next attempt
 * goes out under the next number.
 */
export class WebhookDispatcher {
  readonly owner = `dispatcher_${randomBytes(6).toString('hex')}`;
  private readonly sender: WebhookSender;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(private readonly options: DispatcherOptions) {
    this.sender = new WebhookSender({ timeoutMs: options.timeoutMs, policy: options.policy });
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    // Long enough for the attempt (connect, send, answer) and the write of its outcome.
    this.leaseMs = options.timeoutMs * 2 + (options.leaseMarginMs ?? 30_000);
  }

  /** Runs until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks for due deliveries now rather than at the next poll (this process just wrote some). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
    this.sender.close();
  }

  /**
   * Sends everything due now and whatever falls due while it works, then returns how many attempts it
   * made. For `svc webhooks dispatch --once` and tests; retries scheduled later are left for later.
   */
  async drain(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const free = this.options.concurrency - this.inFlight.size;
      const batch = free > 0 ? await this.claim(free) : [];
      if (batch.length === 0 && this.inFlight.size === 0) break;
      attempts += batch.length;
      for (const delivery of batch) this.track(this.attempt(delivery));
      if (batch.length === 0 || this.inFlight.size >= this.options.concurrency) await Promise.race(this.inFlight);
    }
    return attempts;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let wait = this.options.pollMs;
      try {
        const free = this.options.concurrency - this.inFlight.size;
        const batch = free > 0 ? await this.claim(free) : [];
        for (const delivery of batch) this.track(this.attempt(delivery));
        if (batch.length > 0 && batch.length === free) continue;
        if (batch.length === 0 && this.inFlight.size === 0) {
          const due = await nextDue(this.options.store.db);
          if (due !== null) wait = Math.min(wait, Math.max(0, Date.parse(due) - this.clock.now().getTime()));
        }
      } catch (error) {
        this.report(error, 'webhook dispatcher could not read the outbox');
      }
      await this.pause(wait);
    }
  }

  private track(attempt: Promise<void>): void {
    const tracked = attempt.finally(() => {
      this.inFlight.delete(tracked);
      this.wake();
    });
    this.inFlight.add(tracked);
  }

  /** Waits for the poll interval, a wake-up, or an attempt finishing. */
  private pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        this.woken = false;
        done();
      };
    });
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now().getTime();
    return claimDue(this.options.store, {
      owner: this.owner,
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.leaseMs).toISOString(),
      limit,
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { box, store } = this.options;
    const started = this.clock.now();
    try {
      const previousInForce =
        delivery.previous_webhook_secret_enc !== null &&
        delivery.previous_secret_expires_at !== null &&
        delivery.previous_secret_expires_at > started.toISOString();
      const headers = signatureHeaders({
        eventId: delivery.event_id,
        body: delivery.body,
        attempt: delivery.attempts,
        timestamp: Math.floor(started.getTime() / 1000),
        secret: box.open(delivery.webhook_secret_enc),
        previousSecret: previousInForce ? box.open(delivery.previous_webhook_secret_enc as string) : null,
      });
      const result = await this.sender.send(delivery.url, delivery.body, headers);
      const finished = this.clock.now();
      const status = result.statusCode;
      const log = {
        delivery_id: delivery.id,
        attempt: delivery.attempts,
        started_at: started.toISOString(),
        duration_ms: result.durationMs,
        status_code: status,
        error: result.error,
        response_excerpt: result.excerpt,
      };
      // The attempt's log row and its outcome are written together: a reader never sees one without the other.
      const record = (outcome: AttemptOutcome) =>
        store.db.transaction().execute((tx) => recordAttempt(tx, this.owner, log, outcome));
      if (status !== null && status >= 200 && status < 300) {
        await record({ status: 'delivered', at: finished.toISOString() });
        this.options.onAttempt?.('delivered');
        return;
      }
      if (status === 410) {
        await store.db.transaction().execute(async (tx) => {
          await recordAttempt(tx, this.owner, log, { status: 'failed' });
          await retireEndpoint(tx, delivery.endpoint_id, {
            status: 'disabled',
            at: finished.toISOString(),
            reason: `the receiver answered 410 Gone to delivery ${delivery.id}`,
          });
          await appendAudit(tx, [
            {
              at: finished.toISOString(),
              actor: { type: 'system', id: null, name: 'webhook dispatcher' },
              action: 'webhook.disabled',
              subject: { type: 'webhook', id: delivery.endpoint_id },
              details: { reason: '410 Gone', delivery_id: delivery.id },
            },
          ]);
        });
        this.options.onAttempt?.('gone');
        this.options.logger.warn({ webhook_id: delivery.endpoint_id }, 'webhook endpoint disabled: 410 Gone');
        return;
      }
      const retryAfter = parseRetryAfter(result.retryAfter, finished.getTime());
      const delay = retryDelay(this.options.schedule, delivery.attempts, retryAfter, this.random);
      await record(
        delay === null
          ? { status: 'failed' }
          : { status: 'pending', nextAttemptAt: new Date(finished.getTime() + delay).toISOString() },
      );
      this.options.onAttempt?.(delay === null ? 'failed' : 'retry');
      if (delay === null) {
        this.options.logger.warn(
          { webhook_id: delivery.endpoint_id, delivery_id: delivery.id, attempts: delivery.attempts },
          'webhook delivery failed: retries spent',
        );
      }
    } catch (error) {
      // The outcome could not be written (the store is down): the lease runs out and the delivery is
      // claimed again, as after a crash.
      this.report(error, 'webhook attempt could not be recorded');
    }
  }

  private report(error: unknown, message: string): void {
    const err = error instanceof Error ? error.message : String(error);
    if (isStoreUnavailable(error)) this.options.logger.warn({ err }, `${message}: store unavailable`);
    else this.options.logger.error({ err }, message);
  }
}
