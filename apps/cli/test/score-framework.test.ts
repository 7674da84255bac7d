import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Env, embedded, freshSchema, postgresAvailable, storeOf, svcIn, svcJsonIn } from './operations.js';
import { EXAMPLES, STACK_FRAME, WORKED_EXAMPLE } from './svc.js';

/**
 * `svc score` without --framework (issue 33, decision 0022): each document is scored under the framework in force on
 * its evaluation date, as the API's frameworkInForce answers it, among the frameworks the command knows: the engine's
 * built-in ones and, when a store is configured, the releases recorded there. The worked example is evaluated on
 * 2026-06-30, the low-band example on 2026-07-15.
 */

const LOW_BAND = join(EXAMPLES, 'low-band.json');
/** A release recorded by a later engine: DCRF v1.1, in force from 2026-07-01, which this engine does not carry. */
const LATER_RELEASE = {
  version: '1.1',
  framework_version: 'DCRF v1.1',
  framework_sha256: 'ab'.repeat(32),
  signed_off_by: 'Dana Risk',
  signed_off_at: '2026-06-20T09:00:00.000Z',
  effective_date: '2026-07-01',
  published_at: '2026-06-20T09:00:00.000Z',
};

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

describe('svc score with no store configured', () => {
  it('scores under the built-in framework, offline: no store is made', async () => {
    const vars = await embedded();
    const run = await svcJsonIn<{ framework_version: string }>(vars, 'score', WORKED_EXAMPLE);
    expect(run.status, run.stderr).toBe(0);
    expect(run.json.framework_version).toBe('DCRF v1.0');
    expect(existsSync(vars.SVC_DATA_DIR)).toBe(false);
  });

  it('a configuration that cannot be read names no store: it scores offline, and says so on stderr', async () => {
    const run = await svcIn({ DATABASE_URL: 'mysql://x' }, 'score', WORKED_EXAMPLE, '--json');
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ framework_version: 'DCRF v1.0' });
    expect(run.stderr).toBe(
      'warning: invalid configuration: DATABASE_URL: must be a postgres:// URL (leave it unset for the embedded SQLite store): no store is read for the framework in force (name one with --framework)\n',
    );
  });

  it('a configured store that cannot be read stops it (exit 2), saying how to score without it', async () => {
    const vars = {
      ...(await embedded()),
      DATABASE_URL: 'postgres://svc@127.0.0.1:1/none',
      SVC_STORE_TIMEOUT_MS: '2000',
    };
    const run = await svcIn(vars, 'score', WORKED_EXAMPLE);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^error: cannot use the PostgreSQL store 127\.0\.0\.1:1\/none: .*name one with --framework/,
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    const json = await svcIn(vars, 'score', WORKED_EXAMPLE, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ code: 'store_unavailable' });
    expect((await svcIn(vars, 'score', WORKED_EXAMPLE, '--framework', '1.0')).status).toBe(0);
  });
});

describe.each(STORES)('svc score with a store on %s', (_name, fresh) => {
  it('a release of the built-in version recorded there scores the same bytes as the built-in framework', async () => {
    const { vars, drop } = await fresh();
    try {
      const publish = await svcIn(vars, 'methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk');
      expect(publish.status, publish.stderr).toBe(0);
      const inForce = await svcIn(vars, 'score', EXAMPLES, '--json');
      expect(inForce.status, inForce.stderr).toBe(0);
      expect(inForce.stdout).toBe((await svcIn(vars, 'score', EXAMPLES, '--json', '--framework', '1.0')).stdout);
    } finally {
      await drop();
    }
  });

  it("chooses by each document's evaluation date: a later release recorded there is in force from its effective date", async () => {
    const { vars, drop } = await fresh();
    try {
      expect((await svcIn(vars, 'db', 'migrate')).status).toBe(0);
      const store = storeOf(vars);
      try {
        await store.db.insertInto('framework_releases').values(LATER_RELEASE).execute();
      } finally {
        await store.close();
      }
      // Evaluated the day before DCRF v1.1 takes effect: the built-in DCRF v1.0.
      const before = await svcJsonIn<{ framework_version: string }>(vars, 'score', WORKED_EXAMPLE);
      expect(before.status, before.stderr).toBe(0);
      expect(before.json.framework_version).toBe('DCRF v1.0');
      // Evaluated after it: DCRF v1.1 is in force, and this engine cannot score under it.
      const after = await svcIn(vars, 'score', LOW_BAND);
      expect(after.status).toBe(2);
      expect(after.stderr).toContain(`published framework DCRF v1.1 (sha256 ${'ab'.repeat(32)}) is not known`);
      expect(after.stderr).not.toMatch(STACK_FRAME);
      // The evaluation date as --date sets it counts; a framework named is the one.
      expect((await svcIn(vars, 'score', WORKED_EXAMPLE, '--date', '2026-07-01')).status).toBe(2);
      expect((await svcIn(vars, 'score', LOW_BAND, '--framework', '1.0')).status).toBe(0);
    } finally {
      await drop();
    }
  });
});
