import { createRequire } from 'node:module';
import { Command } from 'commander';
import { registerMethodology } from './commands/methodology.js';
import { registerScore } from './commands/score.js';
import { registerVerify } from './commands/verify.js';
import { modeOf, reportError } from './output.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The `svc` program; subcommands inherit exitOverride, so every failure comes back to `run`. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Risk Indicator Scoring Service: score approved inputs, verify computation packages, read frameworks')
    .version(version)
    .exitOverride()
    .showSuggestionAfterError();
  registerScore(program);
  registerVerify(program);
  registerMethodology(program);
  return program;
}

/** Runs one command line and returns the exit code: 0 done, 1 the data is wrong, 2 it could not be used. */
export async function run(argv: readonly string[]): Promise<number> {
  try {
    process.exitCode = 0;
    await buildProgram().parseAsync([...argv]);
    return Number(process.exitCode ?? 0);
  } catch (error) {
    return reportError(error, modeOf(argv.slice(2)));
  }
}
