import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Signed statements (decision 0026):
 *
 * - `signing_keys`: every Ed25519 key that signed or signs, by `kid`: its raw public key (base64url), when it started
 *   signing and, once retired, when it stopped. The private key is kept sealed under the master key for keys the
 *   service generated; a key given in SVC_SIGNING_KEY is never stored.
 * - `statements`: one signed statement per publication and withdrawal, in the order they were signed, each naming
 *   its provider's previous one; the statement's RFC 8785 text is kept as signed, with the signature and the key.
 *
 * Indicators published before get their statements at the next start of a process that can sign (services/
 * statements.ts backfillStatements): a migration has no signing key.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key_enc', 'text')
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text')
    .execute();

  await db.schema
    .createTable('statements')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('risk_indicator_id', 'text', (c) => c.notNull())
    // The publication (indicator_history.seq) a statement is about: the one published, or the one withdrawn.
    .addColumn('publication_seq', 'integer', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('statement_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull().references('signing_keys.kid'))
    .addColumn('signed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('statements_provider').on('statements').columns(['provider_id', 'id']).execute();
  await db.schema
    .createIndex('statements_indicator')
    .on('statements')
    .columns(['risk_indicator_id', 'type', 'id'])
    .execute();
  await db.schema
    .createIndex('statements_publication')
    .on('statements')
    .columns(['publication_seq', 'type'])
    .unique()
    .execute();
  // A store with nothing published has nothing to sign after the fact.
  await sql`insert into store_meta (key, value) select 'statements_backfilled', '1'
    where not exists (select 1 from indicator_history)`.execute(db);
}
