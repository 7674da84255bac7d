import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { deferWrites, shiftPlaceholders } from '../../src/store/deferred-writes.js';
import { insertChange } from '../../src/store/repositories/changelog.js';
import { readMeta, setMeta } from '../../src/store/repositories/meta.js';
import { insertWorkspace } from '../../src/store/repositories/workspaces.js';
import type { Store } from '../../src/store/store.js';
import { sentStatements } from '../support/round-trips.js';
import { engines, useFreshStore } from '../support/stores.js';

// Decision 0038: a transaction's writes held until its next read or its commit, and sent together (PostgreSQL).

const AT = '2026-07-01T09:00:00.000Z';
const workspace = (id: string, name = id) => ({
  id,
  name,
  webhook_secret_enc: 'x',
  previous_webhook_secret_enc: null,
  previous_secret_expires_at: null,
  mcp_enabled: 0,
  created_at: AT,
});

const change = (name: string) => ({
  provider_id: 'p_deferred',
  provider_name: name,
  change_type: 'NEW',
  previous_score: null,
  new_score: 50,
  previous_band: null,
  new_band: 'ELEVATED',
  framework_version: 'DCRF v1.0',
  risk_indicator_id: null,
  changed_at: AT,
});

describe('placeholders moved up', () => {
  it('moves every $n, many digits too, and nothing inside quoted literals or identifiers', () => {
    expect(shiftPlaceholders('insert into "t" ("a", "b") values ($1, $12)', 3)).toBe(
      'insert into "t" ("a", "b") values ($4, $15)',
    );
    expect(shiftPlaceholders(`select '$1', 'it''s $2', "col$3", """$4""" where x = $5`, 10)).toBe(
      `select '$1', 'it''s $2', "col$3", """$4""" where x = $15`,
    );
    expect(shiftPlaceholders('update "t" set "v" = $1', 0)).toBe('update "t" set "v" = $1');
  });

  it('refuses a statement whose quote never closes rather than guess', () => {
    expect(() => shiftPlaceholders("select 'open", 1)).toThrow(/unterminated/);
  });
});

/** The statements the PostgreSQL driver sends while `work` runs (each one round trip), their first 40 characters. */
async function sent<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const { result, statements } = await sentStatements(work);
  return { result, statements: statements.map((text) => text.slice(0, 40)) };
}

describe.each(engines)('deferred writes on %s', (engine) => {
  const store = useFreshStore(engine);
  const names = async (s: Store) =>
    (await s.db.selectFrom('workspaces').select('name').orderBy('id').execute()).map((r) => r.name);

  it('a read inside the transaction sees every write made before it', async () => {
    await store.db.transaction().execute(async (tx) => {
      await deferWrites(tx, store.dialect);
      await insertWorkspace(tx, workspace('ws_1', 'one'));
      await setMeta(tx, 'deferred_test', 'a');
      expect(await names({ ...store, db: tx })).toEqual(['one']);
      expect(await readMeta(tx, 'deferred_test')).toBe('a');
    });
    expect(await names(store)).toEqual(['one']);
  });

  it('a second write to a table follows the first: an update of a row inserted in the same run applies', async () => {
    await store.db.transaction().execute(async (tx) => {
      await deferWrites(tx, store.dialect);
      await insertWorkspace(tx, workspace('ws_2', 'before'));
      await tx.updateTable('workspaces').set({ name: 'after' }).where('id', '=', 'ws_2').execute();
      await insertWorkspace(tx, workspace('ws_3', 'third'));
    });
    expect(await names(store)).toEqual(['after', 'third']);
  });

  it('a literal holding $1 is stored as written when the writes go together', async () => {
    await store.db.transaction().execute(async (tx) => {
      await deferWrites(tx, store.dialect);
      await setMeta(tx, 'deferred_a', 'first');
      await insertWorkspace(tx, { ...workspace('ws_4'), name: sql<string>`${sql.lit("costs $1, it's $2")}` as never });
    });
    expect(await names(store)).toEqual(["costs $1, it's $2"]);
    expect(await readMeta(store.db, 'deferred_a')).toBe('first');
  });

  it('a held write that fails fails the transaction, and nothing of it stays', async () => {
    await insertWorkspace(store.db, workspace('ws_5', 'kept'));
    await expect(
      store.db.transaction().execute(async (tx) => {
        await setMeta(tx, 'deferred_b', 'sent at once');
        await deferWrites(tx, store.dialect);
        await setMeta(tx, 'deferred_c', 'held');
        await insertWorkspace(tx, workspace('ws_5', 'a duplicate id'));
      }),
    ).rejects.toThrow(/unique|duplicate/i);
    expect(await names(store)).toEqual(['kept']);
    expect(await readMeta(store.db, 'deferred_b')).toBeUndefined();
    expect(await readMeta(store.db, 'deferred_c')).toBeUndefined();
  });

  it('asked again in the same transaction (a batch of publications), keeps what it holds', async () => {
    await store.db.transaction().execute(async (tx) => {
      await deferWrites(tx, store.dialect);
      await insertWorkspace(tx, workspace('ws_11', 'held before'));
      await deferWrites(tx, store.dialect);
      await insertWorkspace(tx, workspace('ws_12', 'held after'));
    });
    expect(await names(store)).toEqual(['held before', 'held after']);
  });

  it('asks for a transaction', async () => {
    if (engine === 'sqlite') return expect(deferWrites(store.db, store.dialect)).resolves.toBeUndefined();
    await expect(deferWrites(store.db, store.dialect)).rejects.toThrow(/inside a transaction/);
  });

  it.runIf(engine === 'postgres')(
    'holds writes past a read of other tables; a second write to a table sends the first (an upsert here)',
    async () => {
      const { statements } = await sent(() =>
        store.db.transaction().execute(async (tx) => {
          await deferWrites(tx, store.dialect);
          await insertWorkspace(tx, workspace('ws_9', 'nine'));
          await setMeta(tx, 'deferred_f', 'f');
          expect(await names({ ...store, db: tx })).toEqual(['nine']);
          await setMeta(tx, 'deferred_f', 'f again');
          await setMeta(tx, 'deferred_f', 'f at last');
        }),
      );
      expect(statements).toEqual([
        'begin',
        'with "w0" as (insert into "workspaces" (',
        'select "name" from "workspaces" order by',
        'insert into "store_meta" ("key", "value"',
        'insert into "store_meta" ("key", "value"',
        'commit',
      ]);
      expect(await readMeta(store.db, 'deferred_f')).toBe('f at last');
    },
  );

  it.runIf(engine === 'postgres')(
    'rows inserted into a table one after the other go as one insert, numbered by its sequence in that order',
    async () => {
      const { statements } = await sent(() =>
        store.db.transaction().execute(async (tx) => {
          await deferWrites(tx, store.dialect);
          await insertWorkspace(tx, workspace('ws_21', 'twenty-one'));
          for (let i = 0; i < 300; i++) await insertChange(tx, change(`row ${i}`));
          await insertWorkspace(tx, workspace('ws_22', 'twenty-two'));
          // A row written with a literal, not a bound value: not the same insert, so the rows held go first.
          await insertChange(tx, { ...change('row 300'), provider_name: sql<string>`${sql.lit('row 300')}` as never });
          await insertChange(tx, change('row 301'));
        }),
      );
      expect(statements).toEqual([
        'begin',
        // the two workspaces as one insert, and the 300 rows as another: sent when the literal row comes
        'with "w0" as (insert into "workspaces" (',
        'insert into "changelog" ("provider_id", ', // the literal row, sent when the next row comes
        'insert into "changelog" ("provider_id", ', // the last row, sent before the commit
        'commit',
      ]);
      const rows = await store.db.selectFrom('changelog').select(['id', 'provider_name']).orderBy('id').execute();
      expect(rows.map((r) => r.provider_name)).toEqual(Array.from({ length: 302 }, (_, i) => `row ${i}`));
      expect(await names(store)).toEqual(['twenty-one', 'twenty-two']);
    },
  );

  it.runIf(engine === 'postgres')(
    'sends writes to different tables in one statement, before the next read and the commit; none held after',
    async () => {
      const { statements } = await sent(() =>
        store.db.transaction().execute(async (tx) => {
          await deferWrites(tx, store.dialect);
          await insertWorkspace(tx, workspace('ws_6', 'six'));
          await setMeta(tx, 'deferred_d', 'd');
          await readMeta(tx, 'deferred_d');
          await insertWorkspace(tx, workspace('ws_7', 'seven'));
        }),
      );
      expect(statements).toEqual([
        'begin',
        'with "w0" as (insert into "workspaces" (',
        'select "value" from "store_meta" where "',
        'insert into "workspaces" ("id", "name", ',
        'commit',
      ]);
      // The next transaction on the pooled connection writes at once again.
      const after = await sent(() =>
        store.db.transaction().execute(async (tx) => {
          await insertWorkspace(tx, workspace('ws_8', 'eight'));
          await setMeta(tx, 'deferred_e', 'e');
        }),
      );
      expect(after.statements.map((s) => s.split(' (')[0])).toEqual([
        'begin',
        'insert into "workspaces"',
        'insert into "store_meta"',
        'commit',
      ]);
      expect(await names(store)).toEqual(['six', 'seven', 'eight']);
    },
  );
});
