import { findCurrent } from '../store/repositories/providers.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';
import { servedIndicatorJson } from './served.js';

/**
 * A provider's current Risk Indicator as GET /api/v1/scores/{providerId} and the get_provider_score tool serve it
 * (JSON text); a provider without one (never published, or withdrawn) is a not_found naming the id as given.
 */
export async function currentScore(ctx: ServiceContext, input: { providerId: string }): Promise<string> {
  const row = await findCurrent(ctx.store.db, input.providerId.toLowerCase());
  if (!row) throw new ServiceError('not_found', `no published Risk Indicator for provider ${input.providerId}`);
  return servedIndicatorJson(row);
}
