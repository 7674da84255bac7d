import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../operations.js';
import { pendingIds, publishedThenChanged, showSha, WORKED_ID } from '../review-support.js';
import { BIN } from '../svc.js';

/**
 * The approval's question at a terminal: a person at the keyboard, which only a process on a pseudo-terminal shows
 * (util-linux `script` runs the built `svc` on one, feeding it standard input).
 */
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('svc inputs approve at a terminal', () => {
  it.skipIf(!hasScript)('on a terminal it asks: anything but y approves nothing (exit 1); y approves', async () => {
    const vars = await publishedThenChanged();
    const atTerminal = (answer: string) =>
      spawnSync(
        'script',
        ['-qec', `'${process.execPath}' '${BIN}' inputs approve --all-pending --by bob`, '/dev/null'],
        {
          input: answer,
          encoding: 'utf8',
          timeout: 30_000,
          env: childEnv(vars),
        },
      );
    const no = atTerminal('n\n');
    expect(no.status).toBe(1);
    expect(no.stdout).toContain('Approve 1 submission? [y/N] ');
    expect(no.stdout).toContain('error: not confirmed; nothing was approved');
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
    const yes = atTerminal('y\n');
    expect(yes.status, yes.stdout).toBe(0);
    expect(yes.stdout).toContain('1 submission approved by bob');
    expect(await pendingIds(vars)).toEqual([]);
  });

  it.skipIf(!hasScript)(
    'on a terminal without --sha256 it shows the submission and asks: n approves nothing (exit 1); y approves what it showed',
    async () => {
      const vars = await publishedThenChanged();
      const sha = await showSha(vars);
      const atTerminal = (answer: string) =>
        spawnSync(
          'script',
          ['-qec', `'${process.execPath}' '${BIN}' inputs approve ${WORKED_ID} --by bob`, '/dev/null'],
          {
            input: answer,
            encoding: 'utf8',
            timeout: 30_000,
            env: childEnv(vars),
          },
        );
      const no = atTerminal('n\n');
      expect(no.status).toBe(1);
      expect(no.stdout).toContain(`Inputs sha256 ${sha}`);
      expect(no.stdout).toContain('Approve this submission, exactly as shown? [y/N] ');
      expect(no.stdout).toContain('error: not confirmed; nothing was approved');
      expect(await pendingIds(vars)).toEqual([WORKED_ID]);
      const yes = atTerminal('y\n');
      expect(yes.status, yes.stdout).toBe(0);
      expect(yes.stdout).toContain('1 submission approved by bob');
      expect(await pendingIds(vars)).toEqual([]);
    },
  );
});
