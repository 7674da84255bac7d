import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { pastInstant } from '../../services/scores/as-of.js';
import { resolveProviderNames } from '../../services/scores/provider-names.js';
import { currentIndicator } from '../../services/scores/scores.js';

/**
 * The indicator of the provider named, exactly as GET /api/v1/scores/{providerId} serves it: the current one, or with
 * `as_of` the one in force at that instant (the name matched among the providers in force then).
 */
export async function getProviderScore(
  ctx: ServiceContext,
  input: McpToolInput<'get_provider_score'>,
): Promise<string> {
  // as_of is judged first, and named as the tool's argument.
  const asOf = input.as_of === undefined ? undefined : pastInstant(ctx, input.as_of, 'input.as_of');
  const resolved = await resolveProviderNames(ctx, {
    names: [input.provider_name],
    paths: ['input.provider_name'],
    asOf,
  });
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  // A provider withdrawn since the snapshot was read is a not_found.
  return currentIndicator(ctx, { providerId: id, asOf });
}
