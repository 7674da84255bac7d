import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { searchProviders as search } from '../../services/scores/search.js';

/** The search endpoint's default page size. */
const SEARCH_LIMIT = 20;

/** Providers whose name contains the query, best match first, as GET /api/v1/providers/search serves them. */
export async function searchProviders(ctx: ServiceContext, input: McpToolInput<'search_providers'>): Promise<string> {
  const data = await search(ctx, {
    q: input.query,
    planner_type: input.planner_type,
    limit: SEARCH_LIMIT,
  });
  return JSON.stringify({ query: input.query, data });
}
