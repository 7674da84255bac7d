import type { SigningKeySummary } from '@svc/api';
import type { Command } from 'commander';
import { type Environment, masterSecretBox, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface SigningKeyOptions {
  json?: boolean;
}

export function registerSigningKey(program: Command, env: Environment): void {
  const group = program
    .command('signing-key')
    .description(
      'the Ed25519 keys publications and withdrawals are signed with; the public halves are at /.well-known/svc-signing-keys.json',
    );
  withOutputOptions(
    group.command('list').description('every key, oldest first: kid, status, from, until, where its private half is'),
  ).action(async (options: SigningKeyOptions) => {
    const ops = await operations(env);
    const keys = await withOperator(ops, (ctx) => ops.api.listSigningKeys(ctx));
    if (options.json) {
      printJson(keys);
      return;
    }
    if (keys.length === 0) {
      printLines('no signing key yet: the first publication generates one (or give one in SVC_SIGNING_KEY)');
      return;
    }
    printLines(renderTable(['Kid', 'Status', 'Signs from', 'Retired at', 'Private key'], keys.map(row)));
  });
  withOutputOptions(
    group
      .command('rotate')
      .description(
        "bring a new signing key into use: the key of SVC_SIGNING_KEY when it is set and new to the store, otherwise one generated here and sealed under the master key; the previous key retires now and stays published, so what it signed keeps verifying (an admin's act, recorded in the audit trail)",
      ),
  ).action(async (options: SigningKeyOptions) => {
    const ops = await operations(env);
    const rotated = await withOperator(
      ops,
      (ctx) => ops.api.rotateSigningKey(ctx, { configured: ops.config.signingKey }),
      { changes: true, ...(ops.config.signingKey === null ? { box: masterSecretBox(ops) } : {}) },
    );
    if (options.json) printJson(rotated);
    else {
      const where = rotated.held === 'store' ? 'sealed in the store' : `held in ${ops.api.SIGNING_KEY_VARIABLE}`;
      printLines(
        `signing key ${rotated.kid} (${where}) is active from ${rotated.not_before}; the previous key is retired`,
      );
    }
  });
}

function row(k: SigningKeySummary): string[] {
  return [
    k.kid,
    k.status,
    k.not_before,
    k.not_after ?? '-',
    k.held === 'store' ? 'sealed in the store' : 'SVC_SIGNING_KEY',
  ];
}
