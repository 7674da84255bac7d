import type { Kysely } from 'kysely';
import type { Database, TermsAcceptancesTable, WorkspacesTable } from '../schema.js';

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

/** Every workspace with how many keys it holds and how many still answer at `now`, oldest first. */
export async function listWorkspacesWithKeys(db: Kysely<Database>, now: string) {
  // ISO 8601 UTC texts of one form compare as the moments they name, on both engines.
  return db
    .selectFrom('workspaces')
    .leftJoin('api_keys', 'api_keys.workspace_id', 'workspaces.id')
    .select((eb) => [
      'workspaces.id',
      'workspaces.name',
      'workspaces.created_at',
      'workspaces.mcp_enabled',
      eb.fn.count<number | string>('api_keys.id').as('keys'),
      eb.fn
        .count<number | string>('api_keys.id')
        .filterWhere((w) =>
          w.and([
            w('api_keys.revoked_at', 'is', null),
            w.or([w('api_keys.expires_at', 'is', null), w('api_keys.expires_at', '>', now)]),
          ]),
        )
        .as('active_keys'),
    ])
    .groupBy(['workspaces.id', 'workspaces.name', 'workspaces.created_at', 'workspaces.mcp_enabled'])
    .orderBy('workspaces.created_at')
    .orderBy('workspaces.id')
    .execute();
}

/** How many webhook endpoints of the workspace are not deleted. */
export async function countWebhookEndpoints(db: Kysely<Database>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'deleted')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type TermsAcceptanceRow = TermsAcceptancesTable;

export async function insertTermsAcceptance(db: Kysely<Database>, row: TermsAcceptanceRow): Promise<void> {
  await db.insertInto('terms_acceptances').values(row).execute();
}

/** A workspace's latest acceptance of each terms document. */
export async function latestAcceptances(db: Kysely<Database>, workspaceId: string): Promise<TermsAcceptanceRow[]> {
  const rows = await db
    .selectFrom('terms_acceptances')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('accepted_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const latest = new Map<string, TermsAcceptanceRow>();
  for (const row of rows) if (!latest.has(row.terms)) latest.set(row.terms, row);
  return [...latest.values()];
}
