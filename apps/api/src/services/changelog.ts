import type { ChangelogEntry } from '@svc/contracts';
import type { Selectable } from 'kysely';
import { listChanges } from '../store/repositories/changelog.js';
import type { ChangelogTable } from '../store/schema.js';
import type { ServiceContext } from './context.js';

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
  };
}

/**
 * Changes newest first, from before entry `beforeId` (the last of the previous page) and not before `since` (a date
 * or a timestamp): `limit` of them.
 */
export async function changes(
  ctx: ServiceContext,
  input: { since?: string | undefined; beforeId?: number | undefined; limit: number },
): Promise<ChangelogEntry[]> {
  const since = input.since === undefined ? undefined : new Date(Date.parse(input.since)).toISOString();
  const rows = await listChanges(ctx.store.db, { since, beforeId: input.beforeId, limit: input.limit });
  return rows.map(changeOf);
}
