import type { Tier } from '@svc/contracts';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import type { FrameworkReleases } from './frameworks/framework-releases.js';
import type { FreshnessPolicy } from './shared/freshness-policy.js';
import type { PublicSnapshot } from './shared/public-snapshot.js';
import type { SecretBox } from './shared/secrets.js';
import type { Signer } from './shared/signer.js';
import type { UrlPolicy } from './shared/webhook-url.js';

/** An API key that has been presented and checked: whose it is and what it may do. */
export interface Caller {
  keyId: string;
  workspaceId: string;
  tier: Tier;
  mcpEnabled: boolean;
}

/**
 * Who a verb acts for: a key's holder (an HTTP route or an agent tool), a client without a key (its address, for
 * the public routes), an operator of the risk team (at the command line), or the service itself (migrations, the
 * dispatcher, the demo seed: `name` says which).
 *
 * An operator with an `id` presented their token (services/operators/operators.ts resolveOperator); one without is a name
 * typed after `--by` in open mode (a store with no operators), or no name at all. Verbs that change the record
 * check the actor with `authorise`, against the store, whatever the transport decided.
 */
export type Actor =
  | { kind: 'key'; caller: Caller }
  | { kind: 'public'; client: string }
  | { kind: 'operator'; id: string | null; name: string | null }
  | { kind: 'system'; name?: string };

/**
 * Everything a service verb works with. Every verb has one signature, `(ctx, input)`: the transport (a route, an
 * agent tool, a page, a CLI command) builds the context once and hands over the input it parsed. A verb does its
 * writes in one transaction and knows nothing of HTTP.
 */
export interface ServiceContext {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The rules webhook URLs are registered and delivered under. */
  policy: UrlPolicy;
  /** How old an evaluation may be when published, and the review cadences (configuration, decision 0053). */
  freshness: FreshnessPolicy;
  actor: Actor;
  /** The public list as last read; a verb that publishes invalidates it. */
  snapshot: PublicSnapshot;
  /** The box workspace secrets are sealed with; only the verbs that issue or read a secret need it. */
  box?: SecretBox;
  /** The frameworks this process knows and the releases recorded, as last read (see frameworkInForce). */
  frameworks: FrameworkReleases;
  /** The key publications and withdrawals are signed with (services/shared/signing.ts); only the verbs that sign need it. */
  signer?: Signer;
  /** Called after a transaction that queued webhook deliveries commits (wakes this process's dispatcher); optional. */
  wake?: () => void;
  /**
   * Who the audit trail records, and by which clock it is dated, when not this context's actor and clock: verbs that
   * replay a fictional history (the demo, with its personas and its dates) keep those in their own rows, while the
   * trail records the operator who ran them, when they ran.
   */
  recording?: { actor: Actor; clock: Clock };
}

/** The key's holder a keyed verb acts for; a verb that needs one and is given another actor is a programming error. */
export function callerOf(ctx: ServiceContext): Caller {
  if (ctx.actor.kind !== 'key') throw new Error(`a keyed verb was called for a ${ctx.actor.kind} actor`);
  return ctx.actor.caller;
}

/** The box secrets are sealed with; a verb that needs one run without it is a programming error. */
export function boxOf(ctx: ServiceContext): SecretBox {
  if (!ctx.box) throw new Error('this verb seals or opens a secret and was run without the master key box');
  return ctx.box;
}
