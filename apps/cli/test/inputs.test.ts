import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterOpenModeWarning, contentsOf, embedded, storeOf, svcIn, svcJsonIn } from './operations.js';
import { folderOf, pins, readExample, STACK_FRAME, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

interface Submission {
  id: string;
  provider_id: string;
  provider_name: string;
  status: string;
  inputs_sha256: string;
  submitted_by: string;
  submitted_at: string;
  approved_by: string | null;
  approved_at: string | null;
}

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const UNKNOWN_PROVIDER = '0f0f0f0f-0000-4000-8000-000000000000';

describe('svc inputs', () => {
  it('import FILE --json submits one PENDING submission by the named analyst', async () => {
    const vars = await embedded();
    const run = await svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
    expect(run.status, run.stderr).toBe(0);
    expect(run.json).toHaveLength(1);
    expect(run.json[0]).toMatchObject({
      provider_id: WORKED_ID,
      provider_name: 'Example Sats Lending',
      status: 'PENDING',
      submitted_by: 'alice',
      approved_by: null,
    });
    expect(run.json[0]?.id).toMatch(/^in_[0-9a-f]{24}$/);
  });

  it('import DIR submits every document and prints a table for people', async () => {
    const vars = await embedded();
    const dir = await folderOf(['worked-example.json', 'low-band.json', 'multiple-caps.json']);
    const run = await svcIn(vars, 'inputs', 'import', dir, '--by', 'alice');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^3 submissions by alice, pending approval by another operator with the approver role:\n/,
    );
    expect(run.stdout).toContain('Example Sats Lending');
    expect(run.stdout).toContain('PENDING');
    const listed = await svcJsonIn<Submission[]>(vars, 'inputs', 'list', '--pending');
    expect(listed.json.map((s) => s.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  });

  it('import refuses a document dated after the present, naming each date (exit 2, input it cannot use), and stores nothing', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'db', 'migrate')).status).toBe(0);
    const doc = await readExample();
    (doc.inputs.operating_history_years as { approved_at: string }).approved_at = '2029-06-02T10:00:00Z';
    const file = await writeTemp('future.json', { ...doc, evaluation_date: '2030-01-01' });
    const store = storeOf(vars);
    const before = await contentsOf(store);
    const run = await svcIn(vars, 'inputs', 'import', file, '--by', 'alice');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${file}: evaluation_date: 2030-01-01 is after the present`);
    expect(run.stderr).toContain(
      `${file}: inputs.operating_history_years.approved_at: 2029-06-02T10:00:00Z is after the present`,
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(await contentsOf(store)).toEqual(before);
  });

  it('an invalid folder stores nothing and lists every problem with its file and path (exit 2)', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'db', 'migrate')).status).toBe(0);
    const dir = await folderOf(['worked-example.json']);
    const bad = { ...(await readExample()), evaluation_date: 'soon' };
    await writeTemp('bad.json', bad, dir);
    const worse = await readExample('low-band.json');
    const item = worse.inputs.collateral_coverage_ratio;
    if (item) (item as { value: unknown }).value = 'lots';
    await writeTemp('worse.json', worse, dir);
    await writeTemp('zz-broken.json', '{"provider": ', dir);
    const store = storeOf(vars);
    try {
      const before = await contentsOf(store);
      const run = await svcIn(vars, 'inputs', 'import', dir, '--by', 'alice');
      expect(run.status).toBe(2); // the worst: a file that is not JSON
      expect(run.stderr).toMatch(/^error: 3 of 4 files in .* could not be submitted; nothing was stored\n/);
      expect(run.stderr).toContain(`${join(dir, 'bad.json')}: evaluation_date: `);
      expect(run.stderr).toContain(`${join(dir, 'worse.json')}: inputs.collateral_coverage_ratio.value: `);
      expect(run.stderr).toContain(join(dir, 'zz-broken.json'));
      expect(run.stderr).not.toMatch(STACK_FRAME);
      expect((await contentsOf(store)).counts).toEqual(before.counts);

      // Every file readable but two invalid: still exit 2 (input that cannot be used), every problem listed, nothing stored.
      await rm(join(dir, 'zz-broken.json'));
      const json = await svcJsonIn<{ code: string; problems: { file: string; path: string }[] }>(
        vars,
        'inputs',
        'import',
        dir,
        '--by',
        'alice',
      );
      expect(json.status).toBe(2);
      expect(json.json.code).toBe('invalid_inputs');
      expect(new Set(json.json.problems.map((p) => p.file))).toEqual(
        new Set([join(dir, 'bad.json'), join(dir, 'worse.json')]),
      );
      expect((await contentsOf(store)).counts).toEqual(before.counts);
    } finally {
      await store.close();
    }
  });

  it('approve by the submitter is refused (exit 1); by another analyst it is approved', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    const own = await svcIn(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'alice');
    expect(own.status).toBe(1);
    expect(afterOpenModeWarning(own.stderr)).toBe(
      `error: provider ${WORKED_ID}: alice submitted these inputs and cannot approve them; another operator with the approver role must\n`,
    );
    const approved = await svcJsonIn<Submission[]>(
      vars,
      'inputs',
      'approve',
      WORKED_ID,
      ...pins(WORKED_ID),
      '--by',
      'bob',
    );
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.json[0]).toMatchObject({ status: 'APPROVED', submitted_by: 'alice', approved_by: 'bob' });
    expect((await svcJsonIn<Submission[]>(vars, 'inputs', 'list', '--pending')).json).toEqual([]);
    const all = await svcIn(vars, 'inputs', 'list');
    expect(all.stdout).toContain('APPROVED');
    expect(all.stdout).toContain(approved.json[0]?.inputs_sha256.slice(0, 12));
    expect((await svcIn(vars, 'inputs', 'list', '--pending')).stdout).toBe('no submissions are pending approval\n');
  });

  it('nothing pending, or an unknown provider: a clear error, exit 1', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    expect((await svcIn(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob')).status).toBe(0);
    const again = await svcJsonIn(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob');
    expect(again.status).toBe(1);
    expect(again.json).toEqual({
      error: `provider ${WORKED_ID} has no pending submission to approve`,
      code: 'not_found',
    });
    const unknown = await svcIn(vars, 'inputs', 'approve', UNKNOWN_PROVIDER, '--sha256', '0'.repeat(64), '--by', 'bob');
    expect(unknown.status).toBe(1);
    expect(afterOpenModeWarning(unknown.stderr)).toBe(`error: no provider ${UNKNOWN_PROVIDER}\n`);
    // Not a provider id at all: a usage error before any work, naming the argument.
    const malformed = await svcIn(vars, 'inputs', 'approve', 'no-such-provider', '--by', 'bob');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toBe(
      "error: command-argument value 'no-such-provider' is invalid for argument 'provider_id'. must be a provider id: a UUID, as svc provider list prints it\n",
    );
  });

  it('a newer submission supersedes the pending one', async () => {
    const vars = await embedded();
    const first = (await svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).json;
    const second = (await svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'carol')).json;
    const listed = (await svcJsonIn<Submission[]>(vars, 'inputs', 'list')).json;
    expect(listed.find((s) => s.id === first[0]?.id)?.status).toBe('SUPERSEDED');
    expect(listed.find((s) => s.id === second[0]?.id)?.status).toBe('PENDING');
    // carol's submission now needs someone else: alice may approve it.
    expect((await svcIn(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'alice')).status).toBe(0);
  });

  it('in open mode --by is required (exit 2, naming --by); an empty folder exits 2', async () => {
    const vars = await embedded();
    const nameless = await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE);
    expect(nameless.status).toBe(2);
    expect(afterOpenModeWarning(nameless.stderr)).toMatch(/^error: name the submitter with --by NAME/);
    expect((await svcIn(vars, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID))).status).toBe(2);
    expect((await svcJsonIn(vars, 'inputs', 'list')).json).toEqual([]);
    const empty = join(await tempDir(), 'empty');
    await mkdir(empty);
    expect((await svcIn(vars, 'inputs', 'import', empty, '--by', 'alice')).status).toBe(2);
  });
});

const LOW_ID = '6102dd70-63e8-440e-9dd8-904f07489671';
const CAPS_ID = '1ac85512-395c-43f8-be97-43173a941f7a';

describe('svc inputs approve --all-pending', () => {
  it("approves every pending submission, listing each; the approver's own stay pending (maker-checker, exit 1)", async () => {
    const vars = await embedded();
    const alice = await svcIn(
      vars,
      'inputs',
      'import',
      await folderOf(['worked-example.json', 'low-band.json']),
      '--by',
      'alice',
    );
    expect(alice.status, alice.stderr).toBe(0);
    const bobs = await svcIn(vars, 'inputs', 'import', await folderOf(['multiple-caps.json']), '--by', 'bob');
    expect(bobs.status, bobs.stderr).toBe(0);

    const run = await svcIn(vars, 'inputs', 'approve', '--all-pending', '--yes', '--by', 'Bob ');
    expect(run.status, run.stderr).toBe(1);
    expect(afterOpenModeWarning(run.stderr)).toBe('');
    const [, approvedPart = '', refusedPart = ''] = run.stdout.split(/\n(?=\d submissions? (?:approved|not approved))/);
    expect(approvedPart).toMatch(/^2 submissions approved by Bob; publish with: /);
    expect(approvedPart).toContain(WORKED_ID);
    expect(approvedPart).toContain(LOW_ID);
    expect(approvedPart).not.toContain(CAPS_ID);
    expect(refusedPart).toMatch(
      /^1 submission not approved: Bob submitted it, so another operator with the approver role must approve \(maker-checker\):/,
    );
    expect(refusedPart).toContain(CAPS_ID);

    const records = (await svcJsonIn<Submission[]>(vars, 'inputs', 'list')).json;
    const statusOf = (id: string) => records.filter((r) => r.provider_id === id).map((r) => [r.status, r.approved_by]);
    expect(statusOf(WORKED_ID)).toEqual([['APPROVED', 'Bob']]);
    expect(statusOf(LOW_ID)).toEqual([['APPROVED', 'Bob']]);
    expect(statusOf(CAPS_ID)).toEqual([['PENDING', null]]);

    const carol = await svcJsonIn<{ approved: Submission[]; refused: unknown[] }>(
      vars,
      'inputs',
      'approve',
      '--all-pending',
      '--yes',
      '--by',
      'carol',
    );
    expect(carol.status, carol.stderr).toBe(0);
    expect(carol.json.approved.map((r) => [r.provider_id, r.status, r.approved_by])).toEqual([
      [CAPS_ID, 'APPROVED', 'carol'],
    ]);
    expect(carol.json.refused).toEqual([]);

    const none = await svcIn(vars, 'inputs', 'approve', '--all-pending', '--yes', '--by', 'carol');
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('no submissions are pending approval\n');
  });

  it('--json lists the refused ones with the reason', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    const run = await svcJsonIn<{ approved: Submission[]; refused: (Submission & { reason: string })[] }>(
      vars,
      'inputs',
      'approve',
      '--all-pending',
      '--yes',
      '--by',
      'alice',
    );
    expect(run.status).toBe(1);
    expect(run.json.approved).toEqual([]);
    expect(run.json.refused).toEqual([
      expect.objectContaining({
        provider_id: WORKED_ID,
        status: 'PENDING',
        reason: 'alice submitted these inputs and cannot approve them; another operator with the approver role must',
      }),
    ]);
  });

  it('takes provider ids or --all-pending: both, or neither, is bad usage (exit 2) and changes nothing', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    const both = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--all-pending', '--by', 'bob');
    expect(both.status).toBe(2);
    expect(both.stderr).toBe('error: name providers or give --all-pending, not both\n');
    const neither = await svcIn(vars, 'inputs', 'approve', '--by', 'bob');
    expect(neither.status).toBe(2);
    expect(neither.stderr).toBe('error: name the providers whose submissions to approve, or --all-pending\n');
    expect((await svcJsonIn<Submission[]>(vars, 'inputs', 'list', '--pending')).json).toHaveLength(1);
  });
});
