import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a run of the CLI reads and writes: the process's streams in `svc`, buffers in the suites. */
export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** One run's state: its streams, the exit code it sets, and what it has said once already. */
interface RunState {
  io: Io;
  exitCode: number;
  /** The open-mode warning is said once per run. */
  warnedOpenMode: boolean;
}

const runs = new AsyncLocalStorage<RunState>();

/** The process's own streams, for anything written outside `withIo` (nothing is, in a run of the CLI). */
function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}

/** Runs `work` with these streams as the current run's: everything it writes and the exit code it sets stay its own. */
export async function withIo(io: Io, work: () => Promise<void>): Promise<number> {
  const state: RunState = { io, exitCode: 0, warnedOpenMode: false };
  await runs.run(state, work);
  return state.exitCode;
}

function current(): RunState {
  return runs.getStore() ?? { io: processIo(), exitCode: 0, warnedOpenMode: false };
}

/** The current run's streams. */
export function io(): Io {
  return current().io;
}

/** Writes to the run's standard output. */
export function writeOut(text: string): void {
  current().io.stdout.write(text);
}

/** Writes to the run's standard error. */
export function writeErr(text: string): void {
  current().io.stderr.write(text);
}

/** Sets the exit code the run ends with (EXIT_CODES: 0 done, 1 refused or not reproduced, 2 unusable). */
export function setExitCode(code: number): void {
  current().exitCode = code;
}

/** Whether this run said a thing once already (the open-mode warning), marking it said. */
export function saidOnce(): boolean {
  const state = current();
  const said = state.warnedOpenMode;
  state.warnedOpenMode = true;
  return said;
}

/**
 * The process's streams for `svc` itself, ending the output quietly when its reader closes it, as Unix tools do: EPIPE
 * on standard output or standard error is not a failure of the command, which finishes its work and keeps its own
 * exit code; nothing more is written to the closed stream. Any other write failure (a full disk behind `>`) is
 * reported on standard error and ends the process with the exit code of a place it cannot write (2).
 */
export function processStreams(cannotWrite: number): Io {
  let closed = false;
  const closedByReader = (error: NodeJS.ErrnoException) =>
    error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED';
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    closed = true;
    if (closedByReader(error)) return;
    process.stderr.write(`error: cannot write to standard output: ${error.message}\n`);
    process.exit(cannotWrite);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (!closedByReader(error)) process.exit(cannotWrite);
  });
  return {
    stdout: {
      write: (text: string) => closed || process.stdout.write(text),
      get isTTY() {
        return process.stdout.isTTY === true;
      },
    },
    stderr: process.stderr,
    stdin: process.stdin,
  };
}
