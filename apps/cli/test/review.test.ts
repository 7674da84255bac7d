import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Env, embedded, svcIn, svcJsonIn } from './operations.js';
import {
  LOW_ID,
  ok,
  pendingIds,
  publishedThenChanged,
  type Summary,
  showSha,
  UNKNOWN_ID,
  WORKED_ID,
} from './review-support.js';
import { EXAMPLES, pins, readExample, STACK_FRAME, WORKED_EXAMPLE, writeTemp } from './svc.js';

describe('svc inputs show and diff', () => {
  let vars: Env;
  beforeAll(async () => {
    vars = await publishedThenChanged();
  });

  it('show: who submitted it and when, the inputs SHA-256, then the inputs; --json the object with the document', async () => {
    const json = await svcJsonIn<{
      id: string;
      submitted_by: string;
      submitted_at: string;
      inputs_sha256: string;
      document: { inputs: Record<string, { value: unknown; as_of: string }> };
    }>(vars, 'inputs', 'show', WORKED_ID);
    expect(json.status, json.stderr).toBe(0);
    expect(json.json).toMatchObject({ provider_id: WORKED_ID, provider_name: 'Example Sats Lending' });
    expect(json.json.submitted_by).toBe('carol');
    expect(json.json.inputs_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(json.json.document.inputs.collateral_coverage_ratio).toMatchObject({ value: 0.95, as_of: '2026-06-15' });

    const run = await svcIn(vars, 'inputs', 'show', WORKED_ID);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Pending submission ${json.json.id} for Example Sats Lending (${WORKED_ID})\n`);
    expect(run.stdout).toContain(`Submitted by carol at ${json.json.submitted_at}\n`);
    expect(run.stdout).toContain(`Inputs sha256 ${json.json.inputs_sha256}\n`);
    expect(run.stdout).toMatch(/│ collateral_coverage_ratio\s+│ 0\.95\s+│ 2026-06-15 │/);
  });

  it('diff: each changed input with its old and new value and as_of, then score, band and a cap starting', async () => {
    const run = await svcIn(vars, 'inputs', 'diff', WORKED_ID);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/against the indicator in force ri_[0-9a-f]{24} \(DCRF v1\.0, approved submission in_/);
    expect(run.stdout).toMatch(/│ collateral_coverage_ratio \(A1\)\s+│ 1\.35\s+│ 2026-05-31 │ 0\.95\s+│ 2026-06-15 │/);
    expect(run.stdout).not.toContain('proof_of_reserves');
    expect(run.stdout).toMatch(/ {2}Score {12}78\.46 -> \d+\.\d\d\n/);
    expect(run.stdout).toContain('  Band             MEDIUM -> HIGH\n');
    expect(run.stdout).toMatch(/ {2}Confidence {7}1\.0000 -> \d\.\d{4}\n/);
    expect(run.stdout).toMatch(/ {2}Caps starting {4}HC-02 \(.+\)\n/);
    expect(run.stdout).toContain('  Caps stopping    none\n');
  });

  it('diff --json: the changed inputs and the outcome as the engine gives it (decimal strings)', async () => {
    const run = await svcJsonIn<{
      published: { submission_id: string } | null;
      inputs: unknown[];
      outcome: Record<string, unknown>;
    }>(vars, 'inputs', 'diff', WORKED_ID);
    expect(run.status, run.stderr).toBe(0);
    expect(run.json.published?.submission_id).toMatch(/^in_/);
    expect(run.json.inputs).toEqual([
      {
        input_key: 'collateral_coverage_ratio',
        criterion_id: 'A1',
        change: 'changed',
        old_value: 1.35,
        old_as_of: '2026-05-31',
        new_value: 0.95,
        new_as_of: '2026-06-15',
      },
    ]);
    expect(run.json.outcome).toMatchObject({
      final_score: { old: '78.46', new: expect.stringMatching(/^\d+\.\d\d$/) },
      risk_band: { old: 'MEDIUM', new: 'HIGH' },
      confidence: { old: '1.0000', new: expect.stringMatching(/^\d\.\d{4}$/) },
      caps_started: [{ cap_id: 'HC-02', label: expect.any(String) }],
      caps_stopped: [],
    });
  });

  it('an unknown provider, or one with nothing pending, is a clear error (exit 1)', async () => {
    for (const verb of ['show', 'diff']) {
      const unknown = await svcIn(vars, 'inputs', verb, UNKNOWN_ID);
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toBe(`error: no provider ${UNKNOWN_ID}\n`);
    }
    const fresh = await embedded();
    await ok(fresh, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
    await ok(fresh, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob');
    for (const verb of ['show', 'diff']) {
      const none = await svcJsonIn(fresh, 'inputs', verb, WORKED_ID);
      expect(none.status).toBe(1);
      expect(none.json).toEqual({
        error: `provider ${WORKED_ID} (Example Sats Lending) has no pending submission`,
        code: 'not_found',
      });
      expect(none.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it('diff with no indicator in force: every input added, the old side empty', async () => {
    const fresh = await embedded();
    await ok(fresh, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
    const run = await svcIn(fresh, 'inputs', 'diff', WORKED_ID);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('no indicator in force: every input is added\n');
    expect(run.stdout).toMatch(/│ collateral_coverage_ratio \(A1\)\s+│ -\s+│ -\s+│ 1\.35\s+│ 2026-05-31 │/);
    expect(run.stdout).toContain('  Score            - -> 78.46\n');
  });
});

describe('svc inputs approve --all-pending reviews first', () => {
  it('off a terminal without --yes it refuses (usage, exit 2) and approves nothing, --json too', async () => {
    const vars = await publishedThenChanged();
    const run = await svcIn(vars, 'inputs', 'approve', '--all-pending', '--by', 'bob');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: not on a terminal, .*pass --yes.*; nothing was approved\n$/);
    const json = await svcJsonIn(vars, 'inputs', 'approve', '--all-pending', '--by', 'bob');
    expect(json.status).toBe(2);
    expect(json.json).toMatchObject({ code: 'usage' });
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
  });

  it('with --yes: the review table (provider, submitted by, inputs changed, score and band old -> new), then approved', async () => {
    const vars = await publishedThenChanged();
    await ok(vars, 'inputs', 'import', join(EXAMPLES, 'low-band.json'), '--by', 'alice');
    const run = await svcIn(vars, 'inputs', 'approve', '--all-pending', '--yes', '--by', 'bob');
    expect(run.status, run.stderr).toBe(0);
    const [review = '', approved = ''] = run.stdout.split(/\n(?=2 submissions approved by bob)/);
    expect(review).toMatch(/│ Provider\s+│ Submitted by │ Inputs changed │ Score\s+│ Band\s+│/);
    expect(review).toMatch(/│ Example Harbour Custody │ alice\s+│ 14\s+│ - -> 95\.54\s+│ - -> LOW\s+│/);
    expect(review).toMatch(
      /│ Example Sats Lending\s+│ carol\s+│ 1\s+│ 78\.46 -> \d+\.\d\d\s+│ MEDIUM -> HIGH │ \+HC-02/,
    );
    expect(approved).toContain(WORKED_ID);
    expect(approved).toContain(LOW_ID);
    expect(await pendingIds(vars)).toEqual([]);
  });

  it('--json --yes: the review and what was approved, refused and left unreviewed', async () => {
    const vars = await publishedThenChanged();
    const run = await svcJsonIn<{
      review: Summary[];
      approved: { id: string }[];
      refused: unknown[];
      unreviewed: unknown[];
    }>(vars, 'inputs', 'approve', '--all-pending', '--yes', '--by', 'bob');
    expect(run.status, run.stderr).toBe(0);
    expect(run.json.review).toEqual([
      expect.objectContaining({
        provider_id: WORKED_ID,
        inputs_changed: 1,
        outcome: expect.objectContaining({ risk_band: { old: 'MEDIUM', new: 'HIGH' } }),
      }),
    ]);
    expect(run.json.approved.map((r) => r.id)).toEqual([run.json.review[0]?.submission_id]);
    expect(run.json.refused).toEqual([]);
    expect(run.json.unreviewed).toEqual([]);
  });

  it('--yes is only for --all-pending (usage, exit 2)', async () => {
    const vars = await publishedThenChanged();
    const run = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--yes', '--by', 'bob');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('error: --yes goes with --all-pending\n');
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
  });
});

describe('svc inputs approve pins the content the approver saw', () => {
  it('a pending submission other than the one named is refused (exit 1) and nothing is approved; the shown one approves', async () => {
    const vars = await publishedThenChanged();
    const seen = await showSha(vars);
    // Another analyst replaces the pending submission after the approver looked at it.
    const doc = await readExample();
    Object.assign(doc.inputs.collateral_coverage_ratio as object, { value: 1.1, as_of: '2026-06-20' });
    await ok(vars, 'inputs', 'import', await writeTemp('replaced.json', doc), '--by', 'dave');
    const replaced = await showSha(vars);
    expect(replaced).not.toBe(seen);

    const run = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--sha256', seen, '--by', 'bob');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `error: provider ${WORKED_ID}: the pending submission has inputs sha256 ${replaced} (submitted by dave at `,
    );
    expect(run.stderr).toContain('which is not the one named; nothing was approved');
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
    expect(await showSha(vars)).toBe(replaced);

    // Its first 12 hex digits name it, in capitals too.
    const approved = await svcJsonIn<{ inputs_sha256: string; status: string }[]>(
      vars,
      'inputs',
      'approve',
      WORKED_ID,
      '--sha256',
      replaced.slice(0, 12).toUpperCase(),
      '--by',
      'bob',
    );
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.json).toEqual([expect.objectContaining({ inputs_sha256: replaced, status: 'APPROVED' })]);
    expect(await pendingIds(vars)).toEqual([]);
  });

  it('a pin shorter than 12 hex digits, not hex, or not one per provider is bad input (exit 2) and approves nothing', async () => {
    const vars = await publishedThenChanged();
    const sha = await showSha(vars);
    for (const [pins, message] of [
      [['--sha256', sha.slice(0, 11)], /sha256 "[0-9a-f]{11}" must be the inputs_sha256 of the pending submission/],
      [['--sha256', `${sha.slice(0, 20)}zz`], /must be the inputs_sha256 of the pending submission or its first 12/],
      [['--sha256', sha, '--sha256', sha], /2 sha256 values for 1 provider: name one inputs_sha256 for each provider/],
    ] as const) {
      const run = await svcIn(vars, 'inputs', 'approve', WORKED_ID, ...pins, '--by', 'bob');
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
  });

  it('off a terminal, or with --json, without --sha256 it is bad usage (exit 2) saying how to pin; --sha256 is not for --all-pending', async () => {
    const vars = await publishedThenChanged();
    const run = await svcIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'bob');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'error: not on a terminal, nobody is shown what would be approved: pin each submission with --sha256 HASH, the inputs sha256 that `svc inputs show PROVIDER_ID` printed (12 hex digits or more); nothing was approved\n',
    );
    const json = await svcJsonIn(vars, 'inputs', 'approve', WORKED_ID, '--by', 'bob');
    expect(json.status).toBe(2);
    expect(json.json).toMatchObject({ code: 'usage' });
    const all = await svcIn(
      vars,
      'inputs',
      'approve',
      '--all-pending',
      '--yes',
      '--sha256',
      await showSha(vars),
      '--by',
      'bob',
    );
    expect(all.status).toBe(2);
    expect(all.stderr).toMatch(/^error: --sha256 goes with named providers/);
    expect(await pendingIds(vars)).toEqual([WORKED_ID]);
  });

  it('show prints the command that approves exactly what it showed', async () => {
    const vars = await publishedThenChanged();
    const sha = await showSha(vars);
    const run = await svcIn(vars, 'inputs', 'show', WORKED_ID);
    expect(run.stdout).toContain(
      `Approve exactly this submission with: svc inputs approve ${WORKED_ID} --sha256 ${sha.slice(0, 12)}\n`,
    );
  });
});
