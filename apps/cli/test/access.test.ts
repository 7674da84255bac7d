import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentsOf, embedded, storeOf, svcIn, svcJsonIn } from './operations.js';
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
    const run = svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Risk desk');
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
    const run = svcIn(await embedded(), 'workspace', 'create', 'Risk desk');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^workspace ws_[0-9a-f]{24} created: Risk desk\n/);
    expect(run.stdout).toMatch(/webhook signing secret: whsec_\S+\n/);
    expect(run.stdout).toContain('it will not be shown again');
  });

  it('create with SVC_MASTER_KEY seals with that key and writes no key file', async () => {
    const vars = { ...(await embedded()), SVC_MASTER_KEY: 'ab'.repeat(32) };
    expect(svcIn(vars, 'workspace', 'create', 'x').status).toBe(0);
    await expect(stat(join(vars.SVC_DATA_DIR, 'master.key'))).rejects.toThrow();
  });

  it('a blank name is bad usage (exit 2)', async () => {
    const run = svcIn(await embedded(), 'workspace', 'create', '   ');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('error: a workspace name is 1 to 200 characters\n');
  });

  it('enable-mcp turns the agent tools on; an unknown workspace exits 1', async () => {
    const vars = await embedded();
    const { workspace_id } = svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Agents').json;
    const run = svcJsonIn(vars, 'workspace', 'enable-mcp', workspace_id);
    expect(run.status).toBe(0);
    expect(run.json).toEqual({ workspace_id, mcp_enabled: true });
    expect(svcIn(vars, 'workspace', 'enable-mcp', workspace_id).stdout).toContain('agent tools (MCP) enabled');
    const unknown = svcIn(vars, 'workspace', 'enable-mcp', 'ws_000000000000000000000000');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('error: no workspace ws_000000000000000000000000\n');
  });
});

describe('svc key', () => {
  it('create, list (never the key nor its hash), revoke, revoke again', async () => {
    const vars = await embedded();
    const { workspace_id } = svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys').json;

    const created = svcJsonIn<CreatedKey>(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'PROFESSIONAL');
    expect(created.status, created.stderr).toBe(0);
    expect(Object.keys(created.json).sort()).toEqual(['key', 'key_id']);
    expect(created.json.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(created.json.key_id).toMatch(/^key_[0-9a-f]{24}$/);
    const second = svcJsonIn<CreatedKey>(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'free');
    expect(second.status).toBe(0);

    const store = storeOf(vars);
    const hashes = (await store.db.selectFrom('api_keys').select('key_hash').execute()).map((r) => r.key_hash);
    await store.close();

    const listed = svcJsonIn<Record<string, unknown>[]>(vars, 'key', 'list', '--workspace', workspace_id);
    expect(listed.status).toBe(0);
    expect(listed.json).toHaveLength(2);
    expect(listed.json[0]).toEqual({
      key_id: created.json.key_id,
      prefix: `${created.json.key.slice(0, 15)}...`,
      tier: 'PROFESSIONAL',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      last_used_at: null,
      revoked_at: null,
    });
    expect(listed.json[1]).toMatchObject({ key_id: second.json.key_id, tier: 'FREE' });
    const table = svcIn(vars, 'key', 'list', '--workspace', workspace_id);
    for (const output of [listed.stdout, table.stdout]) {
      for (const secret of [created.json.key, second.json.key, ...hashes]) expect(output).not.toContain(secret);
    }
    expect(table.stdout).toMatch(/Key id .*Prefix .*Tier .*Created .*Last used .*Revoked/);
    expect(table.stdout).toContain('never');

    const revoked = svcJsonIn(vars, 'key', 'revoke', created.json.key_id);
    expect(revoked.status).toBe(0);
    expect(revoked.json).toEqual({ key_id: created.json.key_id, status: 'revoked' });
    const again = svcIn(vars, 'key', 'revoke', created.json.key_id);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(`key ${created.json.key_id} was already revoked\n`);
    const after = svcJsonIn<Record<string, unknown>[]>(vars, 'key', 'list', '--workspace', workspace_id).json;
    expect(after[0]?.revoked_at).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    expect(after[1]?.revoked_at).toBeNull();
  });

  it('create shows people the key once, with a warning', async () => {
    const vars = await embedded();
    const { workspace_id } = svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys').json;
    const run = svcIn(vars, 'key', 'create', '--workspace', workspace_id, '--tier', 'ENTERPRISE');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^key key_[0-9a-f]{24} created: ENTERPRISE for workspace ws_[0-9a-f]{24}\nsvc_live_\S{43}\n/,
    );
    expect(run.stdout).toContain('it will not be shown again');
  });

  it('an unknown workspace or key exits 1 (refused), a bad tier 2 (bad usage), with a clear message', async () => {
    const vars = await embedded();
    const { workspace_id } = svcJsonIn<CreatedWorkspace>(vars, 'workspace', 'create', 'Keys').json;
    const cases: [string[], string, string, number][] = [
      [['key', 'create', '--workspace', 'ws_nope', '--tier', 'FREE'], 'no workspace ws_nope', 'not_found', 1],
      [['key', 'list', '--workspace', 'ws_nope'], 'no workspace ws_nope', 'not_found', 1],
      [['key', 'revoke', 'key_nope'], 'no key key_nope', 'not_found', 1],
      [
        ['key', 'create', '--workspace', workspace_id, '--tier', 'GOLD'],
        'tier must be one of FREE, PROFESSIONAL, ENTERPRISE, CUSTOM',
        'invalid_value',
        2,
      ],
    ];
    for (const [args, message, code, exit] of cases) {
      const run = svcIn(vars, ...args);
      expect(run.status, args.join(' ')).toBe(exit);
      expect(run.stderr).toBe(`error: ${message}\n`);
      const json = svcIn(vars, ...args, '--json');
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
      const run = svcIn(vars, ...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
  });
});
