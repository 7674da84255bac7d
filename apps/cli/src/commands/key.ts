import type { KeySummary } from '@svc/api';
import type { Tier } from '@svc/contracts';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { type Environment, type Operations, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

/** What each tier may read (DESIGN.md); type-checked against the contracts' tiers, with no runtime import. */
const TIER_ENTITLEMENTS = {
  FREE: 'issuances and status',
  PROFESSIONAL: '+ scores, history, methodology, agent tools, webhooks',
  ENTERPRISE: '+ computation packages',
  CUSTOM: 'as ENTERPRISE, by agreement',
} as const satisfies Record<Tier, string>;

const TIER_HELP = Object.entries(TIER_ENTITLEMENTS)
  .map(([tier, reads]) => `${tier} (${reads})`)
  .join('; ');

interface KeyOptions {
  json?: boolean;
}

interface CreateOptions extends KeyOptions {
  workspace: string;
  tier: string;
  name?: string;
  expiresIn?: string;
}

interface ListOptions extends KeyOptions {
  workspace: string;
}

export function registerKey(program: Command, env: Environment): void {
  const group = program.command('key').description('API keys: issue, list and revoke');
  withOutputOptions(
    group
      .command('create')
      .description('issue an API key; the key is shown once, here (the store keeps only its SHA-256)')
      .requiredOption('--workspace <id>', 'the workspace the key belongs to (ws_...)')
      .requiredOption('--tier <tier>', `what the key may read: ${TIER_HELP}`)
      .option('--name <name>', 'a name for people: which integration or person holds the key (1 to 200 characters)')
      .option(
        '--expires-in <duration>',
        'how long the key works, up to 3650d, e.g. 90d or 12h; after that it is refused like a revoked key (default: no expiry)',
      ),
  ).action(async (options: CreateOptions) => {
    await createKey(env, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description("a workspace's keys: name, prefix, tier, created, expires, last used, status (never the key)")
      .requiredOption('--workspace <id>', 'the workspace (ws_...)'),
  ).action(async (options: ListOptions) => {
    await listKeys(env, options);
  });
  withOutputOptions(
    group
      .command('revoke')
      .description('revoke a key at once, on every instance')
      .argument('<key_id>', 'the key id (key_...), as key create and key list print it'),
  ).action(async (keyId: string, options: KeyOptions) => {
    await revokeKey(env, keyId, options);
  });
}

async function createKey(env: Environment, options: CreateOptions): Promise<void> {
  const ops = await operations(env);
  // Tiers are upper case; "professional" is read as PROFESSIONAL, anything else is refused by the API.
  const tier = options.tier.toUpperCase();
  const expiresInMs = options.expiresIn === undefined ? undefined : lifetimeOf(ops, options.expiresIn);
  const created = await withOperator(
    ops,
    (ctx) => ops.api.createKey(ctx, { workspaceId: options.workspace, tier, name: options.name, expiresInMs }),
    { changes: true },
  );
  if (options.json) {
    printJson({ key: created.key, key_id: created.key_id, name: created.name, expires_at: created.expires_at });
    return;
  }
  const named = created.name === null ? '' : ` "${created.name}"`;
  printLines(
    `key ${created.key_id}${named} created: ${created.tier} for workspace ${created.workspace_id}, ${
      created.expires_at === null ? 'no expiry' : `expires ${created.expires_at}`
    }`,
    created.key,
    'Copy the key now: it will not be shown again (the store keeps only its SHA-256). Send it as the x-api-key header.',
  );
}

/** A key's lifetime in milliseconds: a duration such as 90d, 12h or 30m, more than 0 and at most 3650d. */
function lifetimeOf(ops: Operations, text: string): number {
  const ms = ops.api.parseDuration(text);
  if (ms === null || ms <= 0 || ms > ops.api.MAX_KEY_LIFETIME_MS) {
    throw new CliError(
      'usage',
      `--expires-in must be a duration of more than 0 and at most 3650d, such as 90d, 12h or 30m, not "${text}"`,
    );
  }
  return ms;
}

async function listKeys(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const keys = await withOperator(ops, (ctx) => ops.api.listKeys(ctx, { workspaceId: options.workspace }));
  if (options.json) {
    printJson(keys);
    return;
  }
  if (keys.length === 0) {
    printLines(`workspace ${options.workspace} has no keys`);
    return;
  }
  printLines(renderTable(KEY_COLUMNS, keys.map(keyRow)));
}

async function revokeKey(env: Environment, keyId: string, options: KeyOptions): Promise<void> {
  const ops = await operations(env);
  const outcome = await withOperator(ops, (ctx) => ops.api.revokeKey(ctx, { keyId }), { changes: true });
  const status = outcome === 'revoked' ? 'revoked' : 'already_revoked';
  if (options.json) printJson({ key_id: keyId, status });
  else printLines(outcome === 'revoked' ? `key ${keyId} revoked` : `key ${keyId} was already revoked`);
}

/** The columns of a key table (key list, workspace show). */
export const KEY_COLUMNS = ['Key id', 'Name', 'Prefix', 'Tier', 'Created', 'Expires', 'Last used', 'Status'];

/** A key as a table row: its status says revoked (when), expired or active. */
export function keyRow(k: KeySummary): string[] {
  const status = k.status === 'revoked' ? `revoked ${k.revoked_at}` : k.status;
  return [
    k.key_id,
    k.name ?? '-',
    k.prefix,
    k.tier,
    k.created_at,
    k.expires_at ?? 'never',
    k.last_used_at ?? 'never',
    status,
  ];
}
