import { timingSafeEqual } from 'node:crypto';
import type { Tier } from '@svc/contracts';
import type { Clock } from '../../clock.js';
import { findApiKeyByHash, touchApiKey } from '../../store/repositories/api-keys.js';
import type { Store } from '../../store/store.js';
import type { Caller } from '../context.js';
import { hashKey, isExpired, KEY_PATTERN } from './keys.js';

/** The key of a request checked against the store, its use recorded at most once a minute. */

/** How often last_used_at is written for one key, at most. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves a presented key to its caller, or null when it is unknown,
 * revoked or expired (none of them told apart). Every request reads the store, so a
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
    if (row.revoked_at !== null || isExpired(row.expires_at, this.clock.now())) return null;
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
