import { describe, expect, it } from 'vitest';
import { ENGINES, WORKED_ID, withStoreOf } from './governance-support.js';
import { contentsOf, type Env, svcIn, svcJsonIn } from './operations.js';
import { WORKED_EXAMPLE } from './svc.js';

interface Outcome {
  provider_id: string;
  status: 'published' | 'unchanged' | 'refused';
  reason: string | null;
  problems: { path: string; message: string }[];
}

const WORKED_EVALUATED = '2026-06-30';

/** Whole days from the worked example's evaluation to today (UTC): the limit at which it is just allowed. */
function ageOfWorkedExample(): number {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((today - Date.parse(`${WORKED_EVALUATED}T00:00:00Z`)) / 86_400_000);
}

async function importAndApprove(vars: Env): Promise<void> {
  const imported = await svcJsonIn<{ inputs_sha256: string }[]>(
    vars,
    'inputs',
    'import',
    WORKED_EXAMPLE,
    '--by',
    'alice',
  );
  expect(imported.status, imported.stderr).toBe(0);
  const sha = imported.json[0]?.inputs_sha256 ?? '';
  const approved = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--sha256', sha, '--by', 'bob');
  expect(approved.status, approved.stderr).toBe(0);
}

describe.each(ENGINES)('svc publish: the publication guard on %s', (_engine, fresh) => {
  it('an evaluation exactly SVC_MAX_EVALUATION_AGE_DAYS old publishes', async () => {
    const vars = { ...(await fresh()), SVC_MAX_EVALUATION_AGE_DAYS: String(ageOfWorkedExample()) };
    await importAndApprove(vars);
    const run = await svcIn(vars, 'publish', WORKED_ID);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it('one day older is refused, exit 1: evaluation_date, the limit and `svc inputs redate`; nothing is written', async () => {
    const limit = ageOfWorkedExample() - 1;
    const vars = { ...(await fresh()), SVC_MAX_EVALUATION_AGE_DAYS: String(limit) };
    await importAndApprove(vars);
    const run = await svcIn(vars, 'publish', WORKED_ID);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('Refused (not published):');
    expect(run.stdout).toContain(`evaluation_date ${WORKED_EVALUATED} is ${limit + 1} days before today`);
    expect(run.stdout).toContain(`more than max_evaluation_age_days (${limit})`);
    expect(run.stdout).toContain(`svc inputs redate ${WORKED_ID}`);
    const json = await svcJsonIn<{ counts: Record<string, number>; outcomes: Outcome[] }>(vars, 'publish', WORKED_ID);
    expect(json.status).toBe(1);
    expect(json.json.counts).toEqual({ published: 0, unchanged: 0, refused: 1 });
    expect(json.json.outcomes[0]).toMatchObject({ status: 'refused', problems: [{ path: 'evaluation_date' }] });
    await withStoreOf(vars, async (store) => {
      expect((await contentsOf(store)).counts).toMatchObject({
        indicator_history: 0,
        risk_indicators: 0,
        changelog: 0,
      });
    });
  });
});

describe.each(ENGINES)('svc inputs redate on %s', (_engine, fresh) => {
  it('prints the new submission’s inputs_sha256; approved by another operator with --sha256, it publishes under the default limit', async () => {
    const vars = { ...(await fresh()), SVC_MAX_EVALUATION_AGE_DAYS: '31' };
    await importAndApprove(vars);
    expect((await svcIn(vars, 'publish', WORKED_ID)).status).toBe(1);
    const redated = await svcIn(vars, 'inputs', 'redate', WORKED_ID, '--by', 'carol');
    expect(redated.status, redated.stderr).toBe(0);
    const sha = /inputs_sha256 ([0-9a-f]{64})/.exec(redated.stdout)?.[1] ?? '';
    expect(redated.stdout).toContain(`svc inputs approve ${WORKED_ID} --sha256 ${sha}`);
    const json = await svcJsonIn<{ inputs_sha256: string; status: string }[]>(vars, 'inputs', 'list', '--pending');
    expect(json.json.map((r) => [r.status, r.inputs_sha256])).toEqual([['PENDING', sha]]);
    const approved = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--sha256', sha, '--by', 'bob');
    expect(approved.status, approved.stderr).toBe(0);
    const run = await svcIn(vars, 'publish', WORKED_ID);
    expect(run.status, run.stdout).toBe(0);
  });

  it('no approved inputs: exit 1 and a clear error; a date not a calendar date or after today: exit 2; nothing written', async () => {
    const vars = await fresh();
    const none = await svcIn(vars, 'inputs', 'redate', WORKED_ID, '--by', 'carol');
    expect(none.status).toBe(1);
    expect(none.stderr).toContain(`no provider ${WORKED_ID}`);
    await importAndApprove(vars);
    const bad = await svcIn(vars, 'inputs', 'redate', WORKED_ID, '--date', '2026-02-30', '--by', 'carol');
    expect(bad.status).toBe(2);
    const future = await svcJsonIn<{ code: string; error: string }>(
      vars,
      ...['inputs', 'redate', WORKED_ID, '--date', '2999-01-01', '--by', 'carol'],
    );
    expect(future.status).toBe(2);
    expect(future.json).toMatchObject({ code: 'invalid_value', error: expect.stringContaining('is after today') });
    await withStoreOf(vars, async (store) => {
      expect((await contentsOf(store)).counts).toMatchObject({ approved_inputs: 1 });
    });
  });

  it('a provider whose inputs were submitted but never approved: exit 1, naming the remedy', async () => {
    const vars = await fresh();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    const run = await svcIn(vars, 'inputs', 'redate', WORKED_ID, '--by', 'carol');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`provider ${WORKED_ID} has no approved inputs to redate`);
  });
});
