import { join } from 'node:path';
import type { AuditEntry } from '@svc/api';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  entriesAfter,
  headOf,
  LOW_ID,
  refusedUnchanged,
  WORKED_ID,
  withStoreOf,
  withToken,
} from './governance-support.js';
import { afterOpenModeWarning, type Env, svcIn, svcJsonIn } from './operations.js';
import { EXAMPLES, folderOf, pins, WORKED_EXAMPLE } from './svc.js';

/**
 * Issue 13 (shared/DESIGN-record.md section 1): operators with roles. In open mode (no operator at all) the
 * record-changing commands work with typed names and warn; the first operator must be an administrator; from then
 * on every record-changing command needs SVC_OPERATOR_TOKEN and the role it calls for, and a refusal writes
 * nothing, not even to the audit trail.
 */

const CAPS_ID = '1ac85512-395c-43f8-be97-43173a941f7a';
const TOKEN = /^svc_op_[A-Za-z0-9_-]{43}$/;
const ISSUANCE = [
  '--issuer',
  'Example Sats Lending',
  '--instrument',
  '8.00% Series A Preferred',
  '--type',
  'preferred_share',
  '--status',
  'ANNOUNCED',
  '--currency',
  'USD',
  '--target-amount',
  '25000000',
];

type Role = 'analyst' | 'approver' | 'chief_risk_officer' | 'admin';

/** The risk team of the governed store: who holds which roles. */
const TEAM: Record<string, Role[]> = {
  Alice: ['analyst', 'approver'],
  Bob: ['approver'],
  Carol: ['chief_risk_officer'],
};

/** A coverage request as the public API would have received it (the CLI only resolves them). */
function insertRequest(vars: Env, id: string): Promise<unknown> {
  return withStoreOf(vars, (store) =>
    store.db
      .insertInto('coverage_requests')
      .values({
        id,
        provider_name: `Provider ${id}`,
        website: 'https://example.com',
        contact_email: null,
        planner_type: 'btc',
        message: null,
        fingerprint: `fp_${id}`,
        status: 'RECEIVED',
        received_at: '2026-06-01T00:00:00.000Z',
        resolved_at: null,
        resolution: null,
      })
      .execute(),
  );
}

/** Runs a command that must succeed (exit 0). */
async function ok(vars: Env, ...args: string[]) {
  const run = await svcIn(vars, ...args);
  expect(run.status, `${args.join(' ')}\n${run.stderr}`).toBe(0);
  return run;
}

describe.each(ENGINES)('governance of the record on %s', (_engine, fresh) => {
  describe('open mode: a store without operators', () => {
    let vars: Env;
    beforeAll(async () => {
      vars = await fresh();
      await ok(vars, 'db', 'migrate');
    });

    it('every record-changing command works with the typed name (or none), warns once on stderr, and records it', async () => {
      const dir = await folderOf(['worked-example.json', 'low-band.json']);
      const state: { workspace?: string } = {};
      // The command, the actions it appends, and the name the trail records.
      const steps: [() => string[], string[], string | null][] = [
        [() => ['inputs', 'import', dir, '--by', 'alice'], ['inputs.imported', 'inputs.imported'], 'alice'],
        [
          () => ['inputs', 'approve', WORKED_ID, LOW_ID, ...pins(WORKED_ID, LOW_ID), '--by', 'bob'],
          ['inputs.approved', 'inputs.approved'],
          'bob',
        ],
        [() => ['publish', '--all'], ['indicator.published', 'indicator.published'], null],
        [() => ['provider', 'withdraw', LOW_ID, '--reason', 'no longer lends'], ['provider.withdrawn'], null],
        [
          () => ['methodology', 'publish', '1.0', '--signed-off-by', 'Dana Risk'],
          ['framework.released', 'indicator.published'],
          // The typed sign-off is who the trail records in open mode.
          'Dana Risk',
        ],
        [() => ['workspace', 'create', 'Risk desk'], ['workspace.created'], null],
        [
          () => [
            'workspace',
            'accept-terms',
            `${state.workspace}`,
            '--administrator',
            'Ada Admin',
            '--email',
            'ada@example.com',
          ],
          ['workspace.terms_accepted'],
          null,
        ],
        [() => ['key', 'create', '--workspace', `${state.workspace}`, '--tier', 'FREE'], ['key.created'], null],
        [() => ['issuances', 'add', ...ISSUANCE], ['issuance.changed'], null],
        [
          () => ['requests', 'set', 'cr_aaaaaaaaaaaaaaaaaaaaaaaa', '--status', 'IN_REVIEW'],
          ['coverage_request.status_changed'],
          null,
        ],
      ];
      for (const [argsOf, actions, name] of steps) {
        const args = argsOf();
        if (args[0] === 'requests') await insertRequest(vars, 'cr_aaaaaaaaaaaaaaaaaaaaaaaa');
        const head = await headOf(vars);
        const run = await svcJsonIn<{ workspace_id?: string }>(vars, ...args);
        expect(run.status, `${args.join(' ')}\n${run.stderr}`).toBe(0);
        expect(afterOpenModeWarning(run.stderr), args.join(' ')).toBe('');
        if (args[1] === 'create' && args[0] === 'workspace') state.workspace = run.json.workspace_id;
        const entries = await entriesAfter(vars, head.seq);
        expect(
          entries.map((e) => e.action),
          args.join(' '),
        ).toEqual(actions);
        for (const entry of entries) expect(entry.actor, args.join(' ')).toEqual({ type: 'operator', id: null, name });
      }
    });

    it('self-approval by the same typed name is still refused (exit 1), and nothing is written', async () => {
      await ok(vars, 'inputs', 'import', join(EXAMPLES, 'multiple-caps.json'), '--by', 'carol');
      const run = await refusedUnchanged(
        vars,
        ['inputs', 'approve', CAPS_ID, ...pins(CAPS_ID), '--by', 'Carol'],
        1,
        `provider ${CAPS_ID}: Carol submitted these inputs and cannot approve them; another operator with the approver role must`,
      );
      expect(afterOpenModeWarning(run.stderr)).toMatch(/^error: /);
    });
  });

  describe('with operators', () => {
    let vars: Env;
    /** Each operator's token and id, by name. */
    const tokens: Record<string, string> = {};
    const ids: Record<string, string> = {};
    const as = (name: string) => withToken(vars, tokens[name] ?? `no token for ${name}`);

    beforeAll(async () => {
      vars = await fresh();
    });

    it('bootstrap: the first operator needs no token and must be an admin; from then on adding one needs the token', async () => {
      // A first operator without admin: refused, nothing written (no operator, no operator.added entry).
      await ok(vars, 'db', 'migrate');
      await refusedUnchanged(
        vars,
        ['operator', 'add', 'Xavier', '--role', 'analyst'],
        1,
        /error: the first operator of a store must be an administrator: add --role admin/,
      );
      expect((await svcJsonIn(vars, 'operator', 'list')).json).toEqual([]);
      expect((await svcJsonIn(vars, 'audit', 'list', '--action', 'operator.')).json).toEqual([]);

      const admin = await svcJsonIn<{ token: string; operator_id: string; roles: string[] }>(
        vars,
        'operator',
        'add',
        'Admin',
        '--role',
        'admin',
      );
      expect(admin.status, admin.stderr).toBe(0);
      // The command that ends open mode does not warn that the store is in it.
      expect(admin.stderr).toBe('');
      expect(admin.json.token).toMatch(TOKEN);
      expect(admin.json.roles).toEqual(['admin']);
      tokens.Admin = admin.json.token;
      ids.Admin = admin.json.operator_id;
      // The first administrator is recorded as having added themselves.
      const added = await entriesAfter(vars, 0);
      expect(added.at(-1)).toMatchObject({
        action: 'operator.added',
        actor: { type: 'operator', id: admin.json.operator_id, name: 'Admin' },
      });

      await refusedUnchanged(
        vars,
        ['operator', 'add', 'Alice', '--role', 'analyst,approver'],
        1,
        'error: this store has operators: set SVC_OPERATOR_TOKEN to your operator token',
      );
      for (const [name, roles] of Object.entries(TEAM)) {
        const run = await svcJsonIn<{ token: string; operator_id: string }>(
          as('Admin'),
          'operator',
          'add',
          name,
          '--role',
          roles.join(','),
        );
        expect(run.status, run.stderr).toBe(0);
        expect(run.stderr).toBe(''); // no open-mode warning once operators exist
        tokens[name] = run.json.token;
        ids[name] = run.json.operator_id;
      }
      const listed = await svcJsonIn<{ name: string; roles: string[]; status: string }[]>(vars, 'operator', 'list');
      expect(listed.json.map((o) => [o.name, o.roles, o.status])).toEqual([
        ['Admin', ['admin'], 'active'],
        ...Object.entries(TEAM).map(([name, roles]) => [name, roles, 'active']),
      ]);
      expect(listed.stdout).not.toContain('svc_op_');
    });

    /** Ids made by earlier rows, used by later ones. */
    const made: { issuance?: string; workspace?: string; key?: string } = {};

    interface Row {
      /** The command line (read when the row runs: it may name what an earlier row made). */
      args: () => string[];
      role: Role;
      /** Who holds the role, and who does not. */
      right: string;
      wrong: string;
      /** The option naming a person in open mode, refused beside a token. */
      by?: [string, string];
      /** What the right operator's run appends, in order. */
      actions: string[];
      setup?: () => Promise<void>;
      after?: (json: Record<string, unknown>) => void;
    }

    const ROWS: Row[] = [
      {
        args: () => ['inputs', 'import', WORKED_EXAMPLE],
        role: 'analyst',
        right: 'Alice',
        wrong: 'Bob',
        by: ['--by', 'alice'],
        actions: ['inputs.imported'],
      },
      {
        args: () => ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID)],
        role: 'approver',
        right: 'Bob',
        wrong: 'Carol',
        by: ['--by', 'bob'],
        actions: ['inputs.approved'],
      },
      {
        args: () => ['inputs', 'approve', '--all-pending', '--yes'],
        role: 'approver',
        right: 'Bob',
        wrong: 'Carol',
        by: ['--by', 'bob'],
        actions: ['inputs.approved'],
        setup: async () => {
          await ok(as('Alice'), 'inputs', 'import', join(EXAMPLES, 'low-band.json'));
        },
      },
      {
        args: () => ['publish', '--all'],
        role: 'approver',
        right: 'Bob',
        wrong: 'Carol',
        actions: ['indicator.published', 'indicator.published'],
      },
      {
        args: () => ['provider', 'withdraw', LOW_ID, '--reason', 'no longer lends'],
        role: 'approver',
        right: 'Bob',
        wrong: 'Carol',
        actions: ['provider.withdrawn'],
      },
      {
        args: () => ['methodology', 'publish', '1.0'],
        role: 'chief_risk_officer',
        right: 'Carol',
        wrong: 'Bob',
        by: ['--signed-off-by', 'Carol'],
        actions: ['framework.released', 'indicator.published'],
      },
      {
        args: () => ['issuances', 'add', ...ISSUANCE],
        role: 'analyst',
        right: 'Alice',
        wrong: 'Bob',
        actions: ['issuance.changed'],
        after: (json) => {
          made.issuance = json.id as string;
        },
      },
      {
        args: () => ['issuances', 'update', `${made.issuance}`, '--ticker', 'ESL.PA'],
        role: 'analyst',
        right: 'Alice',
        wrong: 'Bob',
        actions: ['issuance.changed'],
      },
      {
        args: () => ['issuances', 'close', `${made.issuance}`, '--status', 'PRICED'],
        role: 'analyst',
        right: 'Alice',
        wrong: 'Bob',
        actions: ['issuance.changed'],
      },
      {
        args: () => [
          'requests',
          'set',
          'cr_bbbbbbbbbbbbbbbbbbbbbbbb',
          '--status',
          'DECLINED',
          '--note',
          'out of scope',
        ],
        role: 'analyst',
        right: 'Alice',
        wrong: 'Bob',
        actions: ['coverage_request.resolved'],
        setup: async () => {
          await insertRequest(vars, 'cr_bbbbbbbbbbbbbbbbbbbbbbbb');
        },
      },
      {
        args: () => ['workspace', 'create', 'Risk desk'],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['workspace.created'],
        after: (json) => {
          made.workspace = json.workspace_id as string;
        },
      },
      {
        args: () => [
          'workspace',
          'accept-terms',
          `${made.workspace}`,
          '--administrator',
          'Ada Admin',
          '--email',
          'ada@example.com',
          '--preview',
        ],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['workspace.terms_accepted', 'workspace.terms_accepted'],
      },
      {
        args: () => ['workspace', 'rotate-secret', `${made.workspace}`],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['workspace.secret_rotated'],
      },
      {
        args: () => ['workspace', 'enable-mcp', `${made.workspace}`],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['workspace.agent_tools_enabled'],
      },
      {
        args: () => ['key', 'create', '--workspace', `${made.workspace}`, '--tier', 'FREE'],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['key.created'],
        after: (json) => {
          made.key = json.key_id as string;
        },
      },
      {
        args: () => ['key', 'revoke', `${made.key}`],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['key.revoked'],
      },
      {
        args: () => ['operator', 'add', 'Eve', '--role', 'analyst'],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['operator.added'],
      },
      {
        args: () => ['operator', 'rotate-token', 'Eve'],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['operator.token_rotated'],
      },
      {
        args: () => ['operator', 'revoke', 'Eve'],
        role: 'admin',
        right: 'Admin',
        wrong: 'Alice',
        actions: ['operator.revoked'],
      },
    ];

    for (const row of ROWS) {
      const label = row.args().slice(0, 2).join(' ');
      it(`${label}${row.args().includes('--all-pending') ? ' --all-pending' : ''}: refused without a token, without the ${row.role} role${row.by ? `, with ${row.by[0]} beside a token` : ''}, writing nothing; works for ${row.right}`, async () => {
        await row.setup?.();
        const args = row.args();
        await refusedUnchanged(vars, args, 1, /^error: .*set SVC_OPERATOR_TOKEN to your operator token/);
        if (row.by) {
          // The open-mode habit: a typed name without a token is refused the same way.
          const typed = await refusedUnchanged(vars, [...args, ...row.by], 1, 'set SVC_OPERATOR_TOKEN');
          if (row.by[0] === '--by') expect(typed.stderr).toContain('(--by is no longer accepted)');
        }
        await refusedUnchanged(
          as(row.wrong),
          args,
          1,
          new RegExp(`^error: .*needs the ${row.role} role, which ${row.wrong} does not hold`),
        );
        if (row.by) {
          await refusedUnchanged(
            as(row.right),
            [...args, ...row.by],
            1,
            `error: ${row.by[0]} is not accepted with an operator token`,
          );
        }
        const head = await headOf(vars);
        const run = await svcJsonIn<Record<string, unknown>>(as(row.right), ...args);
        expect(run.status, run.stderr).toBe(0);
        expect(run.stderr).toBe('');
        row.after?.(run.json);
        const entries = await entriesAfter(vars, head.seq);
        expect(entries.map((e) => e.action)).toEqual(row.actions);
        for (const entry of entries) {
          expect(entry.actor).toEqual({ type: 'operator', id: ids[row.right], name: row.right });
        }
      });
    }

    it('db seed --demo: refused without a token and without the admin role; an admin loads it, recorded as the demo seed', async () => {
      await refusedUnchanged(vars, ['db', 'seed', '--demo'], 1, 'set SVC_OPERATOR_TOKEN to your operator token');
      await refusedUnchanged(
        as('Alice'),
        ['db', 'seed', '--demo'],
        1,
        'error: loading the demo data set needs the admin role, which Alice does not hold',
      );
      const head = await headOf(vars);
      const run = await svcIn(as('Admin'), 'db', 'seed', '--demo');
      expect(run.status, run.stderr).toBe(0);
      const entries = await entriesAfter(vars, head.seq);
      expect(entries.length).toBeGreaterThan(0);
      // The administrator who ran the seed, for every entry: the demo's personas (who proposed and approved its
      // rating actions) stay in its rows, and its fictional dates too; the trail is dated when the seed ran.
      expect(new Set(entries.map((e) => JSON.stringify(e.actor)))).toEqual(
        new Set([JSON.stringify({ type: 'operator', id: ids.Admin, name: 'Admin' })]),
      );
      // Never dated before the entry before it: the chain verifies, its time checked too.
      expect((await svcJsonIn<{ intact: boolean }>(vars, 'audit', 'verify')).json.intact).toBe(true);
    });

    it('workspace show --json shows the terms accepted, recorded by the administrator who entered them', async () => {
      const shown = await svcJsonIn<{ terms_accepted: unknown[]; mcp_enabled: boolean }>(
        vars,
        'workspace',
        'show',
        `${made.workspace}`,
      );
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.json.mcp_enabled).toBe(true);
      const acceptance = (terms: string) => ({
        terms,
        terms_version: expect.any(String),
        administrator: 'Ada Admin',
        email: 'ada@example.com',
        accepted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        recorded_by: 'Admin',
      });
      const byTerms = [...shown.json.terms_accepted].sort((a, b) =>
        String((a as { terms: string }).terms).localeCompare(String((b as { terms: string }).terms)),
      );
      expect(byTerms).toEqual([acceptance('agent_tools_preview'), acceptance('api')]);
    });

    it('self-approval by token: the submitter cannot approve, even holding the approver role; another approver can; the trail names both by id', async () => {
      await ok(as('Alice'), 'inputs', 'import', join(EXAMPLES, 'multiple-caps.json'));
      await refusedUnchanged(
        as('Alice'),
        ['inputs', 'approve', CAPS_ID, ...pins(CAPS_ID)],
        1,
        `error: provider ${CAPS_ID}: Alice submitted these inputs and cannot approve them; another operator with the approver role must`,
      );
      const all = await refusedUnchanged(as('Alice'), ['inputs', 'approve', '--all-pending', '--yes', '--json'], 1, '');
      expect(JSON.parse(all.stdout)).toMatchObject({
        approved: [],
        refused: [expect.objectContaining({ provider_id: CAPS_ID, status: 'PENDING' })],
      });
      await ok(as('Bob'), 'inputs', 'approve', CAPS_ID, ...pins(CAPS_ID));
      const trail = await svcJsonIn<AuditEntry[]>(vars, 'audit', 'list', '--action', 'inputs.');
      expect(trail.status, trail.stderr).toBe(0);
      const ofCaps = trail.json.filter((e) => e.details.provider_id === CAPS_ID);
      expect(ofCaps.map((e) => [e.action, e.actor])).toEqual([
        ['inputs.imported', { type: 'operator', id: ids.Alice, name: 'Alice' }],
        ['inputs.approved', { type: 'operator', id: ids.Bob, name: 'Bob' }],
      ]);
      const listed = await svcJsonIn<{ provider_id: string; submitted_by: string; approved_by: string }[]>(
        vars,
        'inputs',
        'list',
      );
      expect(listed.json.filter((s) => s.provider_id === CAPS_ID)).toEqual([
        expect.objectContaining({ status: 'APPROVED', submitted_by: 'Alice', approved_by: 'Bob' }),
      ]);
    });

    it("a rotated token: the old one is refused, the new one works (also the operator's own rotation); a revoked operator's token is refused naming them; the last admin stays", async () => {
      const dave = (await svcJsonIn<{ token: string }>(as('Admin'), 'operator', 'add', 'Dave', '--role', 'analyst'))
        .json;
      const rotated = (await svcJsonIn<{ token: string }>(as('Admin'), 'operator', 'rotate-token', 'Dave')).json;
      expect(rotated.token).toMatch(TOKEN);
      expect(rotated.token).not.toBe(dave.token);
      const add = ['issuances', 'add', ...ISSUANCE];
      await refusedUnchanged(
        withToken(vars, dave.token),
        add,
        1,
        'error: SVC_OPERATOR_TOKEN is not the token of any operator of this store',
      );
      await ok(withToken(vars, rotated.token), ...add);
      const own = await svcJsonIn<{ token: string }>(
        withToken(vars, rotated.token),
        'operator',
        'rotate-token',
        'Dave',
      );
      expect(own.status, own.stderr).toBe(0);
      await refusedUnchanged(withToken(vars, rotated.token), add, 1, 'is not the token of any operator');

      await ok(as('Admin'), 'operator', 'revoke', 'Dave');
      await refusedUnchanged(
        withToken(vars, own.json.token),
        add,
        1,
        /^error: SVC_OPERATOR_TOKEN belongs to Dave, revoked on \d{4}-\d{2}-\d{2}T/,
      );
      await refusedUnchanged(
        as('Admin'),
        ['operator', 'revoke', 'Admin'],
        1,
        'error: Admin is the last active administrator: add another administrator first',
      );
      await refusedUnchanged(
        withToken(vars, `svc_op_${'x'.repeat(43)}`),
        add,
        1,
        'error: SVC_OPERATOR_TOKEN is not the token of any operator of this store',
      );
      await refusedUnchanged(withToken(vars, 'letmein'), add, 1, 'error: SVC_OPERATOR_TOKEN is not an operator token');
    });

    it('bad input is refused with a clear message and the right exit status, and appends nothing to the trail', async () => {
      const bare = (await svcJsonIn<{ workspace_id: string }>(as('Admin'), 'workspace', 'create', 'No terms yet')).json
        .workspace_id;
      const terms = ['workspace', 'accept-terms', bare, '--administrator', 'Ada Admin'];
      const cases: [Env, string[], number, RegExp | string][] = [
        [
          as('Admin'),
          ['operator', 'add', 'Frank', '--role', 'auditor'],
          2,
          'error: unknown role "auditor": the roles are analyst, approver, chief_risk_officer, admin',
        ],
        [
          as('Admin'),
          ['operator', 'add', 'a\u0007b', '--role', 'analyst'],
          2,
          /^error: an operator's name must not hold control characters.*U\+0007/,
        ],
        [
          as('Admin'),
          ['operator', 'add', '', '--role', 'analyst'],
          2,
          "error: an operator's name is 1 to 100 characters",
        ],
        [as('Admin'), ['operator', 'add', 'Frank', '--role', ''], 2, 'error: name at least one role'],
        [as('Admin'), terms, 2, "error: required option '--email <address>' not specified"],
        [
          as('Admin'),
          [...terms, '--email', 'not-an-email'],
          2,
          'error: --email is not an e-mail address: "not-an-email"',
        ],
        [
          as('Admin'),
          ['key', 'create', '--workspace', bare, '--tier', 'FREE'],
          1,
          `error: workspace ${bare} has no recorded acceptance of the API terms, so no key can be issued: record it first with svc workspace accept-terms ${bare}`,
        ],
        [as('Bob'), ['provider', 'withdraw', WORKED_ID, '--reason', ''], 2, /^error: .*reason/],
      ];
      for (const [env, args, exit, message] of cases) await refusedUnchanged(env, args, exit, message);

      await ok(as('Admin'), ...terms, '--email', 'ada@example.com');
      await refusedUnchanged(as('Admin'), ['workspace', 'enable-mcp', bare], 1, /^error: .*--preview/);
    });

    it('the chain holds after all of it', async () => {
      const run = await svcJsonIn<{ intact: boolean }>(vars, 'audit', 'verify');
      expect(run.status, run.stderr).toBe(0);
      expect(run.json.intact).toBe(true);
    });
  });
});
