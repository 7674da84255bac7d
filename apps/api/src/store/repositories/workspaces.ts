import type { Kysely } from 'kysely';
import type { Database, WorkspacesTable } from '../schema.js';

export type WorkspaceRow = WorkspacesTable;

export async function insertWorkspace(db: Kysely<Database>, row: WorkspaceRow): Promise<void> {
  await db.insertInto('workspaces').values(row).execute();
}

export async function findWorkspace(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateWorkspace(
  db: Kysely<Database>,
  id: string,
  changes: Partial<
    Pick<
      WorkspaceRow,
      'webhook_secret_enc' | 'previous_webhook_secret_enc' | 'previous_secret_expires_at' | 'mcp_enabled' | 'name'
    >
  >,
): Promise<boolean> {
  const result = await db.updateTable('workspaces').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
