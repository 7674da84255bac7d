import type { McpToolInput } from '@svc/contracts';
import { decodeCursor, NumberPosition, pageOf } from '../../http/pagination.js';
import { ApiError } from '../../http/problem.js';
import { ServiceError } from '../../services/errors.js';
import { servedIndicatorJson } from '../../services/served.js';
import type { Services } from '../../services/services.js';
import { listHistory } from '../../store/repositories/providers.js';
import { resolveProviders } from '../resolve.js';

/** A page of the named provider's publications, newest first, as GET /api/v1/scores/{providerId}/history serves it. */
export async function getScoreHistory(input: McpToolInput<'get_score_history'>, services: Services): Promise<string> {
  const before = beforeOf(input.cursor);
  const resolved = await resolveProviders(services.snapshot, [input.provider_name], ['input.provider_name']);
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const [id = ''] = resolved.ids;
  const rows = await listHistory(services.store.db, id, { beforeSeq: before?.n, limit: input.limit + 1 });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ n: r.seq }));
  return `{"provider_id":${JSON.stringify(id)},"data":[${page.map(servedIndicatorJson).join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`;
}

function beforeOf(cursor: string | undefined): { n: number } | undefined {
  try {
    return decodeCursor(cursor, NumberPosition);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const message = 'is not a next_cursor value of this history';
    throw new ServiceError('invalid_request', `the cursor ${message}`, [{ path: 'input.cursor', message }]);
  }
}
