import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acceptTerms,
  afterOpenModeWarning,
  contentsOf,
  embedded,
  serve,
  storeOf,
  svcIn,
  svcJsonIn,
} from './operations.js';
import { STACK_FRAME } from './svc.js';

interface CreatedWorkspace {
  workspace_id: string;
  webhook_secret: string;
}

interface CreatedKey {
  key: string;
  key_id: string;
}

describe('svc workspace', () => {
  it('create --json shows the id and the webhook secret once; the store keeps the secret sealed', async () => {
    const vars = await embedded();
    const run = await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Risk desk');
    expect(run.status, run.stderr).toBe(0);
    expect(Object.keys(run.json).sort()).toEqual(['webhook_secret', 'workspace_id']);
    expect(run.json.workspace_id).toMatch(/^ws_[0-9a-f]{24}$/);
    expect(run.json.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const store = storeOf(vars);
    try {
      const row = await store.db.selectFrom('workspaces').selectAll().executeTakeFirstOrThrow();
      expect(row.name).toBe('Risk desk');
      expect(row.webhook_secret_enc).not.toContain(run.json.webhook_secret.slice(6));
    } finally {
      await store.close();
    }
    // The embedded default: a generated master key file only its owner can read.
    expect((await stat(join(vars.SVC_DATA_DIR, 'master.key'))).mode & 0o777).toBe(0o600);
  });

  it('create tells people the secret will not be shown again', async () => {
    const run = await svcIn(await embedded(), 'workspace', 'create', 'Risk desk');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^workspace ws_[0-9a-f]{24} created: Risk desk\n/);
    expect(run.stdout).toMatch(/webhook signing secret: whsec_\S+\n/);
    expect(run.stdout).toContain('it will not be shown again');
  });

  it('create with SVC_MASTER_KEY seals with that key and writes no key file', async () => {
    const vars = { ...(await embedded()), SVC_MASTER_KEY: 'ab'.repeat(32) };
    expect((await svcIn(vars, 'workspace', 'create', 'x')).status).toBe(0);
    await expect(stat(join(vars.SVC_DATA_DIR, 'master.key'))).rejects.toThrow();
  });

  it('a blank name is bad usage (exit 2)', async () => {
    const run = await svcIn(await embedded(), 'workspace', 'create', '   ');
    expect(run.status).toBe(2);
    expect(afterOpenModeWarning(run.stderr)).toBe('error: a workspace name is 1 to 200 characters\n');
  });

  it('enable-mcp turns the agent tools on once the preview terms are accepted; an unknown workspace exits 1', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Agents')).json;
    await acceptTerms(vars, workspace_id);
    const early = await svcJsonIn<{ error: string; code: string }>(vars, 'workspace', 'enable-mcp', workspace_id);
    expect(early.status).toBe(1);
    expect(early.json.code).toBe('refused');
    expect(early.json.error).toContain(`svc workspace accept-terms ${workspace_id}`);
    expect(early.json.error).toContain('--preview');
    await acceptTerms(vars, workspace_id, { preview: true });
    const run = await svcJsonIn(vars, 'workspace', 'enable-mcp', workspace_id);
    expect(run.status).toBe(0);
    expect(run.json).toEqual({ workspace_id, mcp_enabled: true });
    expect((await svcIn(vars, 'workspace', 'enable-mcp', workspace_id)).stdout).toContain('agent tools (MCP) enabled');
    const unknown = await svcIn(vars, 'workspace', 'enable-mcp', 'ws_000000000000000000000000');
    expect(unknown.status).toBe(1);
    expect(afterOpenModeWarning(unknown.stderr)).toBe('error: no workspace ws_000000000000000000000000\n');
  });
});

describe('svc workspace list and show', () => {
  it('list finds a lost ws_ id: every workspace, oldest first, with its key counts; never a secret', async () => {
    const vars = await embedded();
    expect((await svcJsonIn(vars, 'workspace', 'list')).json).toEqual([]);
    expect((await svcIn(vars, 'workspace', 'list')).stdout).toBe(
      'no workspaces yet: svc workspace create NAME makes one\n',
    );
    const risk = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Risk desk')).json;
    const treasury = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Treasury')).json;
    await acceptTerms(vars, risk.workspace_id);
    await acceptTerms(vars, treasury.workspace_id, { preview: true });
    const key = (await svcJsonIn<CreatedKey>(vars, 'key', 'create', '--workspace', risk.workspace_id, '--tier', 'FREE'))
      .json;
    await svcJsonIn(vars, 'key', 'create', '--workspace', risk.workspace_id, '--tier', 'FREE');
    await svcIn(vars, 'key', 'revoke', key.key_id);
    await svcIn(vars, 'workspace', 'enable-mcp', treasury.workspace_id);
    const listed = await svcJsonIn<Record<string, unknown>[]>(vars, 'workspace', 'list');
    expect(listed.status).toBe(0);
    expect(listed.json).toEqual([
      {
        workspace_id: risk.workspace_id,
        name: 'Risk desk',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        mcp_enabled: false,
        keys: 2,
        active_keys: 1,
      },
      {
        workspace_id: treasury.workspace_id,
        name: 'Treasury',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        mcp_enabled: true,
        keys: 0,
        active_keys: 0,
      },
    ]);
    const table = (await svcIn(vars, 'workspace', 'list')).stdout;
    expect(table).toMatch(/Workspace id .*Name .*Created .*Agent tools .*Keys \(active\/all\)/);
    expect(table).toContain(risk.workspace_id);
    expect(table).toMatch(/│ 1\/2 +│/);
    for (const output of [listed.stdout, table]) {
      for (const secret of [risk.webhook_secret, treasury.webhook_secret, key.key])
        expect(output).not.toContain(secret);
    }
  });

  it('show gives one workspace with its settings and every key; an unknown id exits 1 naming it', async () => {
    const vars = await embedded();
    const ws = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Risk desk')).json;
    await acceptTerms(vars, ws.workspace_id);
    const key = (
      await svcJsonIn<CreatedKey>(
        vars,
        'key',
        'create',
        '--workspace',
        ws.workspace_id,
        '--tier',
        'PROFESSIONAL',
        '--name',
        'dashboard',
      )
    ).json;
    await svcIn(vars, 'workspace', 'rotate-secret', ws.workspace_id, '--overlap', '1h');
    const shown = await svcJsonIn<Record<string, unknown>>(vars, 'workspace', 'show', ws.workspace_id);
    expect(shown.status).toBe(0);
    expect(shown.json).toEqual({
      workspace_id: ws.workspace_id,
      name: 'Risk desk',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      mcp_enabled: false,
      previous_secret_valid_until: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      webhook_endpoints: 0,
      keys: [
        expect.objectContaining({ key_id: key.key_id, name: 'dashboard', tier: 'PROFESSIONAL', status: 'active' }),
      ],
      terms_accepted: [
        {
          terms: 'api',
          terms_version: expect.any(String),
          administrator: 'Ada Admin',
          email: 'ada@example.com',
          accepted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          recorded_by: 'operator',
        },
      ],
    });
    const text = (await svcIn(vars, 'workspace', 'show', ws.workspace_id)).stdout;
    expect(text).toMatch(new RegExp(`^workspace ${ws.workspace_id}: Risk desk\n`));
    expect(text).toContain('the previous one also signs until');
    expect(text).toContain('dashboard');
    expect(text).toContain('the API terms: version ');
    expect(text).toContain('accepted by Ada Admin <ada@example.com>');
    expect(text).toContain('the agent-tool preview terms: not accepted');
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(ws.webhook_secret);
    const missing = await svcIn(vars, 'workspace', 'show', 'ws_nope');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('error: no workspace ws_nope\n');
    expect((await svcIn(vars, 'workspace', 'show')).status).toBe(2);
  });
});

describe('svc key', () => {
  it('create, list (never the key nor its hash), revoke, revoke again', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys')).json;
    await acceptTerms(vars, workspace_id);

    const created = await svcJsonIn<CreatedKey>(
      vars,
      'key',
      'create',
      '--workspace',
      workspace_id,
      '--tier',
      'PROFESSIONAL',
    );
    expect(created.status, created.stderr).toBe(0);
    expect(Object.keys(created.json).sort()).toEqual(['expires_at', 'key', 'key_id', 'name']);
    expect(created.json).toMatchObject({ name: null, expires_at: null });
    expect(created.json.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(created.json.key_id).toMatch(/^key_[0-9a-f]{24}$/);
    const second = await svcJsonIn<CreatedKey>(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'free');
    expect(second.status).toBe(0);

    const store = storeOf(vars);
    const hashes = (await store.db.selectFrom('api_keys').select('key_hash').execute()).map((r) => r.key_hash);
    await store.close();

    const listed = await svcJsonIn<Record<string, unknown>[]>(vars, 'key', 'list', '--workspace', workspace_id);
    expect(listed.status).toBe(0);
    expect(listed.json).toHaveLength(2);
    expect(listed.json[0]).toEqual({
      key_id: created.json.key_id,
      name: null,
      prefix: `${created.json.key.slice(0, 15)}...`,
      tier: 'PROFESSIONAL',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      status: 'active',
    });
    expect(listed.json[1]).toMatchObject({ key_id: second.json.key_id, tier: 'FREE' });
    const table = await svcIn(vars, 'key', 'list', '--workspace', workspace_id);
    for (const output of [listed.stdout, table.stdout]) {
      for (const secret of [created.json.key, second.json.key, ...hashes]) expect(output).not.toContain(secret);
    }
    expect(table.stdout).toMatch(/Key id .*Name .*Prefix .*Tier .*Created .*Expires .*Last used .*Status/);
    expect(table.stdout).toContain('never');

    const revoked = await svcJsonIn(vars, 'key', 'revoke', created.json.key_id);
    expect(revoked.status).toBe(0);
    expect(revoked.json).toEqual({ key_id: created.json.key_id, status: 'revoked' });
    const again = await svcIn(vars, 'key', 'revoke', created.json.key_id);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(`key ${created.json.key_id} was already revoked\n`);
    const after = (await svcJsonIn<Record<string, unknown>[]>(vars, 'key', 'list', '--workspace', workspace_id)).json;
    expect(after[0]?.revoked_at).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    expect(after[0]?.status).toBe('revoked');
    expect(after[1]?.revoked_at).toBeNull();
  });

  it('create --name --expires-in: the key answers until its expiry, then 401 invalid_api_key like a revoked one; list shows name, expiry and status', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys')).json;
    await acceptTerms(vars, workspace_id);
    const served = await serve(vars, '--port', '0');
    try {
      const started = Date.now();
      const created = await svcJsonIn<CreatedKey & { name: string; expires_at: string }>(
        vars,
        'key',
        'create',
        '--workspace',
        workspace_id,
        '--tier',
        'FREE',
        '--name',
        'nightly export',
        '--expires-in',
        '15s',
      );
      expect(created.status, created.stderr).toBe(0);
      expect(created.json.name).toBe('nightly export');
      expect(Date.parse(created.json.expires_at) - started).toBeGreaterThanOrEqual(15_000);
      const lasting = (
        await svcJsonIn<CreatedKey & { expires_at: string }>(
          vars,
          'key',
          'create',
          '--workspace',
          workspace_id,
          '--tier',
          'FREE',
          '--expires-in',
          '90d',
        )
      ).json;
      expect(Date.parse(lasting.expires_at) - started).toBeGreaterThanOrEqual(90 * 86_400_000);
      const issuances = (key: string) => fetch(`${served.url}/api/v1/issuances`, { headers: { 'x-api-key': key } });
      expect((await issuances(created.json.key)).status).toBe(200);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, Date.parse(created.json.expires_at) - Date.now() + 50)),
      );
      const refused = await issuances(created.json.key);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('invalid_api_key');
      expect((await issuances(lasting.key)).status).toBe(200);
      const listed = (await svcJsonIn<Record<string, unknown>[]>(vars, 'key', 'list', '--workspace', workspace_id))
        .json;
      expect(listed.map((k) => [k.name, k.expires_at, k.status])).toEqual([
        ['nightly export', created.json.expires_at, 'expired'],
        [null, lasting.expires_at, 'active'],
      ]);
      const table = (await svcIn(vars, 'key', 'list', '--workspace', workspace_id)).stdout;
      expect(table).toContain('nightly export');
      expect(table).toContain(created.json.expires_at);
      expect(table).toMatch(/│ expired +│/);
    } finally {
      await served.stop();
    }
  });

  it('a bad --expires-in is a usage error (exit 2), a bad --name is refused; neither creates a key', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys')).json;
    await acceptTerms(vars, workspace_id);
    const base = ['key', 'create', '--workspace', workspace_id, '--tier', 'FREE'];
    for (const value of ['0', '-1d', '90', 'ninety days', '3651d', '1y']) {
      const run = await svcIn(vars, ...base, '--expires-in', value);
      expect(run.status, value).toBe(2);
      expect(run.stderr).toBe(
        `error: --expires-in must be a duration of more than 0 and at most 3650d, such as 90d, 12h or 30m, not "${value}"\n`,
      );
    }
    for (const [name, message] of [
      ['   ', 'a key name is 1 to 200 characters'],
      ['x'.repeat(201), 'a key name is 1 to 200 characters'],
      [
        'tab\there',
        'a key name must not hold control characters, bidirectional overrides or line separators; found U+0009 at character 4',
      ],
      [
        '\u001b[2Jwiped',
        'a key name must not hold control characters, bidirectional overrides or line separators; found U+001B at character 1',
      ],
    ] as const) {
      const run = await svcIn(vars, ...base, '--name', name);
      expect(run.status).not.toBe(0);
      expect(afterOpenModeWarning(run.stderr)).toBe(`error: ${message}\n`);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
    const store = storeOf(vars);
    expect((await contentsOf(store)).counts.api_keys).toBe(0);
    await store.close();
  });

  it('create shows people the key once, with a warning', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys')).json;
    await acceptTerms(vars, workspace_id);
    const run = await svcIn(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'ENTERPRISE');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^key key_[0-9a-f]{24} created: ENTERPRISE for workspace ws_[0-9a-f]{24}, no expiry\nsvc_live_\S{43}\n/,
    );
    expect(run.stdout).toContain('it will not be shown again');
  });

  it('an unknown workspace or key, or a workspace without accepted terms, exits 1 (refused), a bad tier 2 (bad usage), with a clear message', async () => {
    const vars = await embedded();
    const { workspace_id } = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys')).json;
    const bare = (await svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'No terms')).json.workspace_id;
    await acceptTerms(vars, workspace_id);
    // The command line, the message, the JSON code, the exit status, and whether it changes the record (so warns).
    const cases: [string[], string, string, number, boolean][] = [
      [['key', 'create', '--workspace', 'ws_nope', '--tier', 'FREE'], 'no workspace ws_nope', 'not_found', 1, true],
      [['key', 'list', '--workspace', 'ws_nope'], 'no workspace ws_nope', 'not_found', 1, false],
      [['key', 'revoke', 'key_nope'], 'no key key_nope', 'not_found', 1, true],
      [
        ['key', 'create', '--workspace', bare, '--tier', 'FREE'],
        `workspace ${bare} has no recorded acceptance of the API terms, so no key can be issued: record it first with svc workspace accept-terms ${bare} --administrator NAME --email EMAIL`,
        'refused',
        1,
        true,
      ],
      [
        ['key', 'create', '--workspace', workspace_id, '--tier', 'GOLD'],
        'tier must be one of FREE, PROFESSIONAL, ENTERPRISE, CUSTOM',
        'invalid_value',
        2,
        true,
      ],
    ];
    for (const [args, message, code, exit, changes] of cases) {
      const run = await svcIn(vars, ...args);
      expect(run.status, args.join(' ')).toBe(exit);
      expect(changes ? afterOpenModeWarning(run.stderr) : run.stderr).toBe(`error: ${message}\n`);
      const json = await svcIn(vars, ...args, '--json');
      expect(json.status).toBe(exit);
      expect(JSON.parse(json.stdout)).toEqual({ error: message, code });
    }
    const store = storeOf(vars);
    expect((await contentsOf(store)).counts.api_keys).toBe(0);
    await store.close();
  });

  it('missing options are usage errors (exit 2), never a stack trace', async () => {
    const vars = await embedded();
    for (const args of [
      ['key', 'create', '--workspace', 'ws_x'],
      ['key', 'create', '--tier', 'FREE'],
      ['key', 'list'],
      ['key', 'revoke'],
      ['workspace', 'create'],
      ['workspace', 'enable-mcp'],
      ['serve', '--port', 'http'],
      ['serve', '--port', '65536'],
    ]) {
      const run = await svcIn(vars, ...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
  });
});
