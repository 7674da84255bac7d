import { showControls } from '@svc/methodology';
import Table from 'cli-table3';
import { type Command, CommanderError } from 'commander';
import { asCliError, type CliError, EXIT_CODES, type ProblemLine } from './errors.js';
import { writeErr, writeOut } from './io.js';

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

/**
 * The characters of the free-text rule that JSON.stringify leaves as they are (DEL, the C1 controls,
 * the line separators, the bidi overrides and isolates, U+FFFE/U+FFFF): written as \u escapes, the
 * JSON means the same and a terminal shows them instead of obeying them. (JSON.stringify already
 * escapes the C0 controls and lone surrogates.)
 */
const JSON_UNSHOWN = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;

function visibleJson(text: string): string {
  return text.replace(JSON_UNSHOWN, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

export function printJson(value: unknown): void {
  writeOut(`${visibleJson(JSON.stringify(value, null, 2))}\n`);
}

/** One JSON value on one line: for a long-running command whose output is a stream of lines. */
export function printJsonLine(value: unknown): void {
  writeOut(`${visibleJson(JSON.stringify(value))}\n`);
}

/** Each line's text with control characters made visible (`\u001b`); the line breaks of a rendered table stay. */
export function printLines(...lines: string[]): void {
  for (const line of lines) writeOut(`${line.split('\n').map(showControls).join('\n')}\n`);
}

/**
 * A plain table: no colours, so the text is the same in a terminal, a pipe or a file. Every cell's
 * text is shown with its control characters made visible (a stored line break is `\u000a`, not a new
 * line); a cell given as a list of lines is shown one line under another.
 */
export function renderTable(
  head: readonly string[],
  rows: readonly (readonly (string | readonly string[])[])[],
  colWidths?: readonly number[],
): string {
  const wrapping = colWidths ? { colWidths: [...colWidths], wordWrap: true } : {};
  const table = new Table({ head: [...head], style: { head: [], border: [] }, ...wrapping });
  const cell = (c: string | readonly string[]) =>
    typeof c === 'string' ? showControls(c) : c.map(showControls).join('\n');
  for (const row of rows) table.push(row.map(cell));
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
  writeErr(`error: ${showControls(failure.headline)}\n`);
  for (const p of failure.problems) writeErr(`  ${showControls(problemText(p))}\n`);
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
  if (origin.stack) writeErr(`${origin.stack}\n`);
}
