import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { currentIndicator } from '../../services/scores.js';
import { resolveProviders } from '../resolve.js';

/** The current indicator of the provider named, exactly as GET /api/v1/scores/{providerId} serves it. */
export async function getProviderScore(
  ctx: ServiceContext,
  input: McpToolInput<'get_provider_score'>,
): Promise<string> {
  const resolved = await resolveProviders(ctx.snapshot, [input.provider_name], ['input.provider_name']);
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  // A provider withdrawn since the snapshot was read is a not_found.
  return currentIndicator(ctx, { providerId: id });
}
