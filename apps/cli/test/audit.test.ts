import type { AuditEntry, Store } from '@svc/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, expectFailed, LOW_ID, WORKED_ID, withStoreOf } from './governance-support.js';
import { type Env, svcIn, svcJsonIn } from './operations.js';
import { folderOf, pins } from './svc.js';

/**
 * Issue 13: `svc audit list` and `svc audit verify` over a trail written by the CLI, then edited in the store
 * behind the service's back: every edit but a tail cut together with the recorded head is found, at its seq.
 */

type Verification = { intact: true; entries: number; head: { seq: number; hash: string } } | BrokenVerification;
interface BrokenVerification {
  intact: false;
  entries: number;
  broken_seq: number;
  reason: string;
  head: { seq: number; hash: string } | null;
}

/** What the store holds of the trail: its rows and its recorded head, to put back after each edit. */
interface Trail {
  rows: Record<string, unknown>[];
  head: { seq: number; hash: string };
}

function trailOf(vars: Env): Promise<Trail> {
  return withStoreOf(vars, async (store) => ({
    rows: await store.db.selectFrom('audit_log').selectAll().orderBy('seq').execute(),
    head: await store.db.selectFrom('audit_head').select(['seq', 'hash']).executeTakeFirstOrThrow(),
  }));
}

function restore(vars: Env, trail: Trail): Promise<void> {
  return withStoreOf(vars, async (store) => {
    await store.db.deleteFrom('audit_log').execute();
    await store.db
      .insertInto('audit_log')
      .values(trail.rows as never)
      .execute();
    await store.db.updateTable('audit_head').set(trail.head).where('id', '=', 1).execute();
  });
}

/** Gives row `from` the seq `to` (the seq is the key: a free value is used on the way). */
async function moveSeq(store: Store, from: number, to: number): Promise<void> {
  await store.db.updateTable('audit_log').set({ seq: to }).where('seq', '=', from).execute();
}

describe.each(ENGINES)('svc audit on %s', (_engine, fresh) => {
  let vars: Env;
  /** The whole trail after the cycle, as `svc audit list --json` gives it. */
  let all: AuditEntry[];

  beforeAll(async () => {
    vars = await fresh();
    const dir = await folderOf(['worked-example.json', 'low-band.json']);
    for (const args of [
      ['inputs', 'import', dir, '--by', 'alice'],
      ['inputs', 'approve', WORKED_ID, LOW_ID, ...pins(WORKED_ID, LOW_ID), '--by', 'Bob'],
      ['publish', '--all'],
      ['workspace', 'create', 'Risk desk'],
      ['provider', 'withdraw', LOW_ID, '--reason', 'no longer lends'],
      ['issuances', 'add', '--issuer', 'Example Sats Lending', '--instrument', 'Series A', '--type', 'bond'],
    ]) {
      const run = await svcIn(vars, ...args, ...(args[0] === 'issuances' ? ISSUANCE_REST : []));
      expect(run.status, `${args.join(' ')}\n${run.stderr}`).toBe(0);
    }
    const listed = await svcJsonIn<AuditEntry[]>(vars, 'audit', 'list');
    expect(listed.status, listed.stderr).toBe(0);
    all = listed.json;
  });

  it('the cycle wrote one chain: seq 1, 2, 3… each naming the hash before, one entry per change', () => {
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.map((e) => e.action)).toEqual([
      'audit.started',
      'inputs.imported',
      'inputs.imported',
      'inputs.approved',
      'inputs.approved',
      'indicator.published',
      'indicator.published',
      'workspace.created',
      'provider.withdrawn',
      'issuance.changed',
    ]);
    expect(all[0]?.prev_hash).toBe('0'.repeat(64));
    for (let i = 1; i < all.length; i++) expect(all[i]?.prev_hash).toBe(all[i - 1]?.hash);
    const text = JSON.stringify(all);
    for (const secret of ['whsec_', 'svc_live_', 'svc_op_']) expect(text).not.toContain(secret);
  });

  it('verify: exit 0 with the head hash; status shows the same head', async () => {
    const last = all.at(-1) as AuditEntry;
    const run = await svcIn(vars, 'audit', 'verify');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(`audit trail intact: ${all.length} entries, head seq ${last.seq} hash ${last.hash}\n`);
    expect(run.stderr).toBe('');
    const json = await svcJsonIn<Verification>(vars, 'audit', 'verify');
    expect(json.status).toBe(0);
    expect(json.json).toEqual({ intact: true, entries: all.length, head: { seq: last.seq, hash: last.hash } });
    const status = await svcJsonIn<{ audit_head: unknown }>(vars, 'status');
    expect(status.json.audit_head).toEqual({ seq: last.seq, hash: last.hash });
    expect((await svcIn(vars, 'status')).stdout).toContain(`audit trail: head seq ${last.seq} hash ${last.hash}`);
  });

  it('verify --statements: exit 0 when every record is stated; 1 naming a statement deleted or relabelled, writing nothing', async () => {
    const intact = await svcIn(vars, 'audit', 'verify', '--statements');
    expect(intact.status, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(
      /\nstatements: all \d+ verify, name entries of this trail, and state every publication, withdrawal and rating action\n$/,
    );
    const saved = await withStoreOf(vars, (store) =>
      store.db.selectFrom('statements').selectAll().orderBy('id').execute(),
    );
    const last = saved.at(-1);
    try {
      await withStoreOf(vars, (store) =>
        store.db
          .deleteFrom('statements')
          .where('id', '=', last?.id ?? -1)
          .execute(),
      );
      const deleted = await svcIn(vars, 'audit', 'verify', '--statements');
      expect(deleted.status).toBe(1);
      expect(deleted.stderr).toMatch(
        /^statements incomplete \(provider [0-9a-f-]{36}, ri_[0-9a-f]{24}\): .* has no signed statement\n$/,
      );
      const json = await svcJsonIn<{ statements: { broken: { statement_sha256: null; reason: string } } }>(
        vars,
        'audit',
        'verify',
        '--statements',
      );
      expect(json.status).toBe(1);
      expect(json.json.statements.broken).toMatchObject({ statement_sha256: null });
      await withStoreOf(vars, async (store) => {
        await store.db
          .insertInto('statements')
          .values(last as NonNullable<typeof last>)
          .execute();
        await store.db
          .updateTable('statements')
          .set({ risk_indicator_id: 'ri_000000000000000000000000' })
          .where('id', '=', saved[0]?.id ?? -1)
          .execute();
      });
      const relabelled = await svcIn(vars, 'audit', 'verify', '--statements');
      expect(relabelled.status).toBe(1);
      expect(relabelled.stderr).toContain(`statement ${saved[0]?.statement_sha256} (provider `);
      expect(relabelled.stderr).toContain(
        'does not hold: its risk_indicator_id column says "ri_000000000000000000000000"',
      );
    } finally {
      await withStoreOf(vars, async (store) => {
        await store.db.deleteFrom('statements').execute();
        for (const row of saved) await store.db.insertInto('statements').values(row).execute();
      });
    }
    expect((await svcIn(vars, 'audit', 'verify', '--statements')).status).toBe(0);
  });

  it('list filters by --since, --actor (name in any case, or id), --action (one, or a family), --limit', async () => {
    const list = async (...args: string[]) => {
      const run = await svcJsonIn<AuditEntry[]>(vars, 'audit', 'list', ...args);
      expect(run.status, run.stderr).toBe(0);
      return run.json.map((e) => e.seq);
    };
    const seqs = (keep: (e: AuditEntry) => boolean) => all.filter(keep).map((e) => e.seq);
    const publishedAt = all.find((e) => e.action === 'indicator.published')?.at as string;
    expect(await list('--since', publishedAt)).toEqual(seqs((e) => e.at >= publishedAt));
    expect((await list('--since', publishedAt)).length).toBeLessThan(all.length);
    expect(await list('--since', '2000-01-01')).toEqual(seqs(() => true));
    expect(await list('--since', '2999-01-01')).toEqual([]);
    expect(await list('--actor', 'ALICE')).toEqual(seqs((e) => e.actor.name === 'alice'));
    expect(await list('--actor', 'ALICE')).toHaveLength(2);
    expect(await list('--action', 'inputs.')).toEqual(seqs((e) => e.action.startsWith('inputs.')));
    expect(await list('--action', 'inputs.approved')).toEqual(seqs((e) => e.action === 'inputs.approved'));
    expect(await list('--action', 'inputs.approved', '--actor', 'bob')).toEqual(
      seqs((e) => e.action === 'inputs.approved'),
    );
    expect(await list('--limit', '3')).toEqual([1, 2, 3]);
    expect(await list('--limit', '10000')).toEqual(seqs(() => true));

    const table = await svcIn(vars, 'audit', 'list', '--action', 'provider.withdrawn');
    expect(table.stdout).toMatch(/Seq +│ At +│ Actor +│ Action +│ Subject +│ Details/);
    expect(table.stdout).toContain(`provider ${LOW_ID}`);
    expect((await svcIn(vars, 'audit', 'list', '--since', '2999-01-01')).stdout).toBe('no entries match\n');
  });

  it('bad list options are usage errors (exit 2), never a stack trace', async () => {
    for (const limit of ['0', '10001', '-1', 'ten', '2.5']) {
      expectFailed(
        await svcIn(vars, 'audit', 'list', '--limit', limit),
        2,
        'error: --limit must be a whole number from 1 to 10000\n',
        limit,
      );
    }
    expectFailed(
      await svcIn(vars, 'audit', 'list', '--since', 'yesterday'),
      2,
      'error: --since must be a date on the calendar (2026-11-26) or an ISO 8601 instant, not "yesterday"\n',
    );
    expectFailed(await svcIn(vars, 'audit', 'list', '--action', 'Inputs;drop'), 2, /^error: an action is lower-case/);
  });

  describe('an edited store', () => {
    let trail: Trail;
    beforeAll(async () => {
      trail = await trailOf(vars);
    });

    // Each edit, then the first seq verify must name and why.
    const EDITS: [string, (store: Store, last: number) => Promise<unknown>, (last: number) => number, RegExp][] = [
      [
        "a row's details edited",
        (store) =>
          store.db.updateTable('audit_log').set({ details: '{"reason":"forged"}' }).where('seq', '=', 9).execute(),
        () => 9,
        /^entry 9 was changed after it was written/,
      ],
      [
        "a row's actor edited (the same details, another name)",
        (store) => store.db.updateTable('audit_log').set({ actor_name: 'carol' }).where('seq', '=', 4).execute(),
        () => 4,
        /^entry 4 was changed after it was written/,
      ],
      [
        "a row's details rewritten as other JSON text of the same value",
        async (store) => {
          const row = await store.db.selectFrom('audit_log').select('details').where('seq', '=', 2).executeTakeFirst();
          const spaced = JSON.stringify(JSON.parse(row?.details ?? '{}'), null, 1);
          await store.db.updateTable('audit_log').set({ details: spaced }).where('seq', '=', 2).execute();
        },
        () => 2,
        /^entry 2 was changed after it was written/,
      ],
      [
        'a row in the middle deleted',
        (store) => store.db.deleteFrom('audit_log').where('seq', '=', 5).execute(),
        () => 5,
        /^entry 5 is missing \(the next entry is 6\)/,
      ],
      [
        'two rows swapped',
        async (store) => {
          await moveSeq(store, 6, -6);
          await moveSeq(store, 7, 6);
          await moveSeq(store, -6, 7);
        },
        () => 6,
        /^entry 6 does not name the hash of entry 5/,
      ],
      [
        'the last row removed while the recorded head stays',
        (store, last) => store.db.deleteFrom('audit_log').where('seq', '=', last).execute(),
        (last) => last,
        /^entry (\d+) is missing \(the recorded head is entry \1\)/,
      ],
    ];

    for (const [what, edit, seqOf, reason] of EDITS) {
      it(`${what}: verify exits 1 naming that seq (stderr, and broken_seq in --json)`, async () => {
        const last = all.length;
        await withStoreOf(vars, (store) => edit(store, last));
        try {
          const run = await svcIn(vars, 'audit', 'verify');
          expect(run.status, run.stdout).toBe(1);
          expect(run.stdout).toBe('');
          expect(run.stderr).toMatch(new RegExp(`^audit trail broken at seq ${seqOf(last)}: `));
          expect(run.stderr.replace(/^audit trail broken at seq \d+: /, '')).toMatch(reason);
          const json = await svcJsonIn<BrokenVerification>(vars, 'audit', 'verify');
          expect(json.status).toBe(1);
          expect(json.json).toMatchObject({
            intact: false,
            broken_seq: seqOf(last),
            reason: expect.stringMatching(reason),
          });
        } finally {
          await restore(vars, trail);
        }
      });
    }

    it('the tail cut together with the recorded head cannot be seen from inside the store: only a head kept elsewhere shows it', async () => {
      const before = all.at(-1) as AuditEntry;
      const kept = all.at(-3) as AuditEntry;
      await withStoreOf(vars, async (store) => {
        await store.db.deleteFrom('audit_log').where('seq', '>', kept.seq).execute();
        await store.db.updateTable('audit_head').set({ seq: kept.seq, hash: kept.hash }).where('id', '=', 1).execute();
      });
      try {
        const run = await svcJsonIn<Verification>(vars, 'audit', 'verify');
        expect(run.status).toBe(0);
        expect(run.json).toEqual({ intact: true, entries: kept.seq, head: { seq: kept.seq, hash: kept.hash } });
        expect(run.json.head?.hash).not.toBe(before.hash);
      } finally {
        await restore(vars, trail);
      }
    });

    it('put back as it was, the chain verifies again', async () => {
      const run = await svcJsonIn<Verification>(vars, 'audit', 'verify');
      expect(run.status, run.stderr).toBe(0);
      expect(run.json.head?.hash).toBe(all.at(-1)?.hash);
    });
  });
});

const ISSUANCE_REST = ['--status', 'ANNOUNCED', '--currency', 'USD', '--target-amount', '1000000'];
