import type { Tier } from '@svc/contracts';
import type { Command } from 'commander';
import { type Environment, operations, withMigratedStore } from '../operations.js';
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
      .requiredOption('--tier <tier>', `what the key may read: ${TIER_HELP}`),
  ).action(async (options: CreateOptions) => {
    await createKey(env, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description("a workspace's keys: prefix, tier, created, last used, revoked (never the key)")
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
  const created = await withMigratedStore(ops, (store) =>
    ops.api.createKey(store, ops.api.systemClock, options.workspace, tier),
  );
  if (options.json) {
    printJson({ key: created.key, key_id: created.key_id });
    return;
  }
  printLines(
    `key ${created.key_id} created: ${created.tier} for workspace ${created.workspace_id}`,
    created.key,
    'Copy the key now: it will not be shown again (the store keeps only its SHA-256). Send it as the x-api-key header.',
  );
}

async function listKeys(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const keys = await withMigratedStore(ops, (store) => ops.api.listKeys(store, options.workspace));
  if (options.json) {
    printJson(keys);
    return;
  }
  if (keys.length === 0) {
    printLines(`workspace ${options.workspace} has no keys`);
    return;
  }
  printLines(
    renderTable(
      ['Key id', 'Prefix', 'Tier', 'Created', 'Last used', 'Revoked'],
      keys.map((k) => [k.key_id, k.prefix, k.tier, k.created_at, k.last_used_at ?? 'never', k.revoked_at ?? 'no']),
    ),
  );
}

async function revokeKey(env: Environment, keyId: string, options: KeyOptions): Promise<void> {
  const ops = await operations(env);
  const outcome = await withMigratedStore(ops, (store) => ops.api.revokeKey(store, ops.api.systemClock, keyId));
  const status = outcome === 'revoked' ? 'revoked' : 'already_revoked';
  if (options.json) printJson({ key_id: keyId, status });
  else printLines(outcome === 'revoked' ? `key ${keyId} revoked` : `key ${keyId} was already revoked`);
}
