import { FrameworkError, InputsError, JsonSyntaxError } from '@svc/methodology';

/**
 * Every way a command can fail, each with its exit code. One rule for every command:
 * 0 the work was done; 1 the work was refused (by the maker-checker rule, by the state of the
 * records, an id naming nothing in the store, a provider refused publication) or did not reproduce;
 * 2 bad usage or input that cannot be used (an unknown option, a value outside its domain, a file
 * that cannot be read, that is not JSON or not a valid document of the kind the command takes), or
 * a configuration, store or place to write that cannot be used.
 */
export const EXIT_CODES = {
  usage: 2,
  invalid_value: 2,
  unreadable: 2,
  not_json: 2,
  empty_directory: 2,
  invalid_inputs: 2,
  invalid_package: 2,
  unknown_framework: 2,
  cannot_write: 2,
  invalid_config: 2,
  store_unavailable: 2,
  master_key_unusable: 2,
  cannot_listen: 2,
  internal: 2,
  refused: 1,
  not_found: 1,
  does_not_reproduce: 1,
  does_not_verify: 1,
} as const;

/** The rule as `--help` and the README state it. */
export const EXIT_RULE = [
  'Exit status (every command):',
  '  0  done',
  '  1  the work was refused (maker-checker, the state of the records, an unknown id, a provider',
  '     refused publication), the package did not reproduce or its statement did not verify',
  '  2  bad usage or input that cannot be used (an unknown option, a value outside its domain, a file',
  '     that cannot be read, is not JSON or is not a valid document of its kind), or a configuration,',
  '     store or output that cannot be used',
].join('\n');

export type ErrorCode = keyof typeof EXIT_CODES;

/** One problem line; `file` names the input it belongs to, when there is one. */
export interface ProblemLine {
  file?: string;
  path: string;
  message: string;
}

export interface CliErrorOptions {
  /** The file the failure is about; the headline starts with it. */
  file?: string;
  problems?: readonly ProblemLine[];
  /** Merged into the JSON error object of --json mode. */
  details?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

/** A failure the CLI explains to its user: a headline and every problem, one per line. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly file: string | undefined;
  readonly problems: readonly ProblemLine[];
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: CliErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.file = options.file;
    this.problems = options.problems ?? [];
    this.details = options.details ?? {};
  }

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }

  get headline(): string {
    return this.file === undefined ? this.message : `${this.file}: ${this.message}`;
  }

  /** Its problems, or the failure itself as one problem of its file. */
  get problemLines(): readonly ProblemLine[] {
    if (this.problems.length > 0) return this.problems;
    return [{ ...(this.file === undefined ? {} : { file: this.file }), path: '', message: this.message }];
  }
}

/** The engine's errors as the CLI reports them; anything else is a bug (exit 2, stack only with --debug). */
export function asCliError(error: unknown, file?: string): CliError {
  if (error instanceof CliError) return error;
  const about = file === undefined ? {} : { file };
  if (error instanceof InputsError) {
    const problems = error.problems.map((p) => ({ ...about, path: p.path, message: p.message }));
    const count = `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
    return new CliError('invalid_inputs', `not a valid approved-inputs document (${count}); nothing was scored`, {
      ...about,
      problems,
      cause: error,
    });
  }
  if (error instanceof JsonSyntaxError) {
    return new CliError('not_json', `not valid JSON: ${error.message}`, { ...about, cause: error });
  }
  if (error instanceof FrameworkError) {
    const problems = error.problems.map((p) => ({ path: p.path, message: p.message }));
    return new CliError('unknown_framework', error.message, { problems, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError('internal', `unexpected failure: ${message}`, { ...about, cause: error });
}
