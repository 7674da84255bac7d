import { type ChangelogEntry, endpoints } from '@svc/contracts';
import type { Selectable } from 'kysely';
import { listChanges } from '../../store/repositories/changelog.js';
import type { ChangelogTable } from '../../store/schema.js';
import { decodeCursor, NumberPosition, nextLink, pageOf } from '../pagination.js';
import { defineRoute } from '../route.js';

export function changeOf(row: Selectable<ChangelogTable>): ChangelogEntry {
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

/** A `since` date or timestamp as the store's timestamp text. */
export function sinceOf(since: string | undefined): string | undefined {
  return since === undefined ? undefined : new Date(Date.parse(since)).toISOString();
}

export default defineRoute(endpoints.getChangelog, async ({ query, services, req }) => {
  const before = decodeCursor(query.cursor, NumberPosition);
  const rows = await listChanges(services.store.db, {
    since: sinceOf(query.since),
    beforeId: before?.n,
    limit: query.limit + 1,
  });
  const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ n: r.id }));
  return {
    json: { data: page.map(changeOf), next_cursor: nextCursor },
    headers: { 'Cache-Control': 'public, max-age=30', ...nextLink(req.path, query, nextCursor) },
  };
});
