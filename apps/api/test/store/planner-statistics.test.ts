import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { GROWN_TABLES, keepPlannerStatistics, LOOK_EVERY } from '../../src/store/planner-statistics.js';
import { engines, freshStore } from '../support/stores.js';

// Decision 0042: a publishing run keeps the statistics of the tables it grows in step on PostgreSQL, so that the
// foreign keys pointing at them stay checked through their index.

const AT = '2026-07-01T09:00:00.000Z';

describe('planner statistics kept in step with a publishing run', () => {
  it('SQLite has nothing to keep', async () => {
    const store = await freshStore('sqlite');
    try {
      expect(await keepPlannerStatistics(store, 10 * LOOK_EVERY)).toEqual([]);
    } finally {
      await store.dispose();
    }
  });

  it.runIf(engines.includes('postgres'))(
    'PostgreSQL: a foreign key checked by a scan (its table analyzed empty) is checked by the index after the look',
    async () => {
      const store = await freshStore('postgres');
      const { url, schema } = store.location as { url: string; schema: string };
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      // auto_explain's plans of this connection, foreign-key checks included, sent to it as messages (LOAD needs the
      // superuser the test server is reached as: trust authentication as postgres, here and in CI).
      const plans: string[] = [];
      client.on('notice', (notice) => plans.push(notice.message ?? ''));
      const run = (text: string) => client.query(text);
      try {
        await run(`set search_path to "${schema}"`);
        // No autovacuum meanwhile: the statistics are the ones this test takes.
        for (const table of GROWN_TABLES) await run(`alter table ${table} set (autovacuum_enabled = false)`);
        await run(`analyze ${GROWN_TABLES.join(', ')}`);
        await run(`load 'auto_explain'`);
        await run('set auto_explain.log_min_duration = 0');
        await run('set auto_explain.log_nested_statements = on');
        await run('set client_min_messages = log');

        const provider = (from: number, to: number) =>
          run(`insert into providers (id, name, planner_type, provider_subtype, yield_min, yield_max, created_at, updated_at)
               select 'p_' || n, 'Provider ' || n, 'bitcoin', 'loan', 1, 2, '${AT}', '${AT}' from generate_series(${from}, ${to}) n`);
        /** The plan of the check of approved_inputs.provider_id, as this connection makes it. */
        const checkPlan = async (id: number) => {
          plans.length = 0;
          await run(`insert into approved_inputs (id, provider_id, document, inputs_sha256, status, submitted_by, submitted_at)
                     values ('s_${id}', 'p_${id}', '{}', 'x', 'PENDING', 'maker', '${AT}')`);
          return plans.find((p) => p.includes('FOR KEY SHARE')) ?? '';
        };

        // The connection checks the key on a table of six rows: after five plans for the value at hand, the server
        // keeps one plan for any value (PostgreSQL's plan cache), made on these six rows.
        await provider(0, 5);
        for (let id = 0; id <= 5; id++) expect(await checkPlan(id)).toMatch(/Seq Scan on providers/);
        await provider(6, 3005);
        // The server's counts of live rows, which the look reads, are written within a second or so of a commit.
        const deadline = Date.now() + 20_000;
        let live = 0;
        for (;;) {
          const { rows } = await run(
            `select n_live_tup::int as live from pg_stat_user_tables where schemaname = '${schema}' and relname = 'providers'`,
          );
          live = (rows[0] as { live: number }).live;
          if (live >= 3006 || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(live).toBeGreaterThanOrEqual(3006);
        // The table has grown to 3,006 rows; the generic plan kept still reads all of them for each check. (Unless
        // the server dropped its plans meanwhile: other test files' schema changes can overflow its queue of cache
        // invalidations, and the next plans are made again for the value at hand, on the table as it is.)
        const grown = await checkPlan(6);
        if (/\(id = \$1\)/.test(grown)) expect(grown).toMatch(/Seq Scan on providers x /);

        expect(await keepPlannerStatistics(store, LOOK_EVERY - 1)).toEqual([]);
        expect(await keepPlannerStatistics(store, 1)).toEqual(['providers']);
        expect(await checkPlan(7)).toMatch(/Index (Only )?Scan using providers_pkey on providers/);
        const { rows } = await run(`select reltuples::int as known from pg_class where oid = 'providers'::regclass`);
        expect((rows[0] as { known: number }).known).toBe(3006);

        // Nothing has doubled since: the next look analyzes nothing.
        expect(await keepPlannerStatistics(store, LOOK_EVERY)).toEqual([]);
      } finally {
        await client.end();
        await store.dispose();
      }
    },
  );
});
