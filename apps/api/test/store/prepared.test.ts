import { describe, expect, it } from 'vitest';
import { prepared } from '../../src/store/prepared.js';
import { insertWorkspace } from '../../src/store/repositories/workspaces.js';
import { engines, useFreshStore } from '../support/stores.js';

const AT = '2026-07-01T09:00:00.000Z';

/** Workspaces named `name` created at `at`, with a constant bound between the two arguments. */
const named = prepared((db, name: string, at: string) =>
  db
    .selectFrom('workspaces')
    .select(['id', 'name'])
    .where('name', '=', name)
    .where('webhook_secret_enc', '!=', 'a constant')
    .where('created_at', '=', at)
    .orderBy('id'),
);

describe.each(engines)('prepared queries on %s', (engine) => {
  const store = useFreshStore(engine);

  async function workspace(id: string, name: string, createdAt = AT) {
    await insertWorkspace(store.db, {
      id,
      name,
      webhook_secret_enc: 'x',
      previous_webhook_secret_enc: null,
      previous_secret_expires_at: null,
      mcp_enabled: 0,
      created_at: createdAt,
    });
  }

  it('runs with each call’s arguments in their places, the constants kept', async () => {
    await workspace('ws_1', 'alpha');
    await workspace('ws_2', 'beta');
    await workspace('ws_3', 'beta', '2026-07-02T09:00:00.000Z');
    expect(await named(store.db, 'alpha', AT)).toEqual([{ id: 'ws_1', name: 'alpha' }]);
    expect(await named(store.db, 'beta', AT)).toEqual([{ id: 'ws_2', name: 'beta' }]);
    expect(await named(store.db, 'beta', '2026-07-02T09:00:00.000Z')).toEqual([{ id: 'ws_3', name: 'beta' }]);
    expect(await named(store.db, 'gamma', AT)).toEqual([]);
  });

  it('runs inside a transaction, seeing its writes', async () => {
    await store.db.transaction().execute(async (tx) => {
      await insertWorkspace(tx, {
        id: 'ws_tx',
        name: 'inside',
        webhook_secret_enc: 'x',
        previous_webhook_secret_enc: null,
        previous_secret_expires_at: null,
        mcp_enabled: 0,
        created_at: AT,
      });
      expect(await named(tx, 'inside', AT)).toEqual([{ id: 'ws_tx', name: 'inside' }]);
    });
  });

  it('never reads inside another flow’s open transaction: SQLite waits for it to end, PostgreSQL reads what is committed', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written = () => {};
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const open = store.db.transaction().execute(async (tx) => {
      await insertWorkspace(tx, {
        id: 'ws_open',
        name: 'uncommitted',
        webhook_secret_enc: 'x',
        previous_webhook_secret_enc: null,
        previous_secret_expires_at: null,
        mcp_enabled: 0,
        created_at: AT,
      });
      written();
      await gate;
    });
    await wrote;
    let answered: unknown = null;
    const read = named(store.db, 'uncommitted', AT).then((rows) => {
      answered = rows;
      return rows;
    });
    try {
      if (engine === 'sqlite') {
        // No answer while the transaction is open (a slow host only makes this more certain).
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(answered).toBeNull();
      } else {
        // PostgreSQL answers while the transaction is still open: waited for as long as a busy host needs, and no
        // longer than the transaction would be held if the read waited for it.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise((resolve) => {
          timer = setTimeout(() => resolve('no answer while the transaction was open'), 10_000);
        });
        expect(await Promise.race([read, late])).toEqual([]);
        clearTimeout(timer);
      }
    } finally {
      // Released whatever the checks found, so that the store can be disposed of.
      release();
      await open;
    }
    expect(await read).toEqual(engine === 'sqlite' ? [{ id: 'ws_open', name: 'uncommitted' }] : []);
    expect(await named(store.db, 'uncommitted', AT)).toEqual([{ id: 'ws_open', name: 'uncommitted' }]);
  });
});
