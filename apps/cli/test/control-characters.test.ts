import type { Store } from '@svc/api';
import { afterAll, describe, expect, it } from 'vitest';
import {
  contentsOf,
  type Env,
  embedded,
  freshSchema,
  postgresAvailable,
  storeOf,
  svcIn,
  svcJsonIn,
} from './operations.js';
import { pins, readExample, STACK_FRAME, WORKED_EXAMPLE, writeTemp } from './svc.js';

/**
 * Issue 11 item 4: the CLI refuses free text with control characters, and shows any text a store
 * already holds (written before the rule) with its control characters made visible, so a name can
 * neither rewrite the terminal (ESC), split a line (CR, LF) nor reverse what is read (bidi overrides).
 */

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
/** What a hostile name written before the rule may hold: a terminal escape, a CR, a C1 CSI, a bidi override. */
const STORED = 'Evil\u001b[2J\rCo\u009b31m\u202egnidneL';
const SHOWN = 'Evil\\u001b[2J\\u000dCo\\u009b31m\\u202egnidneL';
/** Any character a terminal would obey rather than show, but the line feeds that end lines. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be printed
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function withStore<T>(vars: Env, work: (store: Store) => Promise<T>): Promise<T> {
  const store = storeOf(vars);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const schemas: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of schemas) await s.drop();
});

const stores: [string, () => Promise<Env>][] = [
  ['SQLite', embedded],
  ...(postgresAvailable
    ? [
        [
          'PostgreSQL',
          async () => {
            const schema = await freshSchema();
            schemas.push(schema);
            return { DATABASE_URL: schema.url, LOG_LEVEL: 'warn' };
          },
        ] as [string, () => Promise<Env>],
      ]
    : []),
];

describe.each(stores)('control characters in the CLI on %s', (_name, storeVars) => {
  it('svc inputs import refuses a provider name with a terminal escape: exit 2 (an invalid document), the path and character, nothing stored', async () => {
    const vars = await storeVars();
    const document = await readExample();
    document.provider.name = 'Evil\u001b[2JLending';
    const file = await writeTemp('evil.json', document);
    expect((await svcIn(vars, 'provider', 'list')).status).toBe(0); // the store, made and migrated
    const before = await withStore(vars, contentsOf);
    const run = await svcIn(vars, 'inputs', 'import', file, '--by', 'alice');
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('provider.name: must not hold control characters');
    expect(run.stderr).toContain('found U+001B at character 5');
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(await withStore(vars, contentsOf)).toEqual(before);
  });

  it('--by with a control character is refused, and the error shows the character instead of obeying it', async () => {
    const vars = await storeVars();
    const run = await svcIn(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'al\u001b[2Jice');
    expect(run.status, run.stderr).toBe(2);
    // Refused as the operator's name is read (before any store is written), so the message names --by, not a role.
    expect(run.stderr).toMatch(/--by\)? must not hold control characters.*; found U\+001B at character 3\n$/);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
  });

  it('a name already stored with control characters is shown escaped in tables and in --json', async () => {
    const vars = await storeVars();
    for (const args of [
      ['inputs', 'import', WORKED_EXAMPLE, '--by', 'alice'],
      ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob'],
      ['publish', WORKED_ID],
    ]) {
      const run = await svcIn(vars, ...args);
      expect(run.status, run.stderr).toBe(0);
    }
    // As a store written before the rule holds it.
    await withStore(vars, (store) =>
      store.db.updateTable('providers').set({ name: STORED }).where('id', '=', WORKED_ID).execute(),
    );
    await withStore(vars, (store) =>
      store.db.updateTable('approved_inputs').set({ submitted_by: 'ali\u001b[31mce' }).execute(),
    );

    const table = await svcIn(vars, 'provider', 'list');
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain(SHOWN);
    expect(table.stdout).not.toMatch(RAW_CONTROL);

    const submissions = await svcIn(vars, 'inputs', 'list');
    expect(submissions.status, submissions.stderr).toBe(0);
    expect(submissions.stdout).toContain('ali\\u001b[31mce');
    expect(submissions.stdout).not.toMatch(RAW_CONTROL);

    const json = await svcJsonIn<{ name: string }[]>(vars, 'provider', 'list');
    expect(json.status, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(json.json[0]?.name).toBe(STORED);
  });
});
