import type { Kysely } from 'kysely';
import { prepared } from '../prepared.js';
import type { ApiKeysTable, Database } from '../schema.js';

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Kysely<Database>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const keyByHash = prepared((db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.workspace_id',
      'api_keys.key_hash',
      'api_keys.tier',
      'api_keys.revoked_at',
      'api_keys.expires_at',
      'api_keys.last_used_at',
      'workspaces.mcp_enabled',
    ])
    .where('api_keys.key_hash', '=', keyHash),
);

/** The key with this hash, with its workspace's agent-tool flag; revoked and expired keys included (the caller decides). */
export async function findApiKeyByHash(db: Kysely<Database>, keyHash: string) {
  return (await keyByHash(db, keyHash))[0];
}

export async function listApiKeys(db: Kysely<Database>, workspaceId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function revokeApiKey(
  db: Kysely<Database>,
  id: string,
  at: string,
): Promise<'revoked' | 'already' | 'unknown'> {
  const row = await db.selectFrom('api_keys').select(['revoked_at']).where('id', '=', id).executeTakeFirst();
  if (!row) return 'unknown';
  if (row.revoked_at !== null) return 'already';
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return 'revoked';
}

export async function touchApiKey(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
