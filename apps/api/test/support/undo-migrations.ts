import { canonicalJson, readJson, sha256Hex } from '@svc/methodology';
import { sql } from 'kysely';
import type { Signer } from '../../src/services/shared/signer.js';
import type { Store } from '../../src/store/store.js';
import { TEST_SIGNER } from './context.js';

/**
 * Takes a store back to before migration 0012, as a store that never had rating actions would be: no actions table,
 * no outlook or watch on the providers, no action named by the change feed, 0010's rule of one statement per
 * publication and withdrawal, and 0012 not recorded. The statements of actions go, and each provider's remaining
 * statements are chained again as 0010 chained them (each naming the one before it), re-signed by `signer`, the key
 * they were signed with (null: the statements are about to go too, as undoing 0010 does). A later migration run
 * derives the actions again.
 */
export async function undo0012(store: Store, signer: Signer | null = TEST_SIGNER): Promise<void> {
  const { db } = store;
  await undo0013(store);
  await db.schema.dropTable('rating_actions').execute();
  await db.deleteFrom('statements').where('type', '=', 'rating_action').execute();
  await db.schema.dropIndex('statements_rating_action').execute();
  await db.schema.dropIndex('statements_publication').execute();
  await db.schema.alterTable('statements').dropColumn('rating_action_id').execute();
  await db.schema
    .createIndex('statements_publication')
    .on('statements')
    .columns(['publication_seq', 'type'])
    .unique()
    .execute();
  if (signer) await rechain(store, signer);
  await db.schema.alterTable('changelog').dropColumn('rating_action_id').execute();
  for (const column of ['outlook', 'watch_direction', 'watch_since', 'watch_review_by']) {
    await db.schema.alterTable('providers').dropColumn(column).execute();
  }
  await db.deleteFrom('store_meta').where('key', '=', 'rating_action_seq').execute();
  await sql`delete from kysely_migration where name = '0012-rating-actions'`.execute(db);
}

/** Takes a store back to before migration 0013: its audit head does not know when its entry was written. */
export async function undo0013(store: Store): Promise<void> {
  await store.db.schema.alterTable('audit_head').dropColumn('at').execute();
  await sql`delete from kysely_migration where name = '0013-audit-time-and-name-keys'`.execute(store.db);
}

/** Each provider's statements, in the order signed, made to name the one before them again, and signed anew. */
async function rechain(store: Store, signer: Signer): Promise<void> {
  const rows = await store.db.selectFrom('statements').selectAll().orderBy('id').execute();
  const last = new Map<string, string>();
  for (const row of rows) {
    const statement = readJson(row.statement) as Record<string, unknown>;
    const previous = last.get(row.provider_id) ?? null;
    if (statement.prev_statement_sha256 !== previous) {
      if (row.kid !== signer.kid) throw new Error(`statement ${row.id} was signed by ${row.kid}, not ${signer.kid}`);
      const text = canonicalJson({ ...statement, prev_statement_sha256: previous });
      await store.db
        .updateTable('statements')
        .set({ statement: text, statement_sha256: sha256Hex(text), signature: signer.sign(Buffer.from(text, 'utf8')) })
        .where('id', '=', row.id)
        .execute();
      last.set(row.provider_id, sha256Hex(text));
    } else {
      last.set(row.provider_id, row.statement_sha256);
    }
  }
}
