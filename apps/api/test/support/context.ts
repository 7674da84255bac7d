import type { Clock } from '../../src/clock.js';
import type { Actor, ServiceContext } from '../../src/services/context.js';
import type { FrameworkReleases } from '../../src/services/frameworks/framework-releases.js';
import { standaloneContext } from '../../src/services/services.js';
import { type FreshnessPolicy, freshnessPolicy } from '../../src/services/shared/freshness-policy.js';
import type { SecretBox } from '../../src/services/shared/secrets.js';
import { generateSigner, type Signer } from '../../src/services/shared/signing.js';
import type { UrlPolicy } from '../../src/services/shared/webhook-url.js';
import type { Store } from '../../src/store/store.js';

export interface TestContextOptions {
  clock?: Clock;
  box?: SecretBox;
  /** The key statements are signed with; by default one key generated for the test process. */
  signer?: Signer;
  policy?: UrlPolicy;
  /** The freshness policy; by default TEST_FRESHNESS, so the examples (evaluated in 2026-06) publish on any day. */
  freshness?: FreshnessPolicy;
  /** Act for an operator of this name (the CLI's --by in open mode, or the operator's name with operatorId). */
  by?: string;
  /** The id of the operator `by` names, as a presented token resolves it (services/operators/operators.ts resolveOperator). */
  operatorId?: string;
  /** The frameworks known and recorded (a cache of the test's own); by default the engine's. */
  frameworks?: FrameworkReleases;
  /** Act for a key of this workspace (the keyed routes and the webhook verbs). */
  workspaceId?: string;
}

/**
 * The tests' freshness policy (decision 0053): the defaults but a maximum evaluation age of a century, so documents
 * evaluated months ago publish by the real clock; the tests of the guard itself pass the policy they test.
 */
export const TEST_FRESHNESS = freshnessPolicy({ maxEvaluationAgeDays: 36500 });

/** The test process's signing key: the first publication in a store records it as the active key. */
export const TEST_SIGNER = generateSigner();

/** The context a test runs service verbs in: the system by default, an operator with `by`, a key's holder with `workspaceId`. */
export function ctxOf(store: Store, options: TestContextOptions = {}): ServiceContext {
  const actor: Actor =
    options.workspaceId !== undefined
      ? {
          kind: 'key',
          caller: { keyId: 'key_test', workspaceId: options.workspaceId, tier: 'ENTERPRISE', mcpEnabled: true },
        }
      : options.by !== undefined
        ? { kind: 'operator', id: options.operatorId ?? null, name: options.by }
        : { kind: 'system' };
  return standaloneContext(store, {
    actor,
    clock: options.clock,
    box: options.box,
    signer: options.signer ?? TEST_SIGNER,
    policy: options.policy,
    freshness: options.freshness ?? TEST_FRESHNESS,
    frameworks: options.frameworks,
  });
}
