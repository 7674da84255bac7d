import type { Command } from 'commander';
import { type Environment, masterSecretBox, operations, withMigratedStore } from '../operations.js';
import { printJson, printLines, withOutputOptions } from '../output.js';

interface WorkspaceOptions {
  json?: boolean;
}

export function registerWorkspace(program: Command, env: Environment): void {
  const group = program.command('workspace').description('workspaces: the owners of API keys and webhook endpoints');
  withOutputOptions(
    group
      .command('create')
      .description('create a workspace; its webhook signing secret is shown once, here')
      .argument('<name>', 'a name for people, 1 to 200 characters'),
  ).action(async (name: string, options: WorkspaceOptions) => {
    await createWorkspace(env, name, options);
  });
  withOutputOptions(
    group
      .command('enable-mcp')
      .description("let the workspace's keys use the agent tool interface (/api/mcp)")
      .argument('<id>', 'the workspace id (ws_...)'),
  ).action(async (id: string, options: WorkspaceOptions) => {
    await enableMcp(env, id, options);
  });
}

async function createWorkspace(env: Environment, name: string, options: WorkspaceOptions): Promise<void> {
  const ops = await operations(env);
  const box = masterSecretBox(ops);
  const created = await withMigratedStore(ops, (store) =>
    ops.api.createWorkspace(store, box, ops.api.systemClock, name),
  );
  if (options.json) {
    printJson({ workspace_id: created.workspace_id, webhook_secret: created.webhook_secret });
    return;
  }
  printLines(
    `workspace ${created.workspace_id} created: ${name.trim()}`,
    `webhook signing secret: ${created.webhook_secret}`,
    'Copy the secret now: it will not be shown again (the store keeps it encrypted).',
  );
}

async function enableMcp(env: Environment, id: string, options: WorkspaceOptions): Promise<void> {
  const ops = await operations(env);
  await withMigratedStore(ops, (store) => ops.api.enableMcp(store, id, true));
  if (options.json) printJson({ workspace_id: id, mcp_enabled: true });
  else printLines(`workspace ${id}: agent tools (MCP) enabled for its keys`);
}
