import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Columns are declared once for both engines; the one real difference is the identity column. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const double = sql`double precision`;

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('mcp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('planner_type', 'text', (c) => c.notNull())
    .addColumn('provider_subtype', 'text', (c) => c.notNull())
    .addColumn('yield_min', double, (c) => c.notNull())
    .addColumn('yield_max', double, (c) => c.notNull())
    .addColumn('current_indicator_id', 'text')
    .addColumn('current_seq', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('withdrawn_at', 'text')
    .execute();
  await db.schema.createIndex('providers_name').on('providers').columns(['name', 'id']).execute();
  await db.schema.createIndex('providers_type_name').on('providers').columns(['planner_type', 'name', 'id']).execute();

  await db.schema
    .createTable('approved_inputs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('inputs_sha256', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('submitted_by', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text')
    .addColumn('approved_at', 'text')
    .execute();
  await db.schema
    .createIndex('approved_inputs_provider')
    .on('approved_inputs')
    .columns(['provider_id', 'status', 'submitted_at'])
    .execute();

  await db.schema
    .createTable('risk_indicators')
    .addColumn('risk_indicator_id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('framework_version', 'text', (c) => c.notNull())
    .addColumn('final_score', double, (c) => c.notNull())
    .addColumn('risk_band', 'text', (c) => c.notNull())
    .addColumn('confidence', double, (c) => c.notNull())
    .addColumn('publishable', 'integer', (c) => c.notNull())
    .addColumn('scored_at', 'text', (c) => c.notNull())
    .addColumn('score_verified_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('indicator', 'text', (c) => c.notNull())
    .addColumn('package', 'text', (c) => c.notNull())
    .addColumn('inputs_sha256', 'text', (c) => c.notNull())
    .addColumn('framework_sha256', 'text', (c) => c.notNull())
    .addColumn('result_sha256', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('risk_indicators_provider').on('risk_indicators').columns(['provider_id']).execute();

  // One row per publication: re-publishing earlier inputs puts their (content-addressed) indicator on top again.
  await db.schema
    .createTable('indicator_history')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('risk_indicator_id', 'text', (c) => c.notNull().references('risk_indicators.risk_indicator_id'))
    .addColumn('score_verified_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('indicator_history_provider')
    .on('indicator_history')
    .columns(['provider_id', 'seq'])
    .execute();

  await db.schema
    .createTable('changelog')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('provider_name', 'text', (c) => c.notNull())
    .addColumn('change_type', 'text', (c) => c.notNull())
    .addColumn('previous_score', double)
    .addColumn('new_score', double)
    .addColumn('previous_band', 'text')
    .addColumn('new_band', 'text')
    .addColumn('framework_version', 'text', (c) => c.notNull())
    .addColumn('risk_indicator_id', 'text')
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('changelog_changed_at').on('changelog').columns(['changed_at', 'id']).execute();
  await db.schema.createIndex('changelog_provider').on('changelog').columns(['provider_id', 'id']).execute();

  await db.schema
    .createTable('issuances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('issuer_name', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text')
    .addColumn('instrument_name', 'text', (c) => c.notNull())
    .addColumn('ticker', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('target_amount', 'text', (c) => c.notNull())
    .addColumn('coupon_rate_pct', double)
    .addColumn('coupon_frequency', 'text')
    .addColumn('expected_pricing_date', 'text')
    .addColumn('announced_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('issuances_listing').on('issuances').columns(['announced_at', 'id']).execute();
  await db.schema
    .createIndex('issuances_status_type')
    .on('issuances')
    .columns(['status', 'type', 'announced_at'])
    .execute();

  await db.schema
    .createTable('coverage_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_name', 'text', (c) => c.notNull())
    .addColumn('website', 'text')
    .addColumn('contact_email', 'text')
    .addColumn('planner_type', 'text')
    .addColumn('message', 'text')
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('resolution', 'text')
    .execute();
  await db.schema
    .createIndex('coverage_requests_fingerprint')
    .on('coverage_requests')
    .columns(['fingerprint', 'received_at'])
    .execute();
  await db.schema
    .createIndex('coverage_requests_status')
    .on('coverage_requests')
    .columns(['status', 'received_at'])
    .execute();

  await db.schema
    .createTable('store_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
