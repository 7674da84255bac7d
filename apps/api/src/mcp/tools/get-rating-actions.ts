import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { ServiceError } from '../../services/errors.js';
import { ratingActionsPage } from '../../services/rating-actions/rating-actions.js';
import { resolveProviderNames } from '../../services/scores/provider-names.js';
import { cursorPosition, NumberPosition } from '../../services/shared/paging.js';

/**
 * A page of rating actions, newest first, exactly as GET /api/public/rating-actions serves it for the same filters
 * (the same service verb): every provider's, or the named provider's (resolved as get_provider_score resolves it).
 */
export async function getRatingActions(
  ctx: ServiceContext,
  input: McpToolInput<'get_rating_actions'>,
): Promise<string> {
  // The cursor is judged first, and named as the tool's argument.
  if (input.cursor !== undefined && cursorPosition(input.cursor, NumberPosition) === null) {
    const message = 'is not a next_cursor value of this list';
    throw new ServiceError('invalid_request', `the cursor ${message}`, [{ path: 'input.cursor', message }]);
  }
  let providerId: string | undefined;
  if (input.provider_name !== undefined) {
    const resolved = await resolveProviderNames(ctx, { names: [input.provider_name], paths: ['input.provider_name'] });
    if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
    [providerId] = resolved.ids;
  }
  const { data, nextCursor } = await ratingActionsPage(ctx, {
    provider_id: providerId,
    type: input.type,
    since: input.since,
    cursor: input.cursor,
    limit: input.limit,
  });
  return JSON.stringify({ data, next_cursor: nextCursor });
}
