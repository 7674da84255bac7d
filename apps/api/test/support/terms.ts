import { acceptTerms, enableMcp } from '../../src/services/access/access.js';
import type { ServiceContext } from '../../src/services/context.js';

/** The contract administrator who accepts the terms for the tests' workspaces. */
export const TEST_ADMINISTRATOR = { administrator: 'Test Administrator', email: 'admin@tests.example' } as const;

/**
 * Records the test administrator's acceptance of the API terms for a workspace (and of the agent-tool preview
 * terms with `preview`), as `svc workspace accept-terms` does: no key is issued, nor agent tools enabled, before.
 */
export async function acceptTestTerms(
  ctx: ServiceContext,
  workspaceId: string,
  options: { preview?: boolean } = {},
): Promise<void> {
  await acceptTerms(ctx, { workspaceId, ...TEST_ADMINISTRATOR, preview: options.preview === true });
}

/** Turns a workspace's agent tools on as its administrator does: the preview terms accepted, then enable-mcp. */
export async function enableAgentTools(ctx: ServiceContext, workspaceId: string): Promise<void> {
  await acceptTestTerms(ctx, workspaceId, { preview: true });
  await enableMcp(ctx, { workspaceId, enabled: true });
}
