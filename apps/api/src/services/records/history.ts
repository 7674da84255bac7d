import type { Kysely } from 'kysely';
import { z } from 'zod';
import { findProvider, listHistory } from '../../store/repositories/providers.js';
import { listWithdrawals } from '../../store/repositories/withdrawals.js';
import type { Database, WithdrawalsTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { servedIndicatorJson } from '../scores/served.js';
import { decodeCursor, pageOf, positionSequence } from '../shared/paging.js';

/**
 * Where a page of a provider's history ends: the publication `n` (its indicator_history seq) or, with `w: 1`,
 * the withdrawal of publication `n`, which comes after it. Cursors written before withdrawals were listed
 * are `{n}` and keep their meaning.
 */
export const HistoryPosition = z.strictObject({
  n: positionSequence(1),
  w: z.literal(1).optional(),
});
export type HistoryPosition = z.infer<typeof HistoryPosition>;

/**
 * A provider's score history as GET /api/v1/scores/{providerId}/history and the get_score_history tool answer it:
 * the JSON text of one page (`provider_id`, `data`, `next_cursor`) and the cursor of the next. An unknown provider
 * is a not_found; a cursor that is not one of this list an invalid_request naming `query.cursor`.
 */
export async function scoreHistory(
  ctx: ServiceContext,
  input: { providerId: string; cursor?: string; limit: number },
): Promise<{ json: string; nextCursor: string | null }> {
  const providerId = input.providerId.toLowerCase();
  const provider = await findProvider(ctx.store.db, providerId);
  if (!provider) throw new ServiceError('not_found', `no provider ${input.providerId}`);
  const before = decodeCursor(input.cursor, HistoryPosition);
  const { dataJson, nextCursor } = await historyPage(ctx.store.db, providerId, before, input.limit);
  return {
    json: `{"provider_id":${JSON.stringify(providerId)},"data":${dataJson},"next_cursor":${JSON.stringify(nextCursor)}}`,
    nextCursor,
  };
}

type Entry = { seq: number; withdrawal: WithdrawalsTable | null; json: string };

/**
 * One page of a provider's history, newest first: every publication (the Risk Indicator as served, named
 * `entry_type: "publication"`) and every withdrawal as an entry of its own (`entry_type: "withdrawal"`) right after
 * the publication it withdrew, so a withdrawal and a re-publication never read as the same indicator listed twice.
 */
async function historyPage(
  db: Kysely<Database>,
  providerId: string,
  before: HistoryPosition | undefined,
  limit: number,
): Promise<{ dataJson: string; nextCursor: string | null }> {
  // A publication n sorts before (is older than) its withdrawal: a page ending on the withdrawal of n goes on with n.
  const publicationsBefore = before === undefined ? undefined : before.w === 1 ? before.n + 1 : before.n;
  const [publications, withdrawals] = await Promise.all([
    listHistory(db, providerId, { beforeSeq: publicationsBefore, limit: limit + 1 }),
    listWithdrawals(db, providerId, { beforeSeq: before?.n, limit: limit + 1 }),
  ]);
  const entries: Entry[] = [
    ...publications.map((p) => ({ seq: p.seq, withdrawal: null, json: publicationJson(p) })),
    ...withdrawals.map((w) => ({ seq: w.after_seq, withdrawal: w, json: withdrawalJson(w) })),
  ];
  entries.sort((a, b) => b.seq - a.seq || (a.withdrawal ? -1 : 0) - (b.withdrawal ? -1 : 0));
  const { page, nextCursor } = pageOf(entries.slice(0, limit + 1), limit, (e) =>
    e.withdrawal ? { n: e.seq, w: 1 } : { n: e.seq },
  );
  return { dataJson: `[${page.map((e) => e.json).join(',')}]`, nextCursor };
}

/** A publication as the history lists it: its kind first, then the served indicator's members as they are. */
function publicationJson(row: Parameters<typeof servedIndicatorJson>[0]): string {
  return `{"entry_type":"publication",${servedIndicatorJson(row).slice(1)}`;
}

function withdrawalJson(w: WithdrawalsTable): string {
  return JSON.stringify({
    entry_type: 'withdrawal',
    provider_id: w.provider_id,
    withdrawn_at: w.withdrawn_at,
    withdrawn_risk_indicator_id: w.risk_indicator_id,
    previous_score: w.previous_score,
    previous_band: w.previous_band,
    framework_version: w.framework_version,
    reason: w.reason,
  });
}
