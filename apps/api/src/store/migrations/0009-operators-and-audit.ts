import { canonicalJson, sha256Hex } from '@svc/methodology';
import { type Kysely, sql } from 'kysely';
import { type AuditEntryBody, auditHash, GENESIS_HASH } from '../audit-chain.js';
import type { Dialect } from '../dialect.js';

/**
 * The record's governance (decision 0025):
 *
 * - `operators`: the people of the risk team, each with roles and a token stored as its SHA-256.
 * - `approved_inputs` gains the submitter's and the approver's operator ids, so maker-checker compares people,
 *   not typed names (null for submissions made before, or in open mode).
 * - `terms_acceptances`: who accepted which terms for a workspace, and when. A workspace that exists now keeps
 *   working: it gets an acceptance of the API terms (and of the agent-tool preview terms when its agent tools are
 *   enabled) recorded by the system and dated now.
 * - `audit_log` and `audit_head`: the hash-chained trail and its head, kept apart from the rows. The chain starts
 *   with one `audit.started` entry recording the state found: counts, the last publication, and a digest of the
 *   indicators in force.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // Lower case: names are unique as people read them ("Alice" and "alice" are one person).
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('token_issued_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema.alterTable('approved_inputs').addColumn('submitted_by_id', 'text').execute();
  await db.schema.alterTable('approved_inputs').addColumn('approved_by_id', 'text').execute();

  await db.schema
    .createTable('terms_acceptances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('terms_version', 'text', (c) => c.notNull())
    .addColumn('administrator', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addColumn('recorded_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('terms_acceptances_workspace')
    .on('terms_acceptances')
    .columns(['workspace_id', 'terms', 'accepted_at'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'seq']).execute();
  await db.schema
    .createTable('audit_head')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();

  const now = new Date().toISOString();
  const workspaces = await sql<{ id: string; mcp_enabled: number }>`select id, mcp_enabled from workspaces`.execute(db);
  let accepted = 0;
  for (const ws of workspaces.rows) {
    for (const terms of Number(ws.mcp_enabled) === 1 ? ['api', 'agent_tools_preview'] : ['api']) {
      accepted++;
      await sql`insert into terms_acceptances (id, workspace_id, terms, terms_version, administrator, email, accepted_at, recorded_by)
        values (${`ta_migrated_${accepted}`}, ${ws.id}, ${terms}, ${'before-0009'}, ${'system (recorded at migration)'}, ${null}, ${now}, ${'system'})`.execute(
        db,
      );
    }
  }

  const first: AuditEntryBody = {
    seq: 1,
    at: now,
    actor: { type: 'system', id: null, name: 'migration 0009' },
    action: 'audit.started',
    subject: { type: 'store', id: 'store' },
    details: { found: await stateFound(db), terms_recorded_at_migration: accepted },
    prev_hash: GENESIS_HASH,
  };
  const hash = auditHash(first);
  await sql`insert into audit_log (seq, at, actor_type, actor_id, actor_name, action, subject_type, subject_id, details, prev_hash, hash)
    values (1, ${first.at}, ${first.actor.type}, ${null}, ${first.actor.name}, ${first.action}, ${first.subject.type}, ${first.subject.id}, ${canonicalJson(first.details)}, ${first.prev_hash}, ${hash})`.execute(
    db,
  );
  await sql`insert into audit_head (id, seq, hash) values (1, 1, ${hash})`.execute(db);
}

/**
 * What the store held when its chain started: how many rows of each kind, the last publication, and the SHA-256 of
 * the indicators in force (the lines `provider_id risk_indicator_id`, sorted, each ending in a line feed).
 */
async function stateFound(db: Kysely<unknown>): Promise<Record<string, unknown>> {
  const count = async (table: string, where = sql``) =>
    Number(
      (await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} ${where}`.execute(db)).rows[0]
        ?.n ?? 0,
    );
  const last = (
    await sql<{ seq: number | string; provider_id: string; risk_indicator_id: string }>`
      select seq, provider_id, risk_indicator_id from indicator_history order by seq desc limit 1`.execute(db)
  ).rows[0];
  const current = (
    await sql<{ id: string; current_indicator_id: string }>`
      select id, current_indicator_id from providers where current_indicator_id is not null`.execute(db)
  ).rows
    .map((r) => `${r.id} ${r.current_indicator_id}\n`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    providers: await count('providers'),
    indicators_in_force: current.length,
    indicators_in_force_sha256: sha256Hex(current.join('')),
    publications: await count('indicator_history'),
    last_publication: last
      ? { seq: Number(last.seq), provider_id: last.provider_id, risk_indicator_id: last.risk_indicator_id }
      : null,
    withdrawals: await count('withdrawals'),
    submissions_pending: await count('approved_inputs', sql`where status = 'PENDING'`),
    submissions_approved: await count('approved_inputs', sql`where status = 'APPROVED'`),
    framework_releases: await count('framework_releases'),
    workspaces: await count('workspaces'),
    api_keys: await count('api_keys'),
    webhook_endpoints: await count('webhook_endpoints', sql`where status != 'deleted'`),
    issuances: await count('issuances'),
    coverage_requests: await count('coverage_requests'),
  };
}
