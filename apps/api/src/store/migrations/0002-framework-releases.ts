import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/** The framework versions published: which definition (by hash), who signed it off, from when it is current. */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('framework_releases')
    .addColumn('version', 'text', (c) => c.primaryKey())
    .addColumn('framework_version', 'text', (c) => c.notNull())
    .addColumn('framework_sha256', 'text', (c) => c.notNull())
    .addColumn('signed_off_by', 'text', (c) => c.notNull())
    .addColumn('signed_off_at', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('framework_releases_effective')
    .on('framework_releases')
    .columns(['effective_date', 'version'])
    .execute();
}
