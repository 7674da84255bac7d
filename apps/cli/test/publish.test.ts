import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Store } from '@svc/api';
import { afterAll, describe, expect, it } from 'vitest';
import {
  afterOpenModeWarning,
  childEnv,
  contentsOf,
  type Env,
  embedded,
  freshSchema,
  postgresAvailable,
  storeOf,
  svcIn,
  svcJsonIn,
} from './operations.js';
import { BIN, EXAMPLES, folderOf, readExample, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

interface Outcome {
  provider_id: string;
  status: 'published' | 'unchanged' | 'refused';
  risk_indicator_id: string | null;
  change: string | null;
  reason: string | null;
  problems: { path: string; message: string }[];
}

interface Report {
  dry_run: boolean;
  evaluation_date: string | null;
  counts: { published: number; unchanged: number; refused: number };
  outcomes: Outcome[];
}

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const MISSING_ID = 'ae1837ad-8a0e-4dfb-aec7-52569069aef3';
const UNKNOWN_PROVIDER = '0f0f0f0f-0000-4000-8000-000000000000';

/** Submits by alice and approves by bob: the documents' providers have approved inputs. */
async function importAndApprove(vars: Env, path: string): Promise<string[]> {
  const imported = await svcJsonIn<{ provider_id: string; inputs_sha256: string }[]>(
    vars,
    'inputs',
    'import',
    path,
    '--by',
    'alice',
  );
  expect(imported.status, imported.stderr).toBe(0);
  const ids = imported.json.map((s) => s.provider_id);
  // Pinned to what was imported, as an approver pins what `svc inputs show` printed.
  const shown = imported.json.flatMap((s) => ['--sha256', s.inputs_sha256]);
  const approved = await svcIn(vars, 'inputs', 'approve', ...ids, ...shown, '--by', 'bob');
  expect(approved.status, approved.stderr).toBe(0);
  return ids;
}

async function withStoreOf<T>(vars: Env, work: (store: Store) => Promise<T>): Promise<T> {
  const store = storeOf(vars);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('svc publish', () => {
  it('publishes approved inputs, then reports them unchanged on a second run', async () => {
    const vars = await embedded();
    await importAndApprove(vars, WORKED_EXAMPLE);
    const first = await svcJsonIn<Report>(vars, 'publish', WORKED_ID);
    expect(first.status, first.stderr).toBe(0);
    expect(first.json.counts).toEqual({ published: 1, unchanged: 0, refused: 0 });
    expect(first.json.outcomes[0]).toMatchObject({ provider_id: WORKED_ID, status: 'published', change: 'NEW' });
    const second = await svcIn(vars, 'publish', '--all');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('published 0, unchanged 1, refused 0:');
    expect(second.stdout).toMatch(
      /│ Example Sats Lending +│ 7d1f7c1e-\S+ +│ unchanged +│ 78\.46 +│ MEDIUM +│ unchanged +│ 78\.46 MEDIUM +│/,
    );
    await withStoreOf(vars, async (store) => {
      const { counts } = await contentsOf(store);
      expect(counts).toMatchObject({ indicator_history: 1, risk_indicators: 1, changelog: 1 });
      const history = await store.db.selectFrom('indicator_history').selectAll().executeTakeFirstOrThrow();
      const approval = await store.db
        .selectFrom('approved_inputs')
        .select('approved_at')
        .where('status', '=', 'APPROVED')
        .executeTakeFirstOrThrow();
      expect(history.score_verified_at).toBe(approval.approved_at);
    });
  });

  it('--dry-run scores and reports but writes nothing', async () => {
    const vars = await embedded();
    await importAndApprove(vars, await folderOf(['worked-example.json', 'low-band.json']));
    await withStoreOf(vars, async (store) => {
      const before = await contentsOf(store);
      const dry = await svcJsonIn<Report>(vars, 'publish', '--all', '--dry-run');
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.json).toMatchObject({ dry_run: true, counts: { published: 2, unchanged: 0, refused: 0 } });
      const text = await svcIn(vars, 'publish', '--all', '--dry-run');
      expect(text.stdout).toContain('nothing was written');
      expect(await contentsOf(store)).toEqual(before);
    });
  });

  it('--date moves the evaluation date: a new risk_indicator_id, and a SCORE_CHANGE entry or none', async () => {
    const vars = await embedded();
    await importAndApprove(vars, WORKED_EXAMPLE);
    const first = (await svcJsonIn<Report>(vars, 'publish', '--all')).json.outcomes[0];
    const moved = await svcJsonIn<Report>(vars, 'publish', '--all', '--date', '2026-09-30');
    expect(moved.status, moved.stderr).toBe(0);
    const outcome = moved.json.outcomes[0];
    expect(moved.json.evaluation_date).toBe('2026-09-30');
    expect(outcome?.status).toBe('published');
    expect(outcome?.risk_indicator_id).not.toBe(first?.risk_indicator_id);
    expect([null, 'SCORE_CHANGE']).toContain(outcome?.change);
    await withStoreOf(vars, async (store) => {
      const { changelog, history } = await contentsOf(store);
      expect(history.map((h) => h.risk_indicator_id)).toEqual([first?.risk_indicator_id, outcome?.risk_indicator_id]);
      expect(changelog.map((c) => c.change_type)).toEqual(outcome?.change ? ['NEW', outcome.change] : ['NEW']);
    });
    // A date before the evidence: the document is not valid then, so it is refused with its problems.
    const early = await svcJsonIn<Report>(vars, 'publish', WORKED_ID, '--date', '2026-01-01');
    expect(early.status).toBe(1);
    expect(early.json.outcomes[0]?.status).toBe('refused');
    expect(early.json.outcomes[0]?.problems[0]?.message).toMatch(/after the evaluation date 2026-01-01/);
  });

  it('an unpublishable document (missing inputs) is refused and not published: exit 1', async () => {
    const vars = await embedded();
    await importAndApprove(vars, join(EXAMPLES, 'missing-inputs.json'));
    const run = await svcIn(vars, 'publish', MISSING_ID);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('Refused (not published):');
    expect(run.stdout).toMatch(/confidence 0\.\d+ is below the publication threshold/);
    expect(afterOpenModeWarning(run.stderr)).toBe('');
    await withStoreOf(vars, async (store) => {
      expect((await contentsOf(store)).counts).toMatchObject({
        indicator_history: 0,
        risk_indicators: 0,
        changelog: 0,
      });
    });
  });

  it('bad usage exits 2: neither ids nor --all, both, a bad date', async () => {
    const vars = await embedded();
    const neither = await svcIn(vars, 'publish');
    expect(neither.status).toBe(2);
    expect(neither.stderr).toBe('error: name the providers to publish, or --all\n');
    expect((await svcIn(vars, 'publish', WORKED_ID, '--all')).status).toBe(2);
    const date = await svcJsonIn(vars, 'publish', '--all', '--date', '2026-02-30');
    expect(date.status).toBe(2);
    expect(date.json).toMatchObject({ code: 'usage' });
  });

  it('a provider without approved inputs is refused (exit 1)', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
    const run = await svcJsonIn<Report>(vars, 'publish', WORKED_ID, UNKNOWN_PROVIDER);
    expect(run.status).toBe(1);
    expect(run.json.outcomes.map((o) => o.reason)).toEqual(['no approved inputs', `no provider ${UNKNOWN_PROVIDER}`]);
  });

  it('an argument that is not a provider id is bad usage (exit 2), and nothing is published', async () => {
    const vars = await embedded();
    await importAndApprove(vars, WORKED_EXAMPLE);
    const run = await svcJsonIn(vars, 'publish', WORKED_ID, 'no-such-provider');
    expect(run.status).toBe(2);
    expect(run.json).toMatchObject({ code: 'usage' });
    const providers = (await svcJsonIn<{ id: string; final_score: number | null }[]>(vars, 'provider', 'list')).json;
    expect(providers.map((p) => [p.id, p.final_score])).toEqual([[WORKED_ID, null]]);
  });
});

describe.skipIf(!postgresAvailable)('svc publish on PostgreSQL', () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(drops.map((drop) => drop()));
  });

  it('imports, approves, publishes, then finds everything unchanged', async () => {
    const schema = await freshSchema();
    drops.push(schema.drop);
    const vars = { DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
    await importAndApprove(vars, await folderOf(['worked-example.json', 'low-band.json', 'missing-inputs.json']));
    const first = await svcJsonIn<Report>(vars, 'publish', '--all');
    expect(first.status).toBe(1);
    expect(first.json.counts).toEqual({ published: 2, unchanged: 0, refused: 1 });
    const second = await svcJsonIn<Report>(vars, 'publish', '--all');
    expect(second.json.counts).toEqual({ published: 0, unchanged: 2, refused: 1 });
    await withStoreOf(vars, async (store) => {
      expect((await contentsOf(store)).counts).toMatchObject({ indicator_history: 2, changelog: 2 });
    });
  });
});

// ---- a run stopped partway ----

describe('svc publish --all stopped partway by a store error', () => {
  it('prints what it published, what it did not reach and why, exit 2; with --json the same in the error object', async () => {
    const vars = await embedded();
    const ids = await importAndApprove(vars, await generatedDocuments(55));
    const failing = [...ids].sort()[52] ?? '';
    // The store refuses to record one provider's publication (a trigger, through Python's sqlite3): in the second
    // batch of fifty.
    const trigger = `create trigger refuse_history before insert on indicator_history when new.provider_id = '${failing}'
      begin select raise(abort, 'the store refused the write'); end`;
    const made = spawnSync('python3', [
      '-c',
      'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()',
      join(vars.SVC_DATA_DIR, 'svc.db'),
      trigger,
    ]);
    expect(made.status, String(made.stderr)).toBe(0);
    const run = await svcIn(vars, 'publish', '--all');
    expect(run.status, run.stderr).toBe(2);
    const order = [...ids].sort();
    const at = order.indexOf(failing);
    expect(run.stdout).toMatch(
      new RegExp(
        `^Published under DCRF v1\\.0, each document's evaluation date\\.\npublished ${at}, unchanged 0, refused 0:\n`,
      ),
    );
    for (const id of order.slice(0, at)) expect(run.stdout).toContain(id);
    expect(run.stdout).toContain(
      `Not attempted (the run stopped before them; nothing of theirs was written, run it again to publish them): ${ids.length - at}\n`,
    );
    for (const id of order.slice(at)) expect(run.stdout).toContain(`  ${id}\n`);
    expect(afterOpenModeWarning(run.stderr)).toBe(
      `error: the run stopped after ${at} of ${ids.length} providers (${at} published, 0 unchanged, 0 refused; ${ids.length - at} not attempted): unexpected failure: the store refused the write\n`,
    );

    const json = await svcJsonIn<{ error: string; code: string; report: Report & { not_attempted: string[] } }>(
      vars,
      'publish',
      '--all',
    );
    expect(json.status).toBe(2);
    expect(json.json.code).toBe('internal');
    expect(json.json.report.counts).toEqual({ published: 0, unchanged: at, refused: 0 });
    expect(json.json.report.not_attempted).toEqual(order.slice(at));
  });
});

// ---- crash safety ----

const GENERATED = 200;
/** Publications seen committed before the kill is sent: some, far from all. */
const KILL_AFTER = 20;

/** `n` valid documents: the worked example under new providers, with slightly different inputs. */
async function generatedDocuments(n: number): Promise<string> {
  const base = await readExample();
  const dir = await tempDir();
  for (let i = 0; i < n; i++) {
    const doc = structuredClone(base);
    doc.provider.id = randomUUID();
    doc.provider.name = `Generated Lender ${String(i).padStart(4, '0')}`;
    const set = (key: string, value: number) => {
      const item = doc.inputs[key];
      if (item) (item as { value: unknown }).value = value;
    };
    set('collateral_coverage_ratio', (110 + (i % 50)) / 100);
    set('operating_history_years', 2 + (i % 9));
    await writeTemp(`generated-${String(i).padStart(4, '0')}.json`, doc, dir);
  }
  return dir;
}

/** What the store holds for each provider: its pointer, history rows, indicator rows and NEW entries. */
async function publicationState(store: Store) {
  const providers = await store.db.selectFrom('providers').select(['id', 'current_seq']).execute();
  const count = async (table: 'indicator_history' | 'risk_indicators') => {
    const rows = await store.db
      .selectFrom(table)
      .select(['provider_id', (eb) => eb.fn.countAll().as('n')])
      .groupBy('provider_id')
      .execute();
    return new Map(rows.map((r) => [r.provider_id, Number(r.n)]));
  };
  const history = await count('indicator_history');
  const indicators = await count('risk_indicators');
  const newRows = await store.db
    .selectFrom('changelog')
    .select(['provider_id', (eb) => eb.fn.countAll().as('n')])
    .where('change_type', '=', 'NEW')
    .groupBy('provider_id')
    .execute();
  const news = new Map(newRows.map((r) => [r.provider_id, Number(r.n)]));
  return providers.map((p) => ({
    id: p.id,
    current: p.current_seq !== null,
    history: history.get(p.id) ?? 0,
    indicators: indicators.get(p.id) ?? 0,
    news: news.get(p.id) ?? 0,
  }));
}

const FULLY_PUBLISHED = { current: true, history: 1, indicators: 1, news: 1 };
const UNTOUCHED = { current: false, history: 0, indicators: 0, news: 0 };

describe('svc publish --all killed part-way (crash safety)', () => {
  it('leaves every provider fully published or untouched; the next run publishes the rest exactly once', async () => {
    const vars = await embedded();
    const ids = await importAndApprove(vars, await generatedDocuments(GENERATED));
    expect(ids).toHaveLength(GENERATED);

    const store = storeOf(vars);
    try {
      const child = spawn(process.execPath, [BIN, 'publish', '--all', '--json'], {
        env: childEnv(vars),
        stdio: 'ignore',
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      let running = true;
      void exited.then(() => {
        running = false;
      });
      // Kill it as soon as a separate connection sees some publications committed.
      let seen = 0;
      while (running && seen < KILL_AFTER) {
        const row = await store.db
          .selectFrom('indicator_history')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        seen = Number(row.n);
        if (seen < KILL_AFTER) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      child.kill('SIGKILL');
      const { signal } = await exited;
      expect(signal, 'publish finished before it could be killed: make GENERATED larger').toBe('SIGKILL');

      const afterKill = await publicationState(store);
      expect(afterKill).toHaveLength(GENERATED);
      const published = afterKill.filter((p) => p.current);
      console.info(
        `crash test: ${GENERATED} providers, ${seen} seen published when the kill was sent, ${published.length} published at the kill`,
      );
      expect(published.length).toBeGreaterThan(0);
      expect(published.length).toBeLessThan(GENERATED);
      for (const p of afterKill) {
        const { id, ...state } = p;
        expect(state, id).toEqual(p.current ? FULLY_PUBLISHED : UNTOUCHED);
      }

      const rerun = await svcJsonIn<Report>(vars, 'publish', '--all');
      expect(rerun.status, rerun.stderr).toBe(0);
      expect(rerun.json.counts).toEqual({
        published: GENERATED - published.length,
        unchanged: published.length,
        refused: 0,
      });
      const unchanged = new Set(rerun.json.outcomes.filter((o) => o.status === 'unchanged').map((o) => o.provider_id));
      expect(unchanged).toEqual(new Set(published.map((p) => p.id)));
      for (const { id, ...state } of await publicationState(store)) expect(state, id).toEqual(FULLY_PUBLISHED);
      const { counts } = await contentsOf(store);
      expect(counts).toMatchObject({ indicator_history: GENERATED, risk_indicators: GENERATED, changelog: GENERATED });
    } finally {
      await store.close();
    }
  });
});

/** The worked example with another collateral coverage ratio: a new submission of the same provider. */
async function workedWithCoverage(ratio: number): Promise<string> {
  const document = await readExample();
  const input = document.inputs.collateral_coverage_ratio;
  if (!input) throw new Error('no collateral_coverage_ratio');
  input.value = ratio;
  return writeTemp(`worked-${ratio}.json`, document);
}

/** The row of one provider in the text report: its cells, trimmed. */
function rowOf(stdout: string, name: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`│ ${name} `));
  if (!line) throw new Error(`no row for ${name} in:\n${stdout}`);
  return line
    .split('│')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

describe('svc publish: each provider with its score, band and move', () => {
  it('new on a first publication, then up, down or unchanged from the indicator in force before', async () => {
    const vars = await embedded();
    await importAndApprove(vars, await folderOf(['worked-example.json', 'low-band.json']));
    const first = await svcIn(vars, 'publish', '--all');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('published 2, unchanged 0, refused 0:');
    expect(first.stdout).toMatch(/Provider +│ Provider id +│ Outcome +│ Score +│ Band +│ Move +│ Before/);
    expect(rowOf(first.stdout, 'Example Sats Lending')).toEqual([
      'Example Sats Lending',
      WORKED_ID,
      'published',
      '78.46',
      'MEDIUM',
      'new',
      '-',
    ]);
    const low = (await svcJsonIn<Report>(vars, 'publish', '--all', '--dry-run')).json.outcomes.find(
      (o) => o.provider_id !== WORKED_ID,
    );
    expect(low).toMatchObject({ status: 'unchanged' });

    await importAndApprove(vars, await workedWithCoverage(2.5));
    const up = await svcIn(vars, 'publish', WORKED_ID);
    expect(up.status, up.stderr).toBe(0);
    const upRow = rowOf(up.stdout, 'Example Sats Lending');
    expect(upRow.slice(2, 4)).toEqual(['published', expect.any(String)]);
    expect(Number(upRow[3])).toBeGreaterThan(78.46);
    expect(upRow[5]).toMatch(/^up( \(MEDIUM -> LOW\))?$/);
    expect(upRow[6]).toBe('78.46 MEDIUM');

    await importAndApprove(vars, await workedWithCoverage(1.1));
    const down = await svcJsonIn<Report & { outcomes: { final_score: number; previous_score: number | null }[] }>(
      vars,
      'publish',
      WORKED_ID,
    );
    expect(down.status, down.stderr).toBe(0);
    const outcome = down.json.outcomes[0];
    expect(outcome?.previous_score).toBe(Number(upRow[3]));
    expect(outcome?.final_score).toBeLessThan(Number(upRow[3]));
    const again = await svcIn(vars, 'publish', WORKED_ID);
    expect(rowOf(again.stdout, 'Example Sats Lending').slice(2)).toEqual([
      'unchanged',
      outcome?.final_score.toFixed(2),
      expect.any(String),
      'unchanged',
      expect.stringMatching(new RegExp(`^${outcome?.final_score.toFixed(2).replace('.', '\\.')} `)),
    ]);
  });

  it('a dry run shows the move it would make, a refused provider shows none', async () => {
    const vars = await embedded();
    await importAndApprove(vars, await folderOf(['worked-example.json', 'missing-inputs.json']));
    const dry = await svcIn(vars, 'publish', '--all', '--dry-run');
    expect(dry.status).toBe(1);
    expect(dry.stdout).toContain('would be published 1, would be unchanged 0, would be refused 1:');
    expect(dry.stdout).toMatch(/Provider +│ Provider id +│ Would be +│ Score/);
    expect(rowOf(dry.stdout, 'Example Sats Lending').slice(2)).toEqual(['published', '78.46', 'MEDIUM', 'new', '-']);
    const refused = dry.stdout.split('\n').find((l) => l.includes(MISSING_ID) && l.includes('refused'));
    expect(
      refused
        ?.split('│')
        .slice(3, -1)
        .map((c) => c.trim()),
    ).toEqual(['refused', '-', '-', '-', '-']);
    expect(dry.stdout).toContain('Refused (not published):');
  });
});
