import type { ChangelogEntry } from '@svc/contracts';
import type { Selectable } from 'kysely';
import { listChanges } from '../../store/repositories/changelog.js';
import type { ChangelogTable } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { decodeCursor, NumberPosition, pageOf } from '../shared/paging.js';

/** The change feed: every new, changed and withdrawn Risk Indicator, newest first. */

function changeOf(row: Selectable<ChangelogTable>): ChangelogEntry {
  return {
    id: String(row.id),
    provider_id: row.provider_id,
    provider_name: row.provider_name,
    change_type: row.change_type as ChangelogEntry['change_type'],
    previous_score: row.previous_score,
    new_score: row.new_score,
    previous_band: row.previous_band as ChangelogEntry['previous_band'],
    new_band: row.new_band as ChangelogEntry['new_band'],
    framework_version: row.framework_version,
    risk_indicator_id: row.risk_indicator_id,
    changed_at: row.changed_at,
    rating_action_id: row.rating_action_id,
  };
}

/**
 * A page of changes, newest first, after the `cursor` of the previous page and not before `since` (a date or a
 * timestamp), with the cursor of the next page (null on the last).
 */
export async function changes(
  ctx: ServiceContext,
  input: { since?: string | undefined; cursor?: string | undefined; limit: number },
): Promise<{ data: ChangelogEntry[]; nextCursor: string | null }> {
  const before = decodeCursor(input.cursor, NumberPosition);
  const since = input.since === undefined ? undefined : new Date(Date.parse(input.since)).toISOString();
  const rows = await listChanges(ctx.store.db, { since, beforeId: before?.n, limit: input.limit + 1 });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => ({ n: r.id }));
  return { data: page.map(changeOf), nextCursor };
}
