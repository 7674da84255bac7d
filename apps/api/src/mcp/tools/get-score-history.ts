import type { McpToolInput } from '@svc/contracts';
import type { ServiceContext } from '../../services/context.js';
import { ServiceError } from '../../services/errors.js';
import { HistoryPosition, scoreHistory } from '../../services/records/history.js';
import { resolveProviderNames } from '../../services/scores/provider-names.js';
import { cursorPosition } from '../../services/shared/paging.js';

/** A page of the named provider's publications and withdrawals, newest first, as GET /api/v1/scores/{providerId}/history serves it. */
export async function getScoreHistory(ctx: ServiceContext, input: McpToolInput<'get_score_history'>): Promise<string> {
  // The cursor is judged first, and named as the tool's argument.
  if (input.cursor !== undefined && cursorPosition(input.cursor, HistoryPosition) === null) {
    const message = 'is not a next_cursor value of this history';
    throw new ServiceError('invalid_request', `the cursor ${message}`, [{ path: 'input.cursor', message }]);
  }
  const resolved = await resolveProviderNames(ctx, { names: [input.provider_name], paths: ['input.provider_name'] });
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  const history = await scoreHistory(ctx, { providerId: id, cursor: input.cursor, limit: input.limit });
  return history.json;
}
