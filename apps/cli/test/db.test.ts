import { describe, expect, it } from 'vitest';
import {
  afterOpenModeWarning,
  contentsOf,
  type Env,
  embedded,
  freshSchema,
  postgresAvailable,
  storeOf,
  svcIn,
  svcJsonIn,
} from './operations.js';
import { STACK_FRAME, WORKED_EXAMPLE } from './svc.js';

interface SeedJson {
  store: string;
  framework_version: string;
  providers: { name: string; risk_band: string; hard_caps_fired: string[]; published: number }[];
  published: number;
  changes: Record<string, number>;
  rating_actions: { approved: number; withdrawn: number };
  issuances: { inserted: number; updated: number; unchanged: number };
  changed: boolean;
}

async function contents(vars: Env) {
  const store = storeOf(vars);
  try {
    return await contentsOf(store);
  } finally {
    await store.close();
  }
}

/** Seeds twice: the first run loads everything, the second changes nothing at all. */
async function seedsOnceOnly(vars: Env, kind: string): Promise<void> {
  const first = await svcJsonIn<SeedJson>(vars, 'db', 'seed', '--demo');
  expect(first.status, first.stderr).toBe(0);
  // A fresh store has no operators: the seed publishes in open mode, and says so once.
  expect(afterOpenModeWarning(first.stderr)).toBe('');
  expect(first.json.store).toBe(kind);
  expect(first.json.changed).toBe(true);
  expect(first.json.providers.length).toBeGreaterThanOrEqual(12);
  // NEW: every provider, and the reinstatement of the one withdrawn between the second and third rounds.
  expect(first.json.changes).toEqual({ NEW: first.json.providers.length + 1, SCORE_CHANGE: 2, BAND_CHANGE: 2 });
  expect(first.json.published).toBe(first.json.providers.length + 5);
  expect(first.json.rating_actions).toEqual({ approved: 2, withdrawn: 1 });
  expect(first.json.issuances).toEqual({ inserted: 8, updated: 0, unchanged: 0 });
  const after = await contents(vars);

  const second = await svcJsonIn<SeedJson>(vars, 'db', 'seed', '--demo');
  expect(second.status, second.stderr).toBe(0);
  expect(second.json.changed).toBe(false);
  expect(second.json.published).toBe(0);
  expect(second.json.changes).toEqual({ NEW: 0, SCORE_CHANGE: 0, BAND_CHANGE: 0 });
  expect(second.json.rating_actions).toEqual({ approved: 0, withdrawn: 0 });
  expect(second.json.issuances).toEqual({ inserted: 0, updated: 0, unchanged: 8 });
  expect(await contents(vars)).toEqual(after);

  const third = await svcIn(vars, 'db', 'seed', '--demo');
  expect(third.status).toBe(0);
  expect(third.stdout.split('\n')[0]).toMatch(
    /nothing changed, the demo data set \(DCRF v1\.0, 14 providers, 8 issuances\)/,
  );
  expect(await contents(vars)).toEqual(after);
}

describe('svc db migrate', () => {
  it('applies the migrations once, then reports the store up to date', async () => {
    const vars = await embedded();
    const first = await svcIn(vars, 'db', 'migrate');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`SQLite store ${vars.SVC_DATA_DIR}/svc.db: applied 13 migrations`);
    expect(first.stdout).toContain('0001-initial');
    const second = await svcIn(vars, 'db', 'migrate');
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('up to date, no migrations to apply');
    expect((await svcJsonIn(vars, 'db', 'migrate')).json).toEqual({
      store: 'sqlite',
      applied: [],
      up_to_date: true,
      statements: { signed: 0, kid: null },
    });
  });

  it('--json lists what it applied', async () => {
    const run = await svcJsonIn(await embedded(), 'db', 'migrate');
    expect(run.status).toBe(0);
    expect(run.json).toEqual({
      store: 'sqlite',
      applied: [
        '0001-initial',
        '0002-framework-releases',
        '0003-webhooks',
        '0004-history-framework',
        '0005-path-to-next-band',
        '0006-list-indexes',
        '0007-record-history',
        '0008-keys-and-best-band-paths',
        '0009-operators-and-audit',
        '0010-signed-statements',
        '0011-as-of-index',
        '0012-rating-actions',
        '0013-audit-time-and-name-keys',
      ],
      up_to_date: false,
      // Nothing was published before statements existed: nothing to sign after the fact.
      statements: { signed: 0, kid: null },
    });
  });
});

describe('svc db seed --demo', () => {
  it('loads the demo data set once: a second and third run change nothing (SQLite)', async () => {
    await seedsOnceOnly(await embedded(), 'sqlite');
  });

  it('shows people what it loaded: a headline and a table of the providers', async () => {
    const run = await svcIn(await embedded(), 'db', 'seed', '--demo');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /loaded the demo data set \(DCRF v1\.0, 14 providers, 8 issuances\): 19 indicators published \(change feed: 15 NEW, 2 SCORE_CHANGE, 2 BAND_CHANGE\), 2 analyst actions approved, 1 withdrawal, 8 issuances added/,
    );
    for (const text of ['Northwind Sats Lending (demo)', 'HC-04, HC-06', 'SEVERE', 'Published now']) {
      expect(run.stdout).toContain(text);
    }
  });

  it('without --demo is a usage error (exit 2)', async () => {
    const run = await svcIn(await embedded(), 'db', 'seed');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("required option '--demo' not specified");
  });

  it.skipIf(!postgresAvailable)('loads the same data set once into PostgreSQL (DATABASE_URL)', async () => {
    const schema = await freshSchema();
    try {
      const vars = { DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
      await seedsOnceOnly(vars, 'postgres');
      const sqlite = await embedded();
      expect((await svcIn(sqlite, 'db', 'seed', '--demo')).status).toBe(0);
      const [fromPostgres, fromSqlite] = [await contents(vars), await contents(sqlite)];
      expect(fromPostgres.counts).toEqual(fromSqlite.counts);
      expect(fromPostgres.history).toEqual(fromSqlite.history);
      expect(fromPostgres.issuances).toEqual(fromSqlite.issuances);
    } finally {
      await schema.drop();
    }
  });
});

describe('svc: configuration from the environment', () => {
  const bad: [string, string, string[]][] = [
    ['PORT', 'abc', ['serve']],
    ['PORT', '70000', ['db', 'migrate']],
    ['DATABASE_URL', 'mysql://x', ['db', 'migrate']],
    ['DATABASE_URL', 'mysql://x', ['db', 'seed', '--demo']],
    // URLs the drivers cannot read: once an "unexpected failure: Invalid URL"; the password never echoed.
    ['DATABASE_URL', 'postgres://svc:s3cret@127.0.0.1:99999/svc', ['provider', 'list']],
    ['DATABASE_URL', 'postgres://svc:s3cret@[::1/svc', ['db', 'migrate']],
    ['REDIS_URL', 'redis://127.0.0.1:99999', ['serve']],
    ['SVC_MASTER_KEY', 'too-short', ['workspace', 'create', 'x']],
    ['LOG_LEVEL', 'loud', ['key', 'list', '--workspace', 'ws_x']],
    ['SVC_MAX_EVALUATION_AGE_DAYS', 'a month', ['publish', '--all']],
    ['SVC_REVIEW_CADENCE_DAYS', '0', ['publish', '--all']],
    ['SVC_REVIEW_CADENCE_DAYS_GOLD', '90', ['inputs', 'list']],
  ];
  for (const [name, value, args] of bad) {
    it(`${name}=${value} stops \`svc ${args.join(' ')}\` with exit 2, naming the variable`, async () => {
      const vars = { ...(await embedded()), [name]: value };
      const run = await svcIn(vars, ...args);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^error: invalid configuration: ${name}: `));
      expect(run.stderr).not.toMatch(STACK_FRAME);
      expect(run.stderr).not.toContain('s3cret');
    });
  }

  it('reports a bad variable as a JSON error object with --json', async () => {
    const run = await svcIn({ DATABASE_URL: 'mysql://x' }, 'db', 'migrate', '--json');
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: expect.stringMatching(/^invalid configuration: DATABASE_URL: must be a postgres:\/\/ URL/),
      code: 'invalid_config',
    });
  });

  it('scoring and verifying do not read the configuration: a bad variable does not stop them', async () => {
    const run = await svcIn({ PORT: 'abc', DATABASE_URL: 'mysql://x' }, 'score', WORKED_EXAMPLE, '--json');
    expect(run.status, run.stderr).toBe(0);
  });

  it('methodology show reads the recorded sign-off from the configured store, so a bad variable stops it (exit 2)', async () => {
    const run = await svcIn({ DATABASE_URL: 'mysql://x' }, 'methodology', 'show');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: invalid configuration: DATABASE_URL: /);
  });

  it('an unreachable PostgreSQL is a clear failure (exit 2), without the password', async () => {
    const run = await svcIn(
      { DATABASE_URL: 'postgres://svc:s3cret@127.0.0.1:1/svc', SVC_STORE_TIMEOUT_MS: '500' },
      'db',
      'migrate',
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: cannot use the PostgreSQL store 127\.0\.0\.1:1\/svc: /);
    expect(run.stderr).not.toContain('s3cret');
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});
