import Table from 'cli-table3';
import { type Command, CommanderError } from 'commander';
import { asCliError, type CliError, EXIT_CODES, type ProblemLine } from './errors.js';

/** How a run reports: JSON for scripts or text for people, stacks only when debugging. */
export interface Mode {
  json: boolean;
  debug: boolean;
}

/** The options every command takes. */
export function withOutputOptions(command: Command): Command {
  return command
    .option('--json', 'print JSON for scripts instead of tables')
    .option('--debug', 'show stack traces on errors');
}

/** Read before parsing, so that even an option error is reported in the requested form. */
export function modeOf(args: readonly string[]): Mode {
  const before = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return { json: before.includes('--json'), debug: before.includes('--debug') };
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON value on one line: for a long-running command whose output is a stream of lines. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLines(...lines: string[]): void {
  for (const line of lines) process.stdout.write(`${line}\n`);
}

/** A plain table: no colours, so the text is the same in a terminal, a pipe or a file. */
export function renderTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  colWidths?: readonly number[],
): string {
  const wrapping = colWidths ? { colWidths: [...colWidths], wordWrap: true } : {};
  const table = new Table({ head: [...head], style: { head: [], border: [] }, ...wrapping });
  for (const row of rows) table.push([...row]);
  return table.toString();
}

/**
 * The one error path: a headline and one line per problem on stderr, the JSON
 * error object on stdout in --json mode, a stack only with --debug. Returns the exit code.
 */
export function reportError(error: unknown, mode: Mode): number {
  if (error instanceof CommanderError) return reportCommanderError(error, mode);
  const failure = asCliError(error);
  writeErrorLines(failure);
  if (mode.debug) writeStack(failure);
  if (mode.json) {
    const problems = failure.problems.length > 0 ? { problems: failure.problems } : {};
    printJson({ error: failure.headline, code: failure.code, ...problems, ...failure.details });
  }
  return failure.exitCode;
}

function writeErrorLines(failure: CliError): void {
  process.stderr.write(`error: ${failure.headline}\n`);
  for (const p of failure.problems) process.stderr.write(`  ${problemText(p)}\n`);
}

/** "file: path: message", leaving out what a problem does not have. */
function problemText(p: ProblemLine): string {
  return [p.file, p.path, p.message].filter((part) => part !== undefined && part !== '').join(': ');
}

/** Commander has already written its message to stderr; help and --version are successes. */
function reportCommanderError(error: CommanderError, mode: Mode): number {
  if (error.exitCode === 0) return 0;
  if (mode.json) printJson({ error: error.message.replace(/^error: /, ''), code: 'usage' });
  return EXIT_CODES.usage;
}

function writeStack(failure: CliError): void {
  const origin = failure.cause instanceof Error ? failure.cause : failure;
  if (origin.stack) process.stderr.write(`${origin.stack}\n`);
}
