import { createHash, randomBytes } from 'node:crypto';
import { TIERS, type Tier } from '@svc/contracts';
import { controlCharacterProblem } from '@svc/methodology';
import { isoNow } from '../../clock.js';
import { type ApiKeyRow, insertApiKey, listApiKeys, revokeApiKey } from '../../store/repositories/api-keys.js';
import { findWorkspace } from '../../store/repositories/workspaces.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { newId } from '../shared/ids.js';
import { acceptanceOf } from './terms.js';

/** API keys: issued shown once and stored as their hash, listed, revoked; masked wherever text may hold one. */

/** API keys carry a fixed prefix so secret scanners can find a leaked one. */
export const KEY_PREFIX = 'svc_live_';
export const KEY_PATTERN = /^svc_live_[A-Za-z0-9_-]{43}$/;
/** How many characters of a key are kept to recognise it by; never enough to use it. */
const SHOWN = KEY_PREFIX.length + 6;
const KEY_IN_TEXT = /svc_live_[A-Za-z0-9_-]+/g;

/** A text with anything shaped like a key (one pasted into a URL path by mistake) masked: for logs and echoed paths. */
export function maskKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, `${KEY_PREFIX}[redacted]`);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface CreatedKey {
  key: string;
  key_id: string;
  workspace_id: string;
  tier: Tier;
  name: string | null;
  expires_at: string | null;
}

export interface KeyRequest {
  workspaceId: string;
  /** One of the contract's tiers; anything else is refused (`invalid_value`). */
  tier: string;
  /** A name for people: which integration or person holds the key (1 to 200 characters, no control characters). */
  name?: string | undefined;
  /** How long the key works, in milliseconds from its creation; absent, it does not expire. */
  expiresInMs?: number | undefined;
}

/** The longest lifetime a key may be given at creation: ten years. */
export const MAX_KEY_LIFETIME_MS = 3650 * 86_400_000;

/** Issues a key: 32 random bytes behind the prefix, shown once, stored only as its SHA-256. */
export async function createKey(ctx: ServiceContext, input: KeyRequest): Promise<CreatedKey> {
  const { store, clock } = ctx;
  const { workspaceId, tier } = input;
  const options = input;
  if (!(TIERS as readonly string[]).includes(tier))
    throw new ServiceError('invalid_value', `tier must be one of ${TIERS.join(', ')}`);
  const name = options.name === undefined ? null : options.name.trim();
  if (name !== null && (name.length < 1 || name.length > 200)) {
    throw new ServiceError('invalid_value', 'a key name is 1 to 200 characters');
  }
  const unreadable = name === null ? null : controlCharacterProblem(name);
  if (unreadable) throw new ServiceError('invalid_value', `a key name ${unreadable}`);
  const lifetime = options.expiresInMs;
  if (lifetime !== undefined && (!Number.isSafeInteger(lifetime) || lifetime <= 0 || lifetime > MAX_KEY_LIFETIME_MS)) {
    throw new ServiceError(
      'invalid_value',
      'a key expires more than 0 and at most 3650 days (ten years) after it is created',
    );
  }
  await authorise(ctx, 'admin', 'issuing an API key');
  const now = clock.now();
  const expiresAt = lifetime === undefined ? null : new Date(now.getTime() + lifetime).toISOString();
  const { key, row } = newKeyRow(workspaceId, tier, now.toISOString(), { name, expiresAt });
  await store.db.transaction().execute(async (tx) => {
    if (!(await findWorkspace(tx, workspaceId))) throw new ServiceError('not_found', `no workspace ${workspaceId}`);
    if (!(await acceptanceOf(tx, workspaceId, 'api'))) {
      throw new ServiceError(
        'refused',
        `workspace ${workspaceId} has no recorded acceptance of the API terms, so no key can be issued: record it first with svc workspace accept-terms ${workspaceId} --administrator NAME --email EMAIL`,
      );
    }
    await insertApiKey(tx, row);
    await recordAudit(ctx, tx, [
      {
        action: 'key.created',
        subject: { type: 'api_key', id: row.id },
        details: { workspace_id: workspaceId, tier, name, prefix: row.prefix, expires_at: expiresAt },
      },
    ]);
  });
  return { key, key_id: row.id, workspace_id: workspaceId, tier: tier as Tier, name, expires_at: expiresAt };
}

/** A new random key and the row that stores it (its hash and a recognisable prefix, never the key itself). */
export function newKeyRow(
  workspaceId: string,
  tier: string,
  now: string,
  options: { name: string | null; expiresAt: string | null },
): { key: string; row: ApiKeyRow } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return {
    key,
    row: {
      id: newId('key'),
      workspace_id: workspaceId,
      prefix: key.slice(0, SHOWN),
      key_hash: hashKey(key),
      tier,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      name: options.name,
      expires_at: options.expiresAt,
    },
  };
}

/** Whether a key answers now: `active`, or why it does not (`revoked` wins over `expired`). */
export type KeyStatus = 'active' | 'expired' | 'revoked';

export interface KeySummary {
  key_id: string;
  name: string | null;
  prefix: string;
  tier: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  status: KeyStatus;
}

/** Whether a key has passed its expiry at `now` (a key expires at its `expires_at`, not a moment later). */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now.getTime();
}

function keyStatus(row: { revoked_at: string | null; expires_at: string | null }, now: Date): KeyStatus {
  if (row.revoked_at !== null) return 'revoked';
  return isExpired(row.expires_at, now) ? 'expired' : 'active';
}

/** A workspace's keys, oldest first, with whether each answers now; never a key or its hash. */
export async function listKeys(ctx: ServiceContext, input: { workspaceId: string }): Promise<KeySummary[]> {
  const { store, clock } = ctx;
  const { workspaceId } = input;
  if (!(await findWorkspace(store.db, workspaceId))) throw new ServiceError('not_found', `no workspace ${workspaceId}`);
  const now = clock.now();
  return (await listApiKeys(store.db, workspaceId)).map((k) => ({
    key_id: k.id,
    name: k.name,
    prefix: `${k.prefix}...`,
    tier: k.tier,
    created_at: k.created_at,
    expires_at: k.expires_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
    status: keyStatus(k, now),
  }));
}

/** Revokes a key at once on every instance; revoking a revoked key says so and changes nothing. */
export async function revokeKey(ctx: ServiceContext, input: { keyId: string }): Promise<'revoked' | 'already'> {
  const { keyId } = input;
  await authorise(ctx, 'admin', 'revoking an API key');
  return ctx.store.db.transaction().execute(async (tx) => {
    const outcome = await revokeApiKey(tx, keyId, isoNow(ctx.clock));
    if (outcome === 'unknown') throw new ServiceError('not_found', `no key ${keyId}`);
    if (outcome === 'revoked') {
      await recordAudit(ctx, tx, [{ action: 'key.revoked', subject: { type: 'api_key', id: keyId } }]);
    }
    return outcome;
  });
}
