import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { type Environment, masterSecretBox, type Operations, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { KEY_COLUMNS, keyRow } from './key.js';

interface WorkspaceOptions {
  json?: boolean;
}

interface TermsOptions extends WorkspaceOptions {
  administrator: string;
  email: string;
  termsVersion?: string;
  preview?: boolean;
}

interface RotateOptions extends WorkspaceOptions {
  overlap: string;
}

/** How long the previous secret keeps signing after a rotation, unless --overlap says otherwise. */
const DEFAULT_OVERLAP = '24h';

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
      .command('list')
      .description('every workspace, oldest first: id, name, created, agent tools, keys (active/all)'),
  ).action(async (options: WorkspaceOptions) => {
    await listWorkspaces(env, options);
  });
  withOutputOptions(
    group
      .command('show')
      .description('one workspace: name, created, agent tools, signing-secret overlap, webhook endpoints, every key')
      .argument('<id>', 'the workspace id (ws_...), as workspace list prints it'),
  ).action(async (id: string, options: WorkspaceOptions) => {
    await showWorkspace(env, id, options);
  });
  withOutputOptions(
    group
      .command('rotate-secret')
      .description(
        'issue a new webhook signing secret, shown once, here; the previous one keeps signing every delivery too (a second signature) for the overlap',
      )
      .argument('<id>', 'the workspace id (ws_...)')
      .option(
        '--overlap <duration>',
        'how long the previous secret still signs, up to 7d, e.g. 30m, 24h or 7d; 0 ends it at once',
        DEFAULT_OVERLAP,
      ),
  ).action(async (id: string, options: RotateOptions) => {
    await rotateSecret(env, id, options);
  });
  withOutputOptions(
    group
      .command('accept-terms')
      .description(
        "record that the workspace's authorised contract administrator accepted the API terms (and with --preview the agent-tool preview terms): keys are issued, and agent tools enabled, only after",
      )
      .argument('<id>', 'the workspace id (ws_...)')
      .requiredOption('--administrator <name>', 'the contract administrator who accepted them')
      .requiredOption('--email <address>', "the administrator's e-mail address")
      .option('--terms-version <version>', 'the version of the terms accepted (default: the current one)')
      .option('--preview', 'the agent-tool preview terms were accepted too'),
  ).action(async (id: string, options: TermsOptions) => {
    await acceptTerms(env, id, options);
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
  const created = await withOperator(ops, (ctx) => ops.api.createWorkspace(ctx, { name }), { box, changes: true });
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

async function rotateSecret(env: Environment, id: string, options: RotateOptions): Promise<void> {
  const ops = await operations(env);
  const overlapMs = overlapOf(ops, options.overlap);
  const box = masterSecretBox(ops);
  const rotated = await withOperator(ops, (ctx) => ops.api.rotateWebhookSecret(ctx, { workspaceId: id, overlapMs }), {
    box,
    changes: true,
  });
  if (options.json) {
    printJson(rotated);
    return;
  }
  const until = rotated.previous_secret_valid_until;
  printLines(
    `workspace ${rotated.workspace_id}: new webhook signing secret: ${rotated.webhook_secret}`,
    'Copy the secret now: it will not be shown again (the store keeps it encrypted).',
    until === null
      ? 'The previous secret no longer signs: receivers must verify with the new one from now on.'
      : `The previous secret still signs every delivery until ${until} (x-svc-signature-previous, and a second v1 entry in webhook-signature): switch receivers to the new one before then.`,
  );
}

/** The overlap in milliseconds: a duration such as 30m, 24h or 7d (or 0), at most 7 days; anything else is a usage error. */
function overlapOf(ops: Operations, text: string): number {
  const ms = text.trim() === '0' ? 0 : ops.api.parseDuration(text);
  if (ms === null || ms > ops.api.MAX_SECRET_OVERLAP_MS) {
    throw new CliError(
      'usage',
      `--overlap must be a duration from 0 to 7d, such as 30m, 24h or 7d (0 ends the previous secret at once), not "${text}"`,
    );
  }
  return ms;
}

async function acceptTerms(env: Environment, id: string, options: TermsOptions): Promise<void> {
  const ops = await operations(env);
  const accepted = await withOperator(
    ops,
    (ctx) =>
      ops.api.acceptTerms(ctx, {
        workspaceId: id,
        administrator: options.administrator,
        email: options.email,
        termsVersion: options.termsVersion,
        preview: options.preview === true,
      }),
    { changes: true },
  );
  if (options.json) {
    printJson({ workspace_id: id, accepted });
    return;
  }
  const first = accepted[0];
  printLines(
    `workspace ${id}: ${accepted.map((a) => termsName(a.terms)).join(' and ')} (version ${first?.terms_version}) accepted by ${first?.administrator} <${first?.email}>, recorded at ${first?.accepted_at}`,
    accepted.some((a) => a.terms === 'agent_tools_preview')
      ? `keys may be issued (svc key create --workspace ${id} ...) and agent tools enabled (svc workspace enable-mcp ${id})`
      : `keys may be issued: svc key create --workspace ${id} --tier TIER`,
  );
}

function termsName(terms: string): string {
  return terms === 'api' ? 'the API terms' : 'the agent-tool preview terms';
}

async function enableMcp(env: Environment, id: string, options: WorkspaceOptions): Promise<void> {
  const ops = await operations(env);
  await withOperator(ops, (ctx) => ops.api.enableMcp(ctx, { workspaceId: id, enabled: true }), { changes: true });
  if (options.json) printJson({ workspace_id: id, mcp_enabled: true });
  else printLines(`workspace ${id}: agent tools (MCP) enabled for its keys`);
}

async function listWorkspaces(env: Environment, options: WorkspaceOptions): Promise<void> {
  const ops = await operations(env);
  const workspaces = await withOperator(ops, (ctx) => ops.api.listWorkspaces(ctx));
  if (options.json) {
    printJson(workspaces);
    return;
  }
  if (workspaces.length === 0) {
    printLines('no workspaces yet: svc workspace create NAME makes one');
    return;
  }
  printLines(
    renderTable(
      ['Workspace id', 'Name', 'Created', 'Agent tools', 'Keys (active/all)'],
      workspaces.map((w) => [
        w.workspace_id,
        w.name,
        w.created_at,
        w.mcp_enabled ? 'enabled' : 'off',
        `${w.active_keys}/${w.keys}`,
      ]),
    ),
  );
}

async function showWorkspace(env: Environment, id: string, options: WorkspaceOptions): Promise<void> {
  const ops = await operations(env);
  const shown = await withOperator(ops, (ctx) => ops.api.showWorkspace(ctx, { workspaceId: id }));
  if (options.json) {
    printJson(shown);
    return;
  }
  const until = shown.previous_secret_valid_until;
  printLines(
    `workspace ${shown.workspace_id}: ${shown.name}`,
    `created: ${shown.created_at}`,
    `agent tools (MCP): ${shown.mcp_enabled ? 'enabled' : 'off'}`,
    `webhook signing secret: ${until === null ? 'one secret' : `the previous one also signs until ${until}`}`,
    `webhook endpoints: ${shown.webhook_endpoints}`,
    ...(['api', 'agent_tools_preview'] as const).map((terms) => {
      const a = shown.terms_accepted.find((t) => t.terms === terms);
      return a
        ? `${termsName(terms)}: version ${a.terms_version}, accepted by ${a.administrator}${a.email ? ` <${a.email}>` : ''} at ${a.accepted_at} (recorded by ${a.recorded_by})`
        : `${termsName(terms)}: not accepted`;
    }),
    shown.keys.length === 0 ? 'keys: none' : `keys:\n${renderTable(KEY_COLUMNS, shown.keys.map(keyRow))}`,
  );
}
