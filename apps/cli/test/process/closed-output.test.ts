import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { afterOpenModeWarning, childEnv, type Env, embedded, svcIn } from '../operations.js';
import { BIN, pins, STACK_FRAME, WORKED_EXAMPLE } from '../svc.js';

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';

interface Ended {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs the built CLI with its standard output going to a reader that has already gone, as
 * `svc … | head -1` is once head has its line: the read end of the pipe is closed before the
 * command writes anything, so every write meets EPIPE.
 */
function intoClosedPipe(vars: Env, ...args: string[]): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} did not end within 30 s; stderr: ${stderr}`));
    }, 30_000);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stderr });
    });
  });
}

/** The same through a real shell pipeline into `head -1`, with the CLI's own exit status. */
function throughHead(vars: Env, ...args: string[]): Promise<Ended & { first: string }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('bash', ['-c', `${quoted} | head -1; echo "status \${PIPESTATUS[0]}"`], {
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    child.once('close', (_code, signal) => {
      const [first = '', statusLine = ''] = out.split('\n');
      resolve({ status: Number(statusLine.replace('status ', '')), signal, stderr, first });
    });
  });
}

/** `openMode`: the command changes the record of a store without operators, so its stderr is the one warning. */
function expectQuietEnd(run: Ended, what: string, { exit = 0, openMode = false } = {}): void {
  expect(run.stderr, what).not.toMatch(STACK_FRAME);
  expect(run.stderr, what).not.toContain('EPIPE');
  expect(openMode ? afterOpenModeWarning(run.stderr) : run.stderr, what).toBe('');
  expect(run.signal, what).toBeNull();
  expect(run.status, what).toBe(exit);
}

describe('svc: a closed standard output ends the command quietly', () => {
  it('score, score --json, methodology show and --help, offline', async () => {
    const vars = await embedded();
    for (const args of [
      ['score', WORKED_EXAMPLE],
      ['score', WORKED_EXAMPLE, '--json'],
      ['methodology', 'show'],
      ['methodology', 'show', '--json'],
      ['--help'],
    ]) {
      expectQuietEnd(await intoClosedPipe(vars, ...args), args.join(' '));
    }
  });

  it('inputs import and approve, publish and provider withdraw do their work and exit 0', async () => {
    const vars = await embedded();
    const openMode = { openMode: true };
    expectQuietEnd(await intoClosedPipe(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice'), 'import', openMode);
    expectQuietEnd(
      await intoClosedPipe(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob'),
      'approve',
      openMode,
    );
    expectQuietEnd(await intoClosedPipe(vars, 'publish', WORKED_ID), 'publish', openMode);
    expectQuietEnd(await intoClosedPipe(vars, 'provider', 'withdraw', WORKED_ID), 'withdraw', openMode);
    // The work was done although nobody read the output.
    const list = await svcIn(vars, 'provider', 'list', '--json');
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: WORKED_ID, withdrawn: true }]);
  });

  it('keeps the exit code of the work: a refused publication still exits 1', async () => {
    const vars = await embedded();
    const run = await intoClosedPipe(vars, 'publish', WORKED_ID);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.status).toBe(1);
  });

  it('`svc methodology show | head -1` prints the first line; svc exits 0 without a word on stderr', async () => {
    const run = await throughHead(await embedded(), 'methodology', 'show');
    expect(run.first).toBe('Digital Credit Risk Framework (DCRF v1.0)');
    expectQuietEnd(run, 'methodology show | head -1');
  });
});
