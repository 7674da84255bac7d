import { createRequire } from 'node:module';
import { Command } from 'commander';
import { registerAudit } from './commands/audit.js';
import { registerDb } from './commands/db.js';
import { registerInputs } from './commands/inputs.js';
import { registerIssuances } from './commands/issuances.js';
import { registerKey } from './commands/key.js';
import { registerMethodology } from './commands/methodology.js';
import { registerOperator } from './commands/operator.js';
import { registerProvider } from './commands/provider.js';
import { registerPublish } from './commands/publish.js';
import { registerRatingActions } from './commands/rating-actions.js';
import { registerRequests } from './commands/requests.js';
import { registerScore } from './commands/score.js';
import { registerServe } from './commands/serve.js';
import { registerSigningKey } from './commands/signing-key.js';
import { registerStatus } from './commands/status.js';
import { registerVerify } from './commands/verify.js';
import { registerWatchlist } from './commands/watchlist.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerWorkspace } from './commands/workspace.js';
import { EXIT_RULE } from './errors.js';
import { type Io, setExitCode, withIo, writeErr, writeOut } from './io.js';
import type { Environment } from './operations.js';
import { modeOf, reportError } from './output.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The `svc` program; subcommands inherit exitOverride, so every failure comes back to `run`.
 * `env` is the process environment: the operations commands read their configuration from it.
 */
export function buildProgram(env: Environment = {}): Command {
  const program = new Command('svc')
    // Commander's own messages (usage errors, help, the version) go to the run's streams too.
    .configureOutput({ writeOut, writeErr })
    .description(
      'Risk Indicator Scoring Service: score approved inputs, verify computation packages, read frameworks, submit, approve and publish inputs, run the API, dispatch its webhooks and administer it',
    )
    .version(version)
    .exitOverride()
    .showSuggestionAfterError();
  registerScore(program, env);
  registerVerify(program);
  registerMethodology(program, env);
  registerInputs(program, env);
  registerPublish(program, env);
  registerProvider(program, env);
  registerRatingActions(program, env);
  registerWatchlist(program, env);
  registerIssuances(program, env);
  registerRequests(program, env);
  registerServe(program, env);
  registerStatus(program, env);
  registerDb(program, env);
  registerWorkspace(program, env);
  registerKey(program, env);
  registerWebhooks(program, env);
  registerOperator(program, env);
  registerAudit(program, env);
  registerSigningKey(program, env);
  withExitRule(program);
  return program;
}

/** Every command's --help ends with the one exit rule. */
function withExitRule(command: Command): void {
  command.addHelpText('after', `\n${EXIT_RULE}`);
  for (const sub of command.commands) withExitRule(sub);
}

/** What a run reads and writes: the environment (the configuration) and the three streams. */
export interface RunOptions extends Partial<Io> {
  env?: Environment;
}

/**
 * Runs one command line (`argv` as process.argv has it: the node binary and the script first) with these streams
 * and environment, and returns the exit code (EXIT_CODES: 0 done, 1 refused or not reproduced, 2 bad usage or
 * unusable input). Nothing of the process is read or written: `svc` passes the process's own; the suites their own.
 */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  const io: Io = {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    stdin: options.stdin ?? process.stdin,
  };
  return withIo(io, async () => {
    try {
      await buildProgram(options.env ?? {}).parseAsync([...argv]);
    } catch (error) {
      setExitCode(reportError(error, modeOf(argv.slice(2))));
    }
  });
}
