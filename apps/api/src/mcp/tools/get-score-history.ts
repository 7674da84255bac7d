import type { McpToolInput } from '@svc/contracts';
import { decodeCursor } from '../../http/pagination.js';
import { ApiError } from '../../http/problem.js';
import { ServiceError } from '../../services/errors.js';
import { HistoryPosition, historyPage } from '../../services/history.js';
import type { Services } from '../../services/services.js';
import { resolveProviders } from '../resolve.js';

/** A page of the named provider's publications and withdrawals, newest first, as GET /api/v1/scores/{providerId}/history serves it. */
export async function getScoreHistory(input: McpToolInput<'get_score_history'>, services: Services): Promise<string> {
  const before = beforeOf(input.cursor);
  const resolved = await resolveProviders(services.snapshot, [input.provider_name], ['input.provider_name']);
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  const { dataJson, nextCursor } = await historyPage(services.store.db, id, before, input.limit);
  return `{"provider_id":${JSON.stringify(id)},"data":${dataJson},"next_cursor":${JSON.stringify(nextCursor)}}`;
}

function beforeOf(cursor: string | undefined): HistoryPosition | undefined {
  try {
    return decodeCursor(cursor, HistoryPosition);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const message = 'is not a next_cursor value of this history';
    throw new ServiceError('invalid_request', `the cursor ${message}`, [{ path: 'input.cursor', message }]);
  }
}
