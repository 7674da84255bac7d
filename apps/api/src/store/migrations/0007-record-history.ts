import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Two records of what happened, kept where their readers look:
 *
 * - `withdrawals`: each withdrawal of a provider's indicator, keyed by the publication it withdrew
 *   (`after_seq`, the indicator_history seq; a publication is withdrawn at most once), so a provider's
 *   history lists it between that publication and the next. Withdrawals made before are filled in from
 *   the change feed's WITHDRAWN entries (their reason was never stored: null).
 * - coverage requests: RECEIVED and RESOLVED become RECEIVED, IN_REVIEW, COVERED and DECLINED. A request
 *   resolved before is COVERED when a provider of exactly that name has a published indicator now, else
 *   DECLINED; its note is kept.
 * - issuances: one id scheme, iss_ and 24 hex digits. The demo's UUID ids become iss_ and the first 24 hex
 *   digits of the UUID (the ids the demo data set now has, so a re-seed finds them).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('withdrawals')
    .addColumn('after_seq', 'integer', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('risk_indicator_id', 'text', (c) => c.notNull().references('risk_indicators.risk_indicator_id'))
    .addColumn('framework_version', 'text', (c) => c.notNull())
    .addColumn('previous_score', sql`double precision`, (c) => c.notNull())
    .addColumn('previous_band', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('withdrawn_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('withdrawals_provider').on('withdrawals').columns(['provider_id', 'after_seq']).execute();
  // The publication each past withdrawal ended: the provider's last one published before it.
  await sql`insert into withdrawals
      (after_seq, provider_id, risk_indicator_id, framework_version, previous_score, previous_band, reason, withdrawn_at)
    select h.seq, c.provider_id, h.risk_indicator_id, c.framework_version, c.previous_score, c.previous_band, null, c.changed_at
    from changelog c
    join indicator_history h on h.provider_id = c.provider_id and h.seq = (
      select max(h2.seq) from indicator_history h2 where h2.provider_id = c.provider_id and h2.published_at <= c.changed_at
    )
    where c.change_type = 'WITHDRAWN' and c.previous_score is not null and c.previous_band is not null`.execute(db);

  await sql`update coverage_requests set status = case
      when exists (
        select 1 from providers p where p.name = coverage_requests.provider_name and p.current_indicator_id is not null
      ) then 'COVERED' else 'DECLINED' end
    where status = 'RESOLVED'`.execute(db);

  await sql`update issuances set id = 'iss_' || substr(replace(lower(id), '-', ''), 1, 24)
    where substr(id, 1, 4) <> 'iss_'`.execute(db);
}
