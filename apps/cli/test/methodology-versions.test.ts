import type { Store } from '@svc/api';
import { describe, expect, it } from 'vitest';
import { draft11 } from './draft-framework.js';
import { type Env, embedded, freshSchema, postgresAvailable, storeOf, svcIn, svcJsonIn } from './operations.js';
import { EXAMPLES, folderOf, pins, svc, svcJson, WORKED_EXAMPLE, writeTemp } from './svc.js';

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';

interface Move {
  file: string;
  name: string;
  a: { final_score: string; risk_band: string };
  b: { final_score: string; risk_band: string };
  delta: string;
  band_move: string | null;
}

async function draftFile(): Promise<string> {
  return writeTemp('dcrf-1.1.json', draft11());
}

describe('svc methodology diff A B --inputs DIR', () => {
  it('scores the same inputs under both versions side by side, with a draft from --framework-file', async () => {
    const draft = await draftFile();
    const run = await svcJson('methodology', 'diff', '1.0', '1.1', '--inputs', EXAMPLES, '--framework-file', draft);
    expect(run.status, run.stderr).toBe(0);
    const body = run.json as { to: { framework_version: string }; changes: { path: string }[]; providers: Move[] };
    expect(body.to.framework_version).toBe('DCRF v1.1');
    expect(body.changes.map((c) => c.path)).toContain('hard_caps[HC-08]');
    expect(body.providers).toHaveLength(5);
    const low = body.providers.find((p) => p.file === 'low-band.json');
    expect(low).toMatchObject({ delta: '-15.55', band_move: 'LOW -> MEDIUM' });
    expect(low?.a).toMatchObject({ final_score: '95.54', risk_band: 'LOW' });
    expect(low?.b).toMatchObject({ final_score: '79.99', risk_band: 'MEDIUM' });
  });

  it('prints a table of score and band moves per provider for people', async () => {
    const draft = await draftFile();
    const run = await svc('methodology', 'diff', 'v1.0', 'DCRF v1.1', '--inputs', EXAMPLES, '--framework-file', draft);
    expect(run.status, run.stderr).toBe(0);
    for (const text of ['Score DCRF v1.0', 'Band DCRF v1.1', 'Example Harbour Custody', 'LOW -> MEDIUM', '-15.55']) {
      expect(run.stdout).toContain(text);
    }
    expect(run.stdout).toMatch(/5 providers, \d+ band moves?/);
  });

  it('lists invalid documents as problems (exit 2) after the ones it could compare', async () => {
    const dir = await folderOf(['worked-example.json']);
    await writeTemp('broken.json', { not: 'inputs' }, dir);
    const run = await svc('methodology', 'diff', '1.0', '1.0', '--inputs', dir);
    expect(run.status).toBe(2);
    expect(run.stdout).toContain('Example Sats Lending');
    expect(run.stderr).toContain('1 of 2 files');
    expect(run.stderr).toContain('broken.json');
  });

  it('without --framework-file the draft is unknown (exit 2); a draft may not reuse a built-in version', async () => {
    expect((await svc('methodology', 'diff', '1.0', '1.1', '--inputs', EXAMPLES)).status).toBe(2);
    const clash = await writeTemp('clash.json', { ...draft11(), version: '1.0' });
    const run = await svc('methodology', 'diff', '1.0', '1.0', '--framework-file', clash);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('already known');
  });

  it('shows a draft as a draft', async () => {
    const run = await svc('methodology', 'show', '--framework', '1.1', '--framework-file', await draftFile());
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('DCRF v1.1');
    expect(run.stdout).toContain('no sign-off');
    expect(run.stdout).toContain('HC-08');
  });
});

interface PublishJson {
  created: boolean;
  release: { version: string; signed_off_by: string; framework_sha256: string; effective_date: string };
  rescore: { framework_version: string; counts: { published: number; unchanged: number; refused: number } } | null;
}

async function releasesIn(vars: Env) {
  const store: Store = storeOf(vars);
  try {
    return await store.db.selectFrom('framework_releases').selectAll().execute();
  } finally {
    await store.close();
  }
}

describe('svc methodology publish VERSION --signed-off-by NAME', () => {
  it('records the sign-off, re-scores every provider with approved inputs, and is idempotent', async () => {
    const vars = await embedded();
    const imported = await svcJsonIn<{ provider_id: string }[]>(vars, 'inputs', 'import', EXAMPLES, '--by', 'alice');
    expect(imported.status, imported.stderr).toBe(0);
    const ids = imported.json.map((s) => s.provider_id);
    expect((await svcIn(vars, 'inputs', 'approve', ...ids, ...pins(...ids), '--by', 'bob')).status).toBe(0);

    const run = await svcJsonIn<PublishJson>(vars, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk');
    // The examples hold documents below the confidence threshold: refused, so exit 1 as `svc publish`.
    expect(run.json.rescore?.counts.refused).toBeGreaterThan(0);
    expect(run.status, run.stderr).toBe(1);
    expect(run.json.created).toBe(true);
    expect(run.json.release).toMatchObject({
      version: '1.0',
      signed_off_by: 'Dana Risk',
      effective_date: '2026-04-01',
    });
    expect(run.json.rescore?.framework_version).toBe('DCRF v1.0');
    expect(run.json.rescore?.counts.published).toBeGreaterThan(0);
    expect(await releasesIn(vars)).toHaveLength(1);

    const again = await svcIn(vars, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk');
    expect(again.status, again.stderr).toBe(1);
    expect(again.stdout).toContain('was already published');
    expect(again.stdout).toContain('Re-score of every provider');
    expect(await releasesIn(vars)).toHaveLength(1);
  });

  it('refuses an unsigned framework and a version the engine does not know, writing nothing', async () => {
    const vars = await embedded();
    const unsigned = await svcIn(vars, 'methodology', 'publish', '1.0', '--signed-off-by', ' ');
    expect(unsigned.status).toBe(2);
    expect(unsigned.stderr).toMatch(/--signed-off-by/);
    expect((await svcIn(vars, 'methodology', 'publish', '1.0')).status).toBe(2);
    expect((await svcIn(vars, 'methodology', 'publish', '1.1', '--signed-off-by', 'Dana Risk')).status).toBe(2);
    expect(await releasesIn(vars)).toEqual([]);
  });
});

interface ShowJson {
  sha256: string;
  sign_off: { role: string; signed_off_by: string; signed_off_on: string } | null;
  definition: unknown;
}

/** A fresh store of each engine: SVC_DATA_DIR, or a PostgreSQL schema when PostgreSQL answers here. */
const STORES: [string, () => Promise<{ vars: Env; drop(): Promise<void> }>][] = [
  ['SQLite', async () => ({ vars: await embedded(), drop: async () => {} })],
  ...(postgresAvailable
    ? ([
        [
          'PostgreSQL',
          async () => {
            const schema = await freshSchema();
            return { vars: { ...(await embedded()), DATABASE_URL: schema.url }, drop: schema.drop };
          },
        ],
      ] as [string, () => Promise<{ vars: Env; drop(): Promise<void> }>][])
    : []),
];

describe.each(STORES)('svc methodology publish, then show, on %s', (_name, fresh) => {
  it('show prints the sign-off the release recorded (one source of truth); the framework keeps its bytes', async () => {
    const { vars, drop } = await fresh();
    try {
      const builtIn = await svcJsonIn<ShowJson>(vars, 'methodology', 'show');
      expect(builtIn.status, builtIn.stderr).toBe(0);
      expect(builtIn.json.sign_off?.signed_off_on).toBe('2026-04-01');

      const published = await svcJsonIn<PublishJson & { release: { signed_off_at: string } }>(
        vars,
        'methodology',
        'publish',
        '1.0',
        '--signed-off-by',
        'Dana Risk',
      );
      expect(published.status, published.stderr).toBe(0);
      const on = published.json.release.signed_off_at.slice(0, 10);
      expect(on).not.toBe('2026-04-01');

      for (const args of [[], ['--framework', '1.0'], ['--framework', 'DCRF v1.0']]) {
        const shown = await svcJsonIn<ShowJson>(vars, 'methodology', 'show', ...args);
        expect(shown.status, shown.stderr).toBe(0);
        expect(shown.json.sign_off).toEqual({
          role: 'chief_risk_officer',
          signed_off_by: 'Dana Risk',
          signed_off_on: on,
        });
        expect(shown.json.sha256).toBe(builtIn.json.sha256);
        expect(JSON.stringify(shown.json.definition)).toBe(JSON.stringify(builtIn.json.definition));
      }
      const text = await svcIn(vars, 'methodology', 'show');
      expect(text.stdout).toContain(`signed off by Dana Risk (chief_risk_officer) on ${on}`);
      expect(text.stdout).not.toContain('on 2026-04-01');
    } finally {
      await drop();
    }
  });

  it('exits 1 when the re-score refused a provider, as svc publish does; 0 when none was', async () => {
    const { vars, drop } = await fresh();
    try {
      const dir = await folderOf(['worked-example.json', 'missing-inputs.json']);
      const imported = await svcJsonIn<{ provider_id: string }[]>(vars, 'inputs', 'import', dir, '--by', 'alice');
      expect(imported.status, imported.stderr).toBe(0);
      const ids = imported.json.map((s) => s.provider_id);
      expect((await svcIn(vars, 'inputs', 'approve', ...ids, ...pins(...ids), '--by', 'bob')).status).toBe(0);
      const publish = await svcIn(vars, 'publish', '--all', '--dry-run');
      expect(publish.status).toBe(1);

      const run = await svcIn(vars, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk');
      expect(run.status, run.stderr).toBe(1);
      expect(run.stdout).toContain('Refused (not published)');
      const json = await svcJsonIn<PublishJson>(vars, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk');
      expect(json.status).toBe(1);
      expect(json.json.rescore?.counts.refused).toBe(1);

      const clean = await embedded();
      expect((await svcIn(clean, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice')).status).toBe(0);
      expect((await svcIn(clean, 'inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob')).status).toBe(0);
      expect((await svcIn(clean, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk')).status).toBe(0);
    } finally {
      await drop();
    }
  });
});
