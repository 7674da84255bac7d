import { canonicalJson, readJson } from '@svc/methodology';
import { type Kysely, sql } from 'kysely';
import { type AuditEntryBody, auditHash } from '../audit-chain.js';
import type { Dialect } from '../dialect.js';
import { derivedActionId, type PublicationActionType, publicationActionType } from '../rating-action-rules.js';

/**
 * Rating actions, outlook and watch (decision 0030):
 *
 * - `rating_actions`: every action, derived from a publication or a withdrawal, or proposed by an analyst and
 *   approved by another person; `seq` orders the effective ones as they took effect.
 * - `providers` gains the outlook and the watch in force (read with the indicator, at no extra cost).
 * - `changelog` gains `rating_action_id`: the action each entry is.
 * - `statements` gains `rating_action_id`, and its one-statement-per-publication rule becomes one per publication,
 *   withdrawal or action.
 *
 * The history recorded before is derived into actions here, in the order it happened, with the same rules and ids
 * as publishing now uses; the change feed's entries are linked to them; one audit entry records it. Their statements
 * are signed by the next process that can sign (a migration holds no key), as 0010's were.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('rating_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('provider_name', 'text', (c) => c.notNull())
    .addColumn('previous_band', 'text')
    .addColumn('new_band', 'text')
    .addColumn('previous_score', 'double precision')
    .addColumn('new_score', 'double precision')
    .addColumn('outlook', 'text')
    .addColumn('watch_direction', 'text')
    .addColumn('watch_since', 'text')
    .addColumn('watch_review_by', 'text')
    .addColumn('rationale', 'text')
    .addColumn('risk_indicator_id', 'text')
    .addColumn('framework_version', 'text')
    .addColumn('publication_seq', 'integer')
    .addColumn('proposal', 'text')
    .addColumn('proposed_by', 'text')
    .addColumn('proposed_by_id', 'text')
    .addColumn('proposed_at', 'text')
    .addColumn('approved_by', 'text')
    .addColumn('approved_by_id', 'text')
    .addColumn('effective_at', 'text')
    .execute();
  // The feed, newest first: all of it, one provider's, one type's.
  await db.schema.createIndex('rating_actions_seq').on('rating_actions').columns(['seq']).unique().execute();
  await db.schema.createIndex('rating_actions_provider').on('rating_actions').columns(['provider_id', 'seq']).execute();
  await db.schema.createIndex('rating_actions_type').on('rating_actions').columns(['type', 'seq']).execute();
  // What was in force at an instant: a provider's latest action at or before it.
  await db.schema
    .createIndex('rating_actions_effective')
    .on('rating_actions')
    .columns(['provider_id', 'effective_at', 'seq'])
    .execute();
  await db.schema
    .createIndex('rating_actions_status')
    .on('rating_actions')
    .columns(['status', 'proposed_at'])
    .execute();
  await db.schema.createIndex('rating_actions_publication').on('rating_actions').columns(['publication_seq']).execute();

  await db.schema
    .alterTable('providers')
    .addColumn('outlook', 'text', (c) => c.notNull().defaultTo('STABLE'))
    .execute();
  for (const column of ['watch_direction', 'watch_since', 'watch_review_by']) {
    await db.schema.alterTable('providers').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('changelog').addColumn('rating_action_id', 'text').execute();
  await db.schema.alterTable('statements').addColumn('rating_action_id', 'text').execute();
  await db.schema.dropIndex('statements_publication').execute();
  // One statement per publication and per withdrawal, as before, and one per action.
  await sql`create unique index statements_publication on statements (publication_seq, type, (coalesce(rating_action_id, '')))`.execute(
    db,
  );
  await db.schema
    .createIndex('statements_rating_action')
    .on('statements')
    .columns(['rating_action_id'])
    .unique()
    .execute();

  const actions = await derivedHistory(db, dialect);
  for (let at = 0; at < actions.length; at += INSERT_BATCH) {
    const rows = actions.slice(at, at + INSERT_BATCH).map((a) => ({
      ...a,
      status: 'EFFECTIVE',
      outlook: 'STABLE',
      watch_direction: null,
      watch_since: null,
      watch_review_by: null,
      proposal: null,
      proposed_by_id: null,
      proposed_at: null,
      approved_by_id: null,
    }));
    await (db as Kysely<{ rating_actions: (typeof rows)[number] }>).insertInto('rating_actions').values(rows).execute();
  }
  if (actions.length === 0) return;
  await sql`insert into store_meta (key, value) values ('rating_action_seq', ${String(actions.length)})`.execute(db);
  await sql`update changelog set rating_action_id = (
      select ra.id from rating_actions ra
      where ra.provider_id = changelog.provider_id and ra.effective_at = changelog.changed_at
        and ((changelog.change_type = 'WITHDRAWN' and ra.type = 'WITHDRAW')
          or (changelog.change_type <> 'WITHDRAWN' and ra.type <> 'WITHDRAW' and ra.risk_indicator_id = changelog.risk_indicator_id))
      order by ra.seq desc limit 1)`.execute(db);
  const linked = await sql<{
    n: number | string;
  }>`select count(*) as n from changelog where rating_action_id is not null`.execute(db);
  // Their statements are to sign: the next process that can sign does it (services/statements/statements.ts ensureStatements).
  await sql`delete from store_meta where key = 'statements_backfilled'`.execute(db);
  const byType: Record<string, number> = {};
  for (const a of actions) byType[a.type] = (byType[a.type] ?? 0) + 1;
  await appendEntry(db, {
    action: 'rating_actions.derived_at_migration',
    details: { actions: actions.length, by_type: byType, changelog_entries: Number(linked.rows[0]?.n ?? 0) },
  });
}

/** Rows per insert: well under either engine's limit on bound values. */
const INSERT_BATCH = 500;

interface DerivedRow {
  id: string;
  seq: number;
  type: PublicationActionType | 'WITHDRAW';
  provider_id: string;
  provider_name: string;
  previous_band: string | null;
  new_band: string | null;
  previous_score: number | null;
  new_score: number | null;
  rationale: string | null;
  risk_indicator_id: string;
  framework_version: string;
  publication_seq: number;
  proposed_by: string | null;
  approved_by: string | null;
  effective_at: string;
}

/**
 * The actions of every publication and withdrawal recorded, derived provider by provider in the order they happened
 * (a withdrawal right after the publication it ended), then numbered in the order they took effect.
 */
async function derivedHistory(db: Kysely<unknown>, dialect: Dialect): Promise<DerivedRow[]> {
  // The provider's name as each indicator was published with it, read by the store from the indicator's JSON.
  const name = dialect === 'postgres' ? sql`(r.indicator::json ->> 'name')` : sql`json_extract(r.indicator, '$.name')`;
  const history = await sql<{
    seq: number | string;
    provider_id: string;
    risk_indicator_id: string;
    published_at: string;
    score_verified_at: string;
    final_score: number | string;
    risk_band: string;
    framework_version: string;
    provider_name: string;
  }>`select h.seq, h.provider_id, h.risk_indicator_id, h.published_at, h.score_verified_at, r.final_score,
      r.risk_band, h.framework_version, ${name} as provider_name
    from indicator_history h join risk_indicators r on r.risk_indicator_id = h.risk_indicator_id
    order by h.seq`.execute(db);
  if (history.rows.length === 0) return [];
  const withdrawals = await sql<{
    after_seq: number | string;
    previous_score: number | string;
    previous_band: string;
    framework_version: string;
    risk_indicator_id: string;
    reason: string | null;
    withdrawn_at: string;
  }>`select after_seq, previous_score, previous_band, framework_version, risk_indicator_id, reason, withdrawn_at
    from withdrawals`.execute(db);
  const withdrawalAfter = new Map(withdrawals.rows.map((w) => [Number(w.after_seq), w]));
  const makers = await publicationMakers(db);
  const withdrawers = await withdrawalActors(db);

  type State = { band: string; score: number; name: string } | 'withdrawn';
  const state = new Map<string, State>();
  const derived: (Omit<DerivedRow, 'seq'> & { order: number })[] = [];
  let order = 0;
  for (const h of history.rows) {
    const seq = Number(h.seq);
    const before = state.get(h.provider_id);
    const type = publicationActionType(
      before === undefined
        ? { published: false }
        : before === 'withdrawn'
          ? { published: true, withdrawn: true }
          : { published: true, band: before.band },
      h.risk_band,
    );
    const score = Number(h.final_score);
    const maker = makers.get(`${h.provider_id} ${h.score_verified_at}`);
    derived.push({
      order: order++,
      id: derivedActionId('publication', {
        seq,
        providerId: h.provider_id,
        riskIndicatorId: h.risk_indicator_id,
        at: h.published_at,
      }),
      type,
      provider_id: h.provider_id,
      provider_name: h.provider_name,
      previous_band: typeof before === 'object' ? before.band : null,
      new_band: h.risk_band,
      previous_score: typeof before === 'object' ? before.score : null,
      new_score: score,
      rationale: null,
      risk_indicator_id: h.risk_indicator_id,
      framework_version: h.framework_version,
      publication_seq: seq,
      proposed_by: maker?.submitted_by ?? null,
      approved_by: maker?.approved_by ?? null,
      effective_at: h.published_at,
    });
    state.set(h.provider_id, { band: h.risk_band, score, name: h.provider_name });
    const w = withdrawalAfter.get(seq);
    if (w) {
      derived.push({
        order: order++,
        id: derivedActionId('withdrawal', {
          seq,
          providerId: h.provider_id,
          riskIndicatorId: w.risk_indicator_id,
          at: w.withdrawn_at,
        }),
        type: 'WITHDRAW',
        provider_id: h.provider_id,
        provider_name: h.provider_name,
        previous_band: w.previous_band,
        new_band: null,
        previous_score: Number(w.previous_score),
        new_score: null,
        rationale: w.reason,
        risk_indicator_id: w.risk_indicator_id,
        framework_version: w.framework_version,
        publication_seq: seq,
        proposed_by: null,
        approved_by: withdrawers.get(seq) ?? null,
        effective_at: w.withdrawn_at,
      });
      state.set(h.provider_id, 'withdrawn');
    }
  }
  // Numbered as they took effect; the order of the history settles equal instants.
  derived.sort((a, b) =>
    a.effective_at < b.effective_at ? -1 : a.effective_at > b.effective_at ? 1 : a.order - b.order,
  );
  return derived.map(({ order: _order, ...a }, i) => ({ ...a, seq: i + 1 }));
}

/**
 * Who submitted and who approved the inputs of each publication, by provider and approval instant (a publication's
 * score_verified_at is its submission's approved_at): the maker and the checker its action names.
 */
async function publicationMakers(
  db: Kysely<unknown>,
): Promise<Map<string, { submitted_by: string; approved_by: string | null }>> {
  const rows = await sql<{
    provider_id: string;
    approved_at: string;
    submitted_by: string;
    approved_by: string | null;
  }>`
    select provider_id, approved_at, submitted_by, approved_by from approved_inputs
    where approved_at is not null order by id`.execute(db);
  const makers = new Map<string, { submitted_by: string; approved_by: string | null }>();
  for (const r of rows.rows) {
    const key = `${r.provider_id} ${r.approved_at}`;
    if (!makers.has(key)) makers.set(key, { submitted_by: r.submitted_by, approved_by: r.approved_by });
  }
  return makers;
}

/** Who withdrew each publication, as the audit trail names them (withdrawals before the trail have no one). */
async function withdrawalActors(db: Kysely<unknown>): Promise<Map<number, string>> {
  const rows = await sql<{ actor_name: string | null; details: string }>`
    select actor_name, details from audit_log where action = 'provider.withdrawn' order by seq`.execute(db);
  const actors = new Map<number, string>();
  for (const r of rows.rows) {
    const seq = Number((readJson(r.details) as { publication_seq?: unknown }).publication_seq);
    if (Number.isSafeInteger(seq) && r.actor_name !== null) actors.set(seq, r.actor_name);
  }
  return actors;
}

/** Appends one entry to the audit trail as the system ("migration 0012"), moving its head. */
async function appendEntry(db: Kysely<unknown>, note: { action: string; details: Record<string, unknown> }) {
  const head = (
    await sql<{ seq: number | string; hash: string }>`select seq, hash from audit_head where id = 1`.execute(db)
  ).rows[0];
  if (!head) throw new Error('the audit trail has no head (migration 0009 starts it)');
  const entry: AuditEntryBody = {
    seq: Number(head.seq) + 1,
    at: new Date().toISOString(),
    actor: { type: 'system', id: null, name: 'migration 0012' },
    action: note.action,
    subject: { type: 'store', id: 'store' },
    details: note.details,
    prev_hash: head.hash,
  };
  const hash = auditHash(entry);
  await sql`insert into audit_log (seq, at, actor_type, actor_id, actor_name, action, subject_type, subject_id, details, prev_hash, hash)
    values (${entry.seq}, ${entry.at}, ${entry.actor.type}, ${null}, ${entry.actor.name}, ${entry.action}, ${entry.subject.type}, ${entry.subject.id}, ${canonicalJson(entry.details)}, ${entry.prev_hash}, ${hash})`.execute(
    db,
  );
  await sql`update audit_head set seq = ${entry.seq}, hash = ${hash} where id = 1`.execute(db);
}
