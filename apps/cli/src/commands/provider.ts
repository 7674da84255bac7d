import type { Command } from 'commander';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { providerIdArgument } from '../provider-id.js';

interface ProviderOptions {
  json?: boolean;
}

interface WithdrawOptions extends ProviderOptions {
  reason?: string;
}

export function registerProvider(program: Command, env: Environment): void {
  const group = program.command('provider').description('providers: list them, withdraw one from publication');
  withOutputOptions(
    group.command('list').description('every provider: planner type, score and band in force, withdrawn or not'),
  ).action(async (options: ProviderOptions) => {
    await listProviders(env, options);
  });
  withOutputOptions(
    group
      .command('withdraw')
      .description(
        'withdraw a published provider: it leaves every score list at once and the change feed gets a WITHDRAWN entry; publishing it again reinstates it',
      )
      .argument('<provider_id>', 'the provider id (a UUID), as provider list prints it', providerIdArgument)
      .option('--reason <text>', 'why, for the record of this command (1 to 2000 characters)'),
  ).action(async (providerId: string, options: WithdrawOptions) => {
    await withdraw(env, providerId, options);
  });
}

async function listProviders(env: Environment, options: ProviderOptions): Promise<void> {
  const ops = await operations(env);
  const providers = await withOperator(ops, (ctx) => ops.api.listProviders(ctx));
  if (options.json) {
    printJson(providers);
    return;
  }
  if (providers.length === 0) {
    printLines('no providers yet');
    return;
  }
  printLines(
    renderTable(
      ['Provider id', 'Name', 'Planner type', 'Score', 'Band', 'Withdrawn'],
      providers.map((p) => [
        p.id,
        p.name,
        p.planner_type,
        p.final_score === null ? '-' : p.final_score.toFixed(2),
        p.risk_band ?? '-',
        p.withdrawn_at ?? 'no',
      ]),
    ),
  );
}

async function withdraw(env: Environment, providerId: string, options: WithdrawOptions): Promise<void> {
  const ops = await operations(env);
  const withdrawal = await withOperator(
    ops,
    (ctx) => ops.api.withdrawProvider(ctx, { providerId, reason: options.reason }),
    { changes: true, signsAs: { role: 'approver', doing: 'withdrawing a provider' } },
  );
  if (options.json) {
    printJson(withdrawal);
    return;
  }
  printLines(
    `provider ${withdrawal.provider_id} (${withdrawal.provider_name}) withdrawn at ${withdrawal.withdrawn_at}`,
    `was ${withdrawal.previous_score.toFixed(2)} ${withdrawal.previous_band} under ${withdrawal.framework_version}; the change feed has a WITHDRAWN entry`,
  );
}
