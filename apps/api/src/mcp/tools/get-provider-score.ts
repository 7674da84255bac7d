import type { McpToolInput } from '@svc/contracts';
import { ServiceError } from '../../services/errors.js';
import { servedIndicatorJson } from '../../services/served.js';
import type { Services } from '../../services/services.js';
import { findCurrent } from '../../store/repositories/providers.js';
import { resolveProviders } from '../resolve.js';

/** The current indicator of the provider named, exactly as GET /api/v1/scores/{providerId} serves it. */
export async function getProviderScore(input: McpToolInput<'get_provider_score'>, services: Services): Promise<string> {
  const resolved = await resolveProviders(services.snapshot, [input.provider_name], ['input.provider_name']);
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  const row = await findCurrent(services.store.db, id);
  // Withdrawn since the snapshot was read.
  if (!row) throw new ServiceError('not_found', `no published Risk Indicator for provider ${id}`);
  return servedIndicatorJson(row);
}
