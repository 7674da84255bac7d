import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TIERS, type Tier } from '@svc/contracts';
import { type Clock, isoNow } from '../clock.js';
import {
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from '../store/repositories/api-keys.js';
import { findWorkspace, insertWorkspace, updateWorkspace } from '../store/repositories/workspaces.js';
import type { Store } from '../store/store.js';
import type { SecretBox } from './secrets.js';

/** API keys carry a fixed prefix so secret scanners can find a leaked one. */
export const KEY_PREFIX = 'svc_live_';
const KEY_PATTERN = /^svc_live_[A-Za-z0-9_-]{43}$/;
/** How many characters of a key are kept to recognise it by; never enough to use it. */
const SHOWN = KEY_PREFIX.length + 6;

export class AccessError extends Error {
  override readonly name = 'AccessError';
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface CreatedWorkspace {
  workspace_id: string;
  webhook_secret: string;
}

/** Creates a workspace; its webhook signing secret is returned once and stored only sealed. */
export async function createWorkspace(
  store: Store,
  box: SecretBox,
  clock: Clock,
  name: string,
): Promise<CreatedWorkspace> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw new AccessError('a workspace name is 1 to 200 characters');
  const id = newId('ws');
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await insertWorkspace(store.db, {
    id,
    name: trimmed,
    webhook_secret_enc: box.seal(secret),
    mcp_enabled: 0,
    created_at: isoNow(clock),
  });
  return { workspace_id: id, webhook_secret: secret };
}

export async function enableMcp(store: Store, workspaceId: string, enabled: boolean): Promise<void> {
  if (!(await updateWorkspace(store.db, workspaceId, { mcp_enabled: enabled ? 1 : 0 }))) {
    throw new AccessError(`no workspace ${workspaceId}`);
  }
}

export interface CreatedKey {
  key: string;
  key_id: string;
  workspace_id: string;
  tier: Tier;
}

/** Issues a key: 32 random bytes behind the prefix, shown once, stored only as its SHA-256. */
export async function createKey(store: Store, clock: Clock, workspaceId: string, tier: string): Promise<CreatedKey> {
  if (!(TIERS as readonly string[]).includes(tier)) throw new AccessError(`tier must be one of ${TIERS.join(', ')}`);
  if (!(await findWorkspace(store.db, workspaceId))) throw new AccessError(`no workspace ${workspaceId}`);
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = newId('key');
  await insertApiKey(store.db, {
    id,
    workspace_id: workspaceId,
    prefix: key.slice(0, SHOWN),
    key_hash: hashKey(key),
    tier,
    created_at: isoNow(clock),
    last_used_at: null,
    revoked_at: null,
  });
  return { key, key_id: id, workspace_id: workspaceId, tier: tier as Tier };
}

export interface KeySummary {
  key_id: string;
  prefix: string;
  tier: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export async function listKeys(store: Store, workspaceId: string): Promise<KeySummary[]> {
  if (!(await findWorkspace(store.db, workspaceId))) throw new AccessError(`no workspace ${workspaceId}`);
  return (await listApiKeys(store.db, workspaceId)).map((k) => ({
    key_id: k.id,
    prefix: `${k.prefix}...`,
    tier: k.tier,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
  }));
}

export async function revokeKey(store: Store, clock: Clock, keyId: string): Promise<'revoked' | 'already'> {
  const outcome = await revokeApiKey(store.db, keyId, isoNow(clock));
  if (outcome === 'unknown') throw new AccessError(`no key ${keyId}`);
  return outcome;
}

export interface Caller {
  keyId: string;
  workspaceId: string;
  tier: Tier;
  mcpEnabled: boolean;
}

/** How often last_used_at is written for one key, at most. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves a presented key to its caller, or null when it is unknown or
 * revoked (the two are not told apart). Every request reads the store, so a
 * revocation takes effect at once on every instance.
 */
export class KeyAuthenticator {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async authenticate(presented: string): Promise<Caller | null> {
    if (!KEY_PATTERN.test(presented)) return null;
    const hash = hashKey(presented);
    const row = await findApiKeyByHash(this.store.db, hash);
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    if (row.revoked_at !== null) return null;
    this.touch(row.id);
    return { keyId: row.id, workspaceId: row.workspace_id, tier: row.tier as Tier, mcpEnabled: row.mcp_enabled === 1 };
  }

  /** Records use without a write per request; a lost touch only makes last_used_at a minute older. */
  private touch(id: string): void {
    const now = this.clock.now().getTime();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    if (this.touched.size > 100_000) this.touched.clear();
    touchApiKey(this.store.db, id, new Date(now).toISOString()).catch(() => this.touched.delete(id));
  }
}
