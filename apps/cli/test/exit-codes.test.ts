import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { childEnv, type Env, embedded, svcIn, withoutOpenModeWarning } from './operations.js';
import { BIN, pins, type Run, readExample, STACK_FRAME, svc, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const UNKNOWN_ID = '0f0f0f0f-0000-4000-8000-000000000000';

/**
 * One case of the exit rule: the command line, the status it must end with, and the `code` of its
 * JSON error object (null for a refusal reported as a result, such as a publication with a refused provider).
 */
interface Case {
  args: string[];
  exit: 0 | 1 | 2;
  code?: string | null;
}

/** The built CLI, without blocking the test worker (many runs in a row would starve its messages). */
function svcAsync(env: Env, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv(env), timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

let vars: Env;
let dir: string;
let packageFile: string;
/** A workspace that has accepted no terms: no key is issued for it, nor agent tools enabled. */
let workspaceId: string;

beforeAll(async () => {
  vars = await embedded();
  dir = await tempDir();
  packageFile = join(dir, 'worked.package.json');
  expect((await svc('score', WORKED_EXAMPLE, '--package', packageFile)).status).toBe(0);
  const tampered = JSON.parse(await readFile(packageFile, 'utf8')) as { steps: { final_score: string } };
  tampered.steps.final_score = '99.00';
  await writeTemp('tampered.package.json', tampered, dir);
  await writeTemp('garbage.json', 'not json', dir);
  await writeTemp('empty-object.json', {}, dir);
  const invalid = await readExample();
  (invalid as { evaluation_date: string }).evaluation_date = '2026-02-30';
  await writeTemp('invalid.json', invalid, dir);
  // A workspace, and the worked example submitted by alice, approved by bob and published.
  const workspace = await svcIn(vars, 'workspace', 'create', 'Exit rule', '--json');
  expect(workspace.status, workspace.stderr).toBe(0);
  workspaceId = (JSON.parse(workspace.stdout) as { workspace_id: string }).workspace_id;
  for (const args of [
    ['inputs', 'import', WORKED_EXAMPLE, '--by', 'alice'],
    ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob'],
    ['publish', WORKED_ID],
    ['inputs', 'import', WORKED_EXAMPLE, '--by', 'alice'],
  ]) {
    const run = await svcIn(vars, ...args);
    expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }
});

/** A file of the test folder, named in a case before the folder exists. */
const at = (name: string) => `{dir}/${name}`;

/** A case's command line with the test folder, package and workspace in place. */
function argsOf(c: Case): string[] {
  return c.args.map((a) => (a === '{package}' ? packageFile : a.replace('{dir}', dir).replace('{ws}', workspaceId)));
}

/** The contract administrator's name and address, as `workspace accept-terms` takes them. */
const ADMINISTRATOR = ['--administrator', 'Ada Admin', '--email', 'ada@example.com'];

/** Every command's failures, walked: the same kind of failure ends with the same status everywhere. */
const CASES: Case[] = [
  // 0: done
  { args: ['score', WORKED_EXAMPLE], exit: 0 },
  { args: ['verify', '{package}'], exit: 0 },
  { args: ['methodology', 'show'], exit: 0 },
  { args: ['provider', 'list'], exit: 0 },
  { args: ['inputs', 'diff', WORKED_ID], exit: 0 },
  { args: ['--help'], exit: 0 },
  { args: ['publish', '--help'], exit: 0 },
  { args: ['operator', 'list'], exit: 0 },
  { args: ['audit', 'list'], exit: 0 },
  { args: ['audit', 'verify'], exit: 0 },
  // 1: the work was refused, or did not reproduce
  { args: ['verify', at('tampered.package.json')], exit: 1, code: 'does_not_reproduce' },
  { args: ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'alice'], exit: 1, code: 'refused' },
  { args: ['inputs', 'approve', UNKNOWN_ID, '--sha256', '0'.repeat(64), '--by', 'bob'], exit: 1, code: 'not_found' },
  { args: ['inputs', 'show', UNKNOWN_ID], exit: 1, code: 'not_found' },
  { args: ['publish', UNKNOWN_ID], exit: 1, code: null },
  { args: ['provider', 'withdraw', UNKNOWN_ID], exit: 1, code: 'not_found' },
  { args: ['key', 'revoke', 'key_nope'], exit: 1, code: 'not_found' },
  { args: ['key', 'list', '--workspace', 'ws_nope'], exit: 1, code: 'not_found' },
  { args: ['workspace', 'enable-mcp', 'ws_nope'], exit: 1, code: 'not_found' },
  { args: ['workspace', 'enable-mcp', '{ws}'], exit: 1, code: 'refused' },
  { args: ['workspace', 'accept-terms', 'ws_nope', ...ADMINISTRATOR], exit: 1, code: 'not_found' },
  { args: ['key', 'create', '--workspace', '{ws}', '--tier', 'FREE'], exit: 1, code: 'refused' },
  { args: ['operator', 'add', 'Bob', '--role', 'analyst'], exit: 1, code: 'refused' },
  { args: ['operator', 'revoke', 'nobody'], exit: 1, code: 'not_found' },
  { args: ['requests', 'set', 'cr_nope', '--status', 'IN_REVIEW'], exit: 1, code: 'not_found' },
  { args: ['issuances', 'update', `iss_${'0'.repeat(24)}`, '--status', 'PRICING'], exit: 1, code: 'not_found' },
  // 2: bad usage
  { args: ['scroe', WORKED_EXAMPLE], exit: 2, code: 'usage' },
  { args: ['score', WORKED_EXAMPLE, '--colour'], exit: 2, code: 'usage' },
  { args: ['verify'], exit: 2, code: 'usage' },
  { args: ['score', WORKED_EXAMPLE, '--date', '2026-13-01'], exit: 2, code: 'usage' },
  { args: ['score', WORKED_EXAMPLE, '--framework', '0.1'], exit: 2, code: 'unknown_framework' },
  { args: ['publish', WORKED_ID, '--all'], exit: 2, code: 'usage' },
  { args: ['key', 'create', '--workspace', 'ws_nope', '--tier', 'GOLD'], exit: 2, code: 'invalid_value' },
  { args: ['workspace', 'create', '   '], exit: 2, code: 'invalid_value' },
  { args: ['workspace', 'rotate-secret', 'ws_nope', '--overlap', '9d'], exit: 2, code: 'usage' },
  { args: ['workspace', 'accept-terms', '{ws}', '--administrator', 'Ada Admin'], exit: 2, code: 'usage' },
  {
    args: ['workspace', 'accept-terms', '{ws}', '--administrator', 'Ada Admin', '--email', 'ada'],
    exit: 2,
    code: 'invalid_value',
  },
  { args: ['operator', 'add', 'Bob', '--role', 'wizard'], exit: 2, code: 'invalid_value' },
  { args: ['audit', 'list', '--limit', '0'], exit: 2, code: 'usage' },
  { args: ['audit', 'list', '--since', 'yesterday'], exit: 2, code: 'invalid_value' },
  { args: ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', '   '], exit: 2, code: 'invalid_value' },
  { args: ['inputs', 'approve', '--all-pending', '--by', 'bob'], exit: 2, code: 'usage' },
  { args: ['provider', 'withdraw', WORKED_ID, '--reason', ' '], exit: 2, code: 'invalid_value' },
  { args: ['provider', 'withdraw', 'not-a-uuid'], exit: 2, code: 'usage' },
  { args: ['publish', WORKED_ID, ''], exit: 2, code: 'usage' },
  { args: ['actions', 'list', '--provider', 'acme'], exit: 2, code: 'usage' },
  { args: ['issuances', 'list', '--status', 'OPEN'], exit: 2, code: 'invalid_value' },
  { args: ['requests', 'list', '--status', 'OPEN'], exit: 2, code: 'invalid_value' },
  { args: ['methodology', 'publish', '1.0', '--signed-off-by', ' '], exit: 2, code: 'invalid_value' },
  { args: ['methodology', 'publish', '7.0', '--signed-off-by', 'Dana Risk'], exit: 2, code: 'unknown_framework' },
  // 2: input that cannot be used, whichever command reads it
  { args: ['score', at('missing.json')], exit: 2, code: 'unreadable' },
  { args: ['score', at('garbage.json')], exit: 2, code: 'not_json' },
  { args: ['score', at('invalid.json')], exit: 2, code: 'invalid_inputs' },
  { args: ['verify', at('missing.json')], exit: 2, code: 'unreadable' },
  { args: ['verify', at('garbage.json')], exit: 2, code: 'not_json' },
  { args: ['verify', at('empty-object.json')], exit: 2, code: 'invalid_package' },
  { args: ['inputs', 'import', at('missing.json'), '--by', 'alice'], exit: 2, code: 'unreadable' },
  { args: ['inputs', 'import', at('garbage.json'), '--by', 'alice'], exit: 2, code: 'not_json' },
  { args: ['inputs', 'import', at('invalid.json'), '--by', 'alice'], exit: 2, code: 'invalid_inputs' },
];

describe('svc: one exit rule for every command (0 done, 1 refused or not reproduced, 2 bad usage or unusable input)', () => {
  for (const c of CASES) {
    it(`svc ${c.args.join(' ')}: exit ${c.exit}${c.code ? ` (${c.code})` : ''}, in text and in --json mode`, async () => {
      const args = argsOf(c);
      const run = await svcIn(vars, ...args);
      expect(run.status, run.stderr).toBe(c.exit);
      expect(run.stderr).not.toMatch(STACK_FRAME);
      if (c.exit === 0) return;
      // A record-changing command on this store (no operators) warns of open mode first.
      if (c.code !== null) expect(withoutOpenModeWarning(run.stderr)).toMatch(/^error: /);
      const json = await svcIn(vars, ...args, '--json');
      expect(json.status).toBe(c.exit);
      if (c.code !== null) expect(JSON.parse(json.stdout)).toMatchObject({ code: c.code });
    });
  }

  it('the built `svc`, as its own process, ends with the same statuses a shell sees: one case of each', async () => {
    const one = (exit: number) =>
      CASES.find((c) => c.exit === exit && c.code !== null) ?? CASES.find((c) => c.exit === exit);
    for (const c of [one(0), one(1), one(2)]) {
      if (!c) throw new Error('the cases hold every status');
      const args = argsOf(c);
      const run = await svcAsync(vars, ...args);
      expect(run.status, `svc ${args.join(' ')}\n${run.stderr}`).toBe(c.exit);
      expect(run.stderr).not.toMatch(STACK_FRAME);
      const json = await svcAsync(vars, ...args, '--json');
      expect(json.status).toBe(c.exit);
      if (c.exit !== 0 && c.code) expect(JSON.parse(json.stdout)).toMatchObject({ code: c.code });
    }
  });

  it('a configuration that cannot be used exits 2', async () => {
    const run = await svcIn({ ...vars, SVC_STORE_TIMEOUT_MS: 'soon' }, 'provider', 'list', '--json');
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ code: 'invalid_config' });
  });

  it('--help of the program and of every command states the rule', async () => {
    for (const args of [
      ['--help'],
      ['score', '--help'],
      ['inputs', 'approve', '--help'],
      ['key', 'create', '--help'],
      ['workspace', 'accept-terms', '--help'],
      ['operator', 'add', '--help'],
      ['audit', 'verify', '--help'],
    ]) {
      const help = await svc(...args);
      expect(help.status).toBe(0);
      expect(help.stdout, args.join(' ')).toContain('Exit status (every command):');
      expect(help.stdout).toMatch(/ {2}0 {2}done\n/);
      expect(help.stdout).toMatch(/ {2}1 {2}the work was refused/);
      expect(help.stdout).toMatch(/ {2}2 {2}bad usage or input that cannot be used/);
    }
  });
});
