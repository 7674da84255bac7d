import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_FRAME, svc, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

describe('svc: usage errors', () => {
  it("an unknown command gets commander's message and exit 2", async () => {
    const run = await svc('scroe', WORKED_EXAMPLE);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("error: unknown command 'scroe'");
  });

  it('an unknown option exits 2', async () => {
    const run = await svc('score', WORKED_EXAMPLE, '--colour');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("error: unknown option '--colour'");
  });

  it('a missing argument exits 2', async () => {
    expect((await svc('verify')).status).toBe(2);
    expect((await svc('methodology', 'diff', '1.0')).status).toBe(2);
  });

  it('a usage error in --json mode prints only a JSON error object on stdout', async () => {
    const run = await svc('score', WORKED_EXAMPLE, '--json', '--colour');
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: "unknown option '--colour'", code: 'usage' });
  });

  it('--help and --version succeed', async () => {
    expect((await svc('--help')).status).toBe(0);
    expect((await svc('score', '--help')).status).toBe(0);
    const version = await svc('--version');
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('svc: stack traces', () => {
  it('no failure prints a stack trace without --debug', async () => {
    const dir = await tempDir();
    const garbage = await writeTemp('garbage.json', 'not json', dir);
    const failures = [
      ['score', garbage],
      ['score', garbage, '--json'],
      ['score', join(dir, 'missing.json')],
      ['score', dir, '--json'],
      ['score', WORKED_EXAMPLE, '--date', '2026-13-01'],
      ['score', WORKED_EXAMPLE, '--date', '2026-01-01'],
      ['score', WORKED_EXAMPLE, '--framework', '0.1'],
      // A folder missing is made (the README's out/); a path through a file cannot be written.
      ['score', WORKED_EXAMPLE, '--package', join(garbage, 'folder', 'p.json')],
      ['verify', garbage],
      ['verify', WORKED_EXAMPLE],
      ['methodology', 'diff', '1.0', '7.0'],
      ['methodology', 'nope'],
      ['nope'],
      [],
    ];
    for (const args of failures) {
      const run = await svc(...args);
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr, args.join(' ')).not.toBe('');
      expect(`${run.stdout}\n${run.stderr}`, args.join(' ')).not.toMatch(STACK_FRAME);
    }
  });

  it('--debug shows the stack of a failure', async () => {
    const run = await svc('score', await writeTemp('garbage.json', 'not json'), '--debug');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(STACK_FRAME);
  });
});
