import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentsOf, embedded, storeOf, svcIn, svcJsonIn } from './operations.js';
import { folderOf, readExample, STACK_FRAME, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

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

describe('svc inputs', () => {
  it('import FILE --json submits one PENDING submission by the named analyst', async () => {
    const vars = await embedded();
    const run = svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
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
    const run = svcIn(vars, 'inputs', 'import', dir, '--by', 'alice');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^3 submissions by alice, pending approval by another analyst:\n/);
    expect(run.stdout).toContain('Example Sats Lending');
    expect(run.stdout).toContain('PENDING');
    const listed = svcJsonIn<Submission[]>(vars, 'inputs', 'list', '--pending');
    expect(listed.json.map((s) => s.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  });

  it('import refuses a document dated after the present, naming each date (exit 1), and stores nothing', async () => {
    const vars = await embedded();
    expect(svcIn(vars, 'db', 'migrate').status).toBe(0);
    const doc = await readExample();
    (doc.inputs.operating_history_years as { approved_at: string }).approved_at = '2029-06-02T10:00:00Z';
    const file = await writeTemp('future.json', { ...doc, evaluation_date: '2030-01-01' });
    const store = storeOf(vars);
    const before = await contentsOf(store);
    const run = svcIn(vars, 'inputs', 'import', file, '--by', 'alice');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}: evaluation_date: 2030-01-01 is after the present`);
    expect(run.stderr).toContain(
      `${file}: inputs.operating_history_years.approved_at: 2029-06-02T10:00:00Z is after the present`,
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(await contentsOf(store)).toEqual(before);
  });

  it('an invalid folder stores nothing and lists every problem with its file and path (exit 1)', async () => {
    const vars = await embedded();
    expect(svcIn(vars, 'db', 'migrate').status).toBe(0);
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
      const run = svcIn(vars, 'inputs', 'import', dir, '--by', 'alice');
      expect(run.status).toBe(2); // the worst: a file that is not JSON
      expect(run.stderr).toMatch(/^error: 3 of 4 files in .* could not be submitted; nothing was stored\n/);
      expect(run.stderr).toContain(`${join(dir, 'bad.json')}: evaluation_date: `);
      expect(run.stderr).toContain(`${join(dir, 'worse.json')}: inputs.collateral_coverage_ratio.value: `);
      expect(run.stderr).toContain(join(dir, 'zz-broken.json'));
      expect(run.stderr).not.toMatch(STACK_FRAME);
      expect((await contentsOf(store)).counts).toEqual(before.counts);

      // Every file readable but two invalid: exit 1, every problem listed, still nothing stored.
      await rm(join(dir, 'zz-broken.json'));
      const json = svcJsonIn<{ code: string; problems: { file: string; path: string }[] }>(
        vars,
        'inputs',
        'import',
        dir,
        '--by',
        'alice',
      );
      expect(json.status).toBe(1);
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
    expect(svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice').status).toBe(0);
    const own = svcIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'alice');
    expect(own.status).toBe(1);
    expect(own.stderr).toBe(
      `error: provider ${WORKED_ID}: alice submitted these inputs and cannot approve them; another analyst must\n`,
    );
    const approved = svcJsonIn<Submission[]>(vars, 'inputs', 'approve', WORKED_ID, '--by', 'bob');
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.json[0]).toMatchObject({ status: 'APPROVED', submitted_by: 'alice', approved_by: 'bob' });
    expect(svcJsonIn<Submission[]>(vars, 'inputs', 'list', '--pending').json).toEqual([]);
    const all = svcIn(vars, 'inputs', 'list');
    expect(all.stdout).toContain('APPROVED');
    expect(all.stdout).toContain(approved.json[0]?.inputs_sha256.slice(0, 12));
    expect(svcIn(vars, 'inputs', 'list', '--pending').stdout).toBe('no submissions are pending approval\n');
  });

  it('nothing pending, or an unknown provider: a clear error, exit 1', async () => {
    const vars = await embedded();
    expect(svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice').status).toBe(0);
    expect(svcIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'bob').status).toBe(0);
    const again = svcJsonIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'bob');
    expect(again.status).toBe(1);
    expect(again.json).toEqual({
      error: `provider ${WORKED_ID} has no pending submission to approve`,
      code: 'not_found',
    });
    const unknown = svcIn(vars, 'inputs', 'approve', 'no-such-provider', '--by', 'bob');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('error: no provider no-such-provider\n');
  });

  it('a newer submission supersedes the pending one', async () => {
    const vars = await embedded();
    const first = svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice').json;
    const second = svcJsonIn<Submission[]>(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'carol').json;
    const listed = svcJsonIn<Submission[]>(vars, 'inputs', 'list').json;
    expect(listed.find((s) => s.id === first[0]?.id)?.status).toBe('SUPERSEDED');
    expect(listed.find((s) => s.id === second[0]?.id)?.status).toBe('PENDING');
    // carol's submission now needs someone else: alice may approve it.
    expect(svcIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'alice').status).toBe(0);
  });

  it('--by is required (usage, exit 2); an empty folder exits 2', async () => {
    const vars = await embedded();
    expect(svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE).status).toBe(2);
    const empty = join(await tempDir(), 'empty');
    await mkdir(empty);
    expect(svcIn(vars, 'inputs', 'import', empty, '--by', 'alice').status).toBe(2);
  });
});
