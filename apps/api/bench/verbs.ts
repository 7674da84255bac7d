// The service verbs the benches call, in one place: the data sets and the soak seed write through these, so a
// change of the verbs' signatures is made here alone.

import {
  acceptTerms,
  type Clock,
  createKey,
  createWorkspace,
  enableMcp,
  freshnessPolicy,
  generateSigner,
  PUBLICATION_BATCH,
  preparePublication,
  publishIndicator,
  publishPrepared,
  registerWebhook,
  type SecretBox,
  type ServiceContext,
  type Signer,
  type Store,
  secretBox,
  standaloneContext,
  systemClock,
} from '@svc/api';
import type { Framework, InputsDocument } from '@svc/methodology';

/** The store and what the verbs take beside it. */
export interface Bench {
  store: Store;
  clock: Clock;
  box: SecretBox;
  /** The key the bench's publications are signed with. */
  signer: Signer;
}

/** The bench's context over `store`: the system clock and a secret box sealed with `masterKey` (32 bytes). */
export function benchOver(store: Store, masterKey: Buffer): Bench {
  return { store, clock: systemClock, box: secretBox(masterKey), signer: generateSigner() };
}

/** When every bench publication's inputs were approved. */
export const APPROVED_AT = '2026-06-02T10:00:00.000Z';

/** The verbs' context over the bench's store: the service itself acting, loopback webhook URLs allowed. */
function ctxOf(b: Bench, workspaceId?: string): ServiceContext {
  return standaloneContext(b.store, {
    actor:
      workspaceId === undefined
        ? { kind: 'system' }
        : { kind: 'key', caller: { keyId: 'bench', workspaceId, tier: 'ENTERPRISE', mcpEnabled: true } },
    clock: b.clock,
    box: b.box,
    signer: b.signer,
    policy: { allowLoopback: true },
    // The bench's documents are evaluated in 2026-06 and published by the real clock (decision 0053).
    freshness: freshnessPolicy({ maxEvaluationAgeDays: 36500 }),
  });
}

/** The service's own context over a bench, made once: a publishing run (`svc publish --all`) has one for all. */
const serviceContexts = new WeakMap<Bench, ServiceContext>();

/** Publishes a validated document through the publishing verb; anything but `published` is an error. */
export async function publish(b: Bench, document: InputsDocument, framework: Framework): Promise<void> {
  let ctx = serviceContexts.get(b);
  if (!ctx) {
    ctx = ctxOf(b);
    serviceContexts.set(b, ctx);
  }
  const outcome = await publishIndicator(ctx, { document, framework, approvedAt: APPROVED_AT });
  if (outcome.status !== 'published') throw new Error(`${document.provider.id}: ${outcome.status}`);
}

/**
 * Publishes validated documents as a publishing run does (`svc publish --all`, decision 0039): PUBLICATION_BATCH at a
 * time, each batch in one transaction; anything but `published` is an error.
 */
export async function publishAll(b: Bench, documents: readonly InputsDocument[], framework: Framework): Promise<void> {
  let ctx = serviceContexts.get(b);
  if (!ctx) {
    ctx = ctxOf(b);
    serviceContexts.set(b, ctx);
  }
  for (let at = 0; at < documents.length; at += PUBLICATION_BATCH) {
    const prepared = documents.slice(at, at + PUBLICATION_BATCH).map((document) => {
      const p = preparePublication(ctx, { document, framework, approvedAt: APPROVED_AT });
      if ('status' in p) throw new Error(`${document.provider.id}: ${p.status}`);
      return p;
    });
    for (const outcome of await publishPrepared(ctx, prepared)) {
      if (outcome.status !== 'published') throw new Error(`${outcome.indicator.provider_id}: ${outcome.status}`);
    }
  }
}

/** A new workspace (its id), with agent tools on when `mcp` is set. */
export async function workspace(b: Bench, name: string, mcp = false): Promise<string> {
  const ws = await createWorkspace(ctxOf(b), { name });
  await acceptTerms(ctxOf(b), {
    workspaceId: ws.workspace_id,
    administrator: 'Bench Administrator',
    email: 'bench@example.com',
    preview: mcp,
  });
  if (mcp) await enableMcp(ctxOf(b), { workspaceId: ws.workspace_id, enabled: true });
  return ws.workspace_id;
}

/** A new key of `tier` in the workspace: the key itself and its id. */
export async function key(b: Bench, workspaceId: string, tier: string): Promise<{ key: string; id: string }> {
  const created = await createKey(ctxOf(b), { workspaceId, tier });
  return { key: created.key, id: created.key_id };
}

/** Registers a webhook endpoint of the workspace at `url` for `risk_indicator.published` (loopback allowed). */
export async function subscribe(b: Bench, workspaceId: string, url: string): Promise<void> {
  await registerWebhook(ctxOf(b, workspaceId), {
    url,
    events: ['risk_indicator.published'],
  });
}
