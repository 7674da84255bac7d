import { beforeEach, describe, expect, it } from 'vitest';
import {
  createKey,
  createWorkspace,
  hashKey,
  KeyAuthenticator,
  listKeys,
  listWorkspaces,
  revokeKey,
  rotateWebhookSecret,
  showWorkspace,
} from '../../src/services/access/access.js';
import { ServiceError } from '../../src/services/errors.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import {
  type ApiKeyRow,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from '../../src/store/repositories/api-keys.js';
import { findWorkspace, insertWorkspace, updateWorkspace } from '../../src/store/repositories/workspaces.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { engines, useFreshStore } from '../support/stores.js';
import { acceptTestTerms, enableAgentTools, TEST_ADMINISTRATOR } from '../support/terms.js';

const workspace = (id: string, name = `workspace ${id}`) => ({
  id,
  name,
  webhook_secret_enc: `sealed:${id}`,
  previous_webhook_secret_enc: null,
  previous_secret_expires_at: null,
  mcp_enabled: 0,
  created_at: '2026-07-01T09:00:00.000Z',
});

const apiKey = (id: string, over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id,
  workspace_id: 'ws_a',
  prefix: `svc_live_${id.slice(-6)}`,
  key_hash: hashKey(`key of ${id}`),
  tier: 'FREE',
  created_at: '2026-07-01T09:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
  name: null,
  expires_at: null,
  ...over,
});

describe.each(engines)('workspaces and API keys on %s', (engine) => {
  const store = useFreshStore(engine);

  describe('workspaces', () => {
    it('a workspace reads back exactly as inserted', async () => {
      const row = workspace('ws_a', 'Équipe risque 🛡️ Zürich');
      await insertWorkspace(store.db, row);
      expect(await findWorkspace(store.db, 'ws_a')).toEqual(row);
    });

    it('an unknown workspace is undefined', async () => {
      expect(await findWorkspace(store.db, 'ws_missing')).toBeUndefined();
    });

    it('update changes only the named fields and reports whether the workspace exists', async () => {
      await insertWorkspace(store.db, workspace('ws_a'));
      expect(await updateWorkspace(store.db, 'ws_a', { mcp_enabled: 1, webhook_secret_enc: 'sealed:new' })).toBe(true);
      expect(await findWorkspace(store.db, 'ws_a')).toEqual({
        ...workspace('ws_a'),
        mcp_enabled: 1,
        webhook_secret_enc: 'sealed:new',
      });
      expect(await updateWorkspace(store.db, 'ws_missing', { mcp_enabled: 1 })).toBe(false);
    });

    it('a duplicate workspace id is refused', async () => {
      await insertWorkspace(store.db, workspace('ws_a'));
      await expect(insertWorkspace(store.db, workspace('ws_a'))).rejects.toThrow();
    });
  });

  describe('api keys', () => {
    beforeEach(async () => {
      await insertWorkspace(store.db, workspace('ws_a'));
      await insertWorkspace(store.db, { ...workspace('ws_b'), mcp_enabled: 1 });
    });

    it('a key is found by its hash with its workspace agent-tool flag', async () => {
      await insertApiKey(store.db, apiKey('key_1', { workspace_id: 'ws_b', tier: 'ENTERPRISE' }));
      expect(await findApiKeyByHash(store.db, hashKey('key of key_1'))).toEqual({
        id: 'key_1',
        workspace_id: 'ws_b',
        key_hash: hashKey('key of key_1'),
        tier: 'ENTERPRISE',
        revoked_at: null,
        expires_at: null,
        last_used_at: null,
        mcp_enabled: 1,
      });
      expect(await findApiKeyByHash(store.db, hashKey('never issued'))).toBeUndefined();
    });

    it('a key of an unknown workspace is refused (foreign key)', async () => {
      await expect(insertApiKey(store.db, apiKey('key_1', { workspace_id: 'ws_missing' }))).rejects.toThrow();
    });

    it('two keys with the same hash are refused', async () => {
      await insertApiKey(store.db, apiKey('key_1'));
      await expect(insertApiKey(store.db, apiKey('key_2', { key_hash: hashKey('key of key_1') }))).rejects.toThrow();
    });

    it("lists a workspace's keys by creation time then id, and no one else's", async () => {
      await insertApiKey(store.db, apiKey('key_c', { created_at: '2026-07-01T09:00:02.000Z' }));
      await insertApiKey(store.db, apiKey('key_b', { created_at: '2026-07-01T09:00:01.000Z' }));
      await insertApiKey(store.db, apiKey('key_a', { created_at: '2026-07-01T09:00:02.000Z' }));
      await insertApiKey(store.db, apiKey('key_x', { workspace_id: 'ws_b' }));
      expect((await listApiKeys(store.db, 'ws_a')).map((k) => k.id)).toEqual(['key_b', 'key_a', 'key_c']);
      expect(await listApiKeys(store.db, 'ws_missing')).toEqual([]);
    });

    it('revoke answers revoked, then already (keeping the first time), and unknown for a key never issued', async () => {
      await insertApiKey(store.db, apiKey('key_1'));
      expect(await revokeApiKey(store.db, 'key_1', '2026-07-01T10:00:00.000Z')).toBe('revoked');
      expect(await revokeApiKey(store.db, 'key_1', '2026-07-01T11:00:00.000Z')).toBe('already');
      expect(await revokeApiKey(store.db, 'key_missing', '2026-07-01T11:00:00.000Z')).toBe('unknown');
      const [row] = await listApiKeys(store.db, 'ws_a');
      expect(row?.revoked_at).toBe('2026-07-01T10:00:00.000Z');
    });

    it('touch records last_used_at', async () => {
      await insertApiKey(store.db, apiKey('key_1'));
      await touchApiKey(store.db, 'key_1', '2026-07-01T12:34:56.789Z');
      expect((await findApiKeyByHash(store.db, hashKey('key of key_1')))?.last_used_at).toBe(
        '2026-07-01T12:34:56.789Z',
      );
    });
  });

  describe('the access service over the store', () => {
    const box = secretBox(Buffer.alloc(32, 3));

    it('a created key authenticates; once revoked it is refused like an unknown key', async () => {
      const clock = manualClock();
      const ctx = ctxOf(store, { clock, box });
      const ws = await createWorkspace(ctx, { name: '  Risk team  ' });
      expect((await findWorkspace(store.db, ws.workspace_id))?.name).toBe('Risk team');
      await acceptTestTerms(ctx, ws.workspace_id);
      const created = await createKey(ctx, { workspaceId: ws.workspace_id, tier: 'PROFESSIONAL' });
      const auth = new KeyAuthenticator(store, clock);
      expect(await auth.authenticate(created.key)).toEqual({
        keyId: created.key_id,
        workspaceId: ws.workspace_id,
        tier: 'PROFESSIONAL',
        mcpEnabled: false,
      });
      expect(await revokeKey(ctx, { keyId: created.key_id })).toBe('revoked');
      expect(await revokeKey(ctx, { keyId: created.key_id })).toBe('already');
      await expect(revokeKey(ctx, { keyId: 'key_missing' })).rejects.toThrow(ServiceError);
      expect(await auth.authenticate(created.key)).toBeNull();
      expect(await auth.authenticate(`${created.key.slice(0, -1)}A`)).toBeNull();
    });

    it('the key list shows prefixes only, never the hash', async () => {
      const clock = manualClock();
      const ctx = ctxOf(store, { clock, box });
      const ws = await createWorkspace(ctx, { name: 'Risk team' });
      await acceptTestTerms(ctx, ws.workspace_id);
      const created = await createKey(ctx, { workspaceId: ws.workspace_id, tier: 'FREE' });
      const [listed] = await listKeys(ctx, { workspaceId: ws.workspace_id });
      expect(listed).toEqual({
        key_id: created.key_id,
        name: null,
        prefix: `${created.key.slice(0, 15)}...`,
        tier: 'FREE',
        created_at: '2026-07-01T09:00:00.000Z',
        expires_at: null,
        last_used_at: null,
        revoked_at: null,
        status: 'active',
      });
      expect(JSON.stringify(listed)).not.toContain(hashKey(created.key));
    });

    it('a key with --expires-in answers until its expiry, then is refused like a revoked one; the list says expired', async () => {
      const clock = manualClock();
      const ctx = ctxOf(store, { clock, box });
      const ws = await createWorkspace(ctx, { name: 'Risk team' });
      await acceptTestTerms(ctx, ws.workspace_id);
      const created = await createKey(ctx, {
        workspaceId: ws.workspace_id,
        tier: 'PROFESSIONAL',
        name: '  nightly export  ',
        expiresInMs: 12 * 3_600_000,
      });
      expect(created).toMatchObject({ name: 'nightly export', expires_at: '2026-07-01T21:00:00.000Z' });
      const auth = new KeyAuthenticator(store, clock);
      clock.advance(12 * 3_600_000 - 1);
      expect((await auth.authenticate(created.key))?.keyId).toBe(created.key_id);
      expect((await listKeys(ctx, { workspaceId: ws.workspace_id }))[0]?.status).toBe('active');
      clock.advance(1);
      expect(await auth.authenticate(created.key)).toBeNull();
      const [listed] = await listKeys(ctx, { workspaceId: ws.workspace_id });
      expect(listed).toMatchObject({
        name: 'nightly export',
        expires_at: '2026-07-01T21:00:00.000Z',
        revoked_at: null,
        status: 'expired',
      });
      await revokeKey(ctx, { keyId: created.key_id });
      expect((await listKeys(ctx, { workspaceId: ws.workspace_id }))[0]?.status).toBe('revoked');
    });

    it('refuses a bad key name or lifetime, naming it, and creates nothing', async () => {
      const clock = manualClock();
      const ctx = ctxOf(store, { clock, box });
      const ws = await createWorkspace(ctx, { name: 'Risk team' });
      await acceptTestTerms(ctx, ws.workspace_id);
      const refused = [
        [{ name: '   ' }, /1 to 200 characters/],
        [{ name: 'x'.repeat(201) }, /1 to 200 characters/],
        [{ name: 'line\nbreak' }, /control characters/],
        [{ name: 'esc\u001b[31m' }, /control characters/],
        [{ name: 'bidi\u202etxt' }, /control characters/],
        [{ expiresInMs: 0 }, /more than 0 and at most 3650 days/],
        [{ expiresInMs: -5 }, /more than 0 and at most 3650 days/],
        [{ expiresInMs: 3651 * 86_400_000 }, /more than 0 and at most 3650 days/],
        [{ expiresInMs: 1.5 }, /more than 0 and at most 3650 days/],
      ] as const;
      for (const [options, message] of refused) {
        await expect(createKey(ctx, { workspaceId: ws.workspace_id, tier: 'FREE', ...options })).rejects.toThrow(
          message,
        );
      }
      expect(await listKeys(ctx, { workspaceId: ws.workspace_id })).toEqual([]);
    });

    it('lists every workspace with its key counts (expired and revoked keys not active), and shows one', async () => {
      const clock = manualClock();
      const ctx = ctxOf(store, { clock, box });
      const a = await createWorkspace(ctx, { name: 'Alpha desk' });
      clock.advance(1000);
      const b = await createWorkspace(ctx, { name: 'Beta desk' });
      await acceptTestTerms(ctx, a.workspace_id);
      await createKey(ctx, { workspaceId: a.workspace_id, tier: 'FREE', name: 'kept' });
      clock.advance(1);
      await createKey(ctx, { workspaceId: a.workspace_id, tier: 'FREE', expiresInMs: 60_000 });
      clock.advance(1);
      const revoked = await createKey(ctx, { workspaceId: a.workspace_id, tier: 'FREE' });
      await revokeKey(ctx, { keyId: revoked.key_id });
      await rotateWebhookSecret(ctx, { workspaceId: b.workspace_id, overlapMs: 3_600_000 });
      await enableAgentTools(ctx, b.workspace_id);
      clock.advance(59_999);
      expect(await listWorkspaces(ctx)).toEqual([
        {
          workspace_id: a.workspace_id,
          name: 'Alpha desk',
          created_at: '2026-07-01T09:00:00.000Z',
          mcp_enabled: false,
          keys: 3,
          active_keys: 1,
        },
        {
          workspace_id: b.workspace_id,
          name: 'Beta desk',
          created_at: '2026-07-01T09:00:01.000Z',
          mcp_enabled: true,
          keys: 0,
          active_keys: 0,
        },
      ]);
      const shown = await showWorkspace(ctx, { workspaceId: b.workspace_id });
      expect(shown).toEqual({
        workspace_id: b.workspace_id,
        name: 'Beta desk',
        created_at: '2026-07-01T09:00:01.000Z',
        mcp_enabled: true,
        previous_secret_valid_until: '2026-07-01T10:00:01.002Z',
        webhook_endpoints: 0,
        keys: [],
        terms_accepted: ['api', 'agent_tools_preview'].map((terms) => ({
          terms,
          terms_version: '2026-11',
          ...TEST_ADMINISTRATOR,
          accepted_at: '2026-07-01T09:00:01.002Z',
          recorded_by: 'service',
        })),
      });
      expect((await showWorkspace(ctx, { workspaceId: a.workspace_id })).keys.map((k) => k.status)).toEqual([
        'active',
        'expired',
        'revoked',
      ]);
      clock.advance(3_600_000);
      expect((await showWorkspace(ctx, { workspaceId: b.workspace_id })).previous_secret_valid_until).toBeNull();
      await expect(showWorkspace(ctx, { workspaceId: 'ws_missing' })).rejects.toThrow('no workspace ws_missing');
    });
  });
});
