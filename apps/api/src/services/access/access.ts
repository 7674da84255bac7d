import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TIERS, type Tier } from '@svc/contracts';
import { controlCharacterProblem } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { type Clock, isoNow } from '../../clock.js';
import {
  type ApiKeyRow,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from '../../store/repositories/api-keys.js';
import {
  countWebhookEndpoints,
  findWorkspace,
  insertTermsAcceptance,
  insertWorkspace,
  latestAcceptances,
  listWorkspacesWithKeys,
  updateWorkspace,
} from '../../store/repositories/workspaces.js';
import type { Database } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { boxOf, type Caller, type ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { auditActorOf, recordAudit } from '../operators/audit.js';
import { authorise, personName } from '../operators/operators.js';
import { newId } from '../shared/ids.js';

/** API keys carry a fixed prefix so secret scanners can find a leaked one. */
export const KEY_PREFIX = 'svc_live_';
const KEY_PATTERN = /^svc_live_[A-Za-z0-9_-]{43}$/;
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

export interface CreatedWorkspace {
  workspace_id: string;
  webhook_secret: string;
}

/** Creates a workspace; its webhook signing secret is returned once and stored only sealed. */
export async function createWorkspace(ctx: ServiceContext, input: { name: string }): Promise<CreatedWorkspace> {
  const { store, clock } = ctx;
  const box = boxOf(ctx);
  const { name } = input;
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200)
    throw new ServiceError('invalid_value', 'a workspace name is 1 to 200 characters');
  const unreadable = controlCharacterProblem(name);
  if (unreadable) throw new ServiceError('invalid_value', `a workspace name ${unreadable}`);
  await authorise(ctx, 'admin', 'creating a workspace');
  const id = newId('ws');
  const secret = newWebhookSecret();
  await store.db.transaction().execute(async (tx) => {
    await insertWorkspace(tx, {
      id,
      name: trimmed,
      webhook_secret_enc: box.seal(secret),
      previous_webhook_secret_enc: null,
      previous_secret_expires_at: null,
      mcp_enabled: 0,
      created_at: isoNow(clock),
    });
    await recordAudit(ctx, tx, [
      { action: 'workspace.created', subject: { type: 'workspace', id }, details: { name: trimmed } },
    ]);
  });
  return { workspace_id: id, webhook_secret: secret };
}

/** `whsec_` and 32 random bytes in base64: the form Standard Webhooks libraries take as it is. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export interface RotatedSecret {
  workspace_id: string;
  webhook_secret: string;
  /** Until when the previous secret still signs (a second signature on every delivery); null without overlap. */
  previous_secret_valid_until: string | null;
}

/** The longest overlap a rotation may give the previous secret. */
export const MAX_SECRET_OVERLAP_MS = 7 * 86_400_000;

/**
 * Issues a new webhook signing secret, shown once. For `overlapMs` the previous one keeps signing
 * too (`x-svc-signature-previous`, and a second `v1,` signature in `webhook-signature`), so receivers
 * can switch without refusing a genuine delivery; 0 ends the old secret at once.
 */
export async function rotateWebhookSecret(
  ctx: ServiceContext,
  input: { workspaceId: string; overlapMs: number },
): Promise<RotatedSecret> {
  const { store, clock } = ctx;
  const { workspaceId, overlapMs } = input;
  const box = boxOf(ctx);
  if (!Number.isSafeInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw new ServiceError('invalid_value', 'the overlap must be from 0 to 7 days');
  }
  await authorise(ctx, 'admin', "rotating a workspace's webhook secret");
  const secret = newWebhookSecret();
  return store.db.transaction().execute(async (tx) => {
    const workspace = await findWorkspace(tx, workspaceId);
    if (!workspace) throw new ServiceError('not_found', `no workspace ${workspaceId}`);
    const until = overlapMs > 0 ? new Date(clock.now().getTime() + overlapMs).toISOString() : null;
    await updateWorkspace(tx, workspaceId, {
      webhook_secret_enc: box.seal(secret),
      previous_webhook_secret_enc: until ? workspace.webhook_secret_enc : null,
      previous_secret_expires_at: until,
    });
    await recordAudit(ctx, tx, [
      {
        action: 'workspace.secret_rotated',
        subject: { type: 'workspace', id: workspaceId },
        details: { previous_secret_valid_until: until },
      },
    ]);
    return { workspace_id: workspaceId, webhook_secret: secret, previous_secret_valid_until: until };
  });
}

export interface WorkspaceSummary {
  workspace_id: string;
  name: string;
  created_at: string;
  mcp_enabled: boolean;
  /** Keys ever issued to it, and those that still answer (neither revoked nor expired). */
  keys: number;
  active_keys: number;
}

/** Every workspace, oldest first, with its key counts: how an operator finds a lost `ws_` id. Never a secret. */
export async function listWorkspaces(ctx: ServiceContext): Promise<WorkspaceSummary[]> {
  const { store, clock } = ctx;
  const rows = await listWorkspacesWithKeys(store.db, clock.now().toISOString());
  return rows.map((r) => ({
    workspace_id: r.id,
    name: r.name,
    created_at: r.created_at,
    mcp_enabled: r.mcp_enabled === 1,
    keys: Number(r.keys),
    active_keys: Number(r.active_keys),
  }));
}

export interface WorkspaceDetail {
  workspace_id: string;
  name: string;
  created_at: string;
  mcp_enabled: boolean;
  /** Until when the previous webhook signing secret still signs after a rotation; null when it no longer does. */
  previous_secret_valid_until: string | null;
  /** Webhook endpoints registered and not deleted. */
  webhook_endpoints: number;
  keys: KeySummary[];
  /** The latest acceptance of each terms document (the API terms; the agent-tool preview terms). */
  terms_accepted: TermsAcceptance[];
}

/** One workspace: its settings, its webhook endpoint count and every key (never a secret, never a key hash). */
export async function showWorkspace(ctx: ServiceContext, input: { workspaceId: string }): Promise<WorkspaceDetail> {
  const { store, clock } = ctx;
  const { workspaceId } = input;
  const workspace = await findWorkspace(store.db, workspaceId);
  if (!workspace) throw new ServiceError('not_found', `no workspace ${workspaceId}`);
  const now = clock.now();
  const until = workspace.previous_secret_expires_at;
  return {
    workspace_id: workspace.id,
    name: workspace.name,
    created_at: workspace.created_at,
    mcp_enabled: workspace.mcp_enabled === 1,
    previous_secret_valid_until: until !== null && Date.parse(until) > now.getTime() ? until : null,
    webhook_endpoints: await countWebhookEndpoints(store.db, workspaceId),
    keys: await listKeys(ctx, { workspaceId }),
    terms_accepted: (await latestAcceptances(store.db, workspaceId))
      .map(({ terms, terms_version, administrator, email, accepted_at, recorded_by }) => ({
        terms: terms as Terms,
        terms_version,
        administrator,
        email,
        accepted_at,
        recorded_by,
      }))
      .sort((a, b) => TERMS_ORDER.indexOf(a.terms) - TERMS_ORDER.indexOf(b.terms)),
  };
}

/** Turns the agent tools on or off for a workspace's keys. */
export async function enableMcp(ctx: ServiceContext, input: { workspaceId: string; enabled: boolean }): Promise<void> {
  const { workspaceId, enabled } = input;
  await authorise(ctx, 'admin', `${enabled ? 'enabling' : 'disabling'} a workspace's agent tools`);
  await ctx.store.db.transaction().execute(async (tx) => {
    const workspace = await findWorkspace(tx, workspaceId);
    if (!workspace) throw new ServiceError('not_found', `no workspace ${workspaceId}`);
    if (enabled && !(await acceptanceOf(tx, workspaceId, 'agent_tools_preview'))) {
      throw new ServiceError(
        'refused',
        `workspace ${workspaceId} has not accepted the agent-tool preview terms: record the acceptance first with svc workspace accept-terms ${workspaceId} --administrator NAME --email EMAIL --preview`,
      );
    }
    // Enabling what is enabled changes nothing, and records nothing.
    if (Number(workspace.mcp_enabled) === (enabled ? 1 : 0)) return;
    await updateWorkspace(tx, workspaceId, { mcp_enabled: enabled ? 1 : 0 });
    await recordAudit(ctx, tx, [
      {
        action: enabled ? 'workspace.agent_tools_enabled' : 'workspace.agent_tools_disabled',
        subject: { type: 'workspace', id: workspaceId },
      },
    ]);
  });
}

/** The terms documents a workspace's administrator accepts: the API terms, and the agent-tool preview terms. */
export const TERMS = { api: 'the API terms', agent_tools_preview: 'the agent-tool preview terms' } as const;
export type Terms = keyof typeof TERMS;
const TERMS_ORDER: readonly Terms[] = ['api', 'agent_tools_preview'];
/** The terms version recorded when none is named. */
export const CURRENT_TERMS_VERSION = '2026-11';

export interface TermsAcceptance {
  terms: Terms;
  terms_version: string;
  administrator: string;
  email: string | null;
  accepted_at: string;
  recorded_by: string;
}

async function acceptanceOf(db: Kysely<Database>, workspaceId: string, terms: Terms) {
  return (await latestAcceptances(db, workspaceId)).find((a) => a.terms === terms);
}

/** An e-mail address as people write one: something@somewhere.tld, no spaces, at most 254 characters. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Records that an authorised contract administrator accepted the API terms for a workspace (specification 5.2),
 * and with `preview` the agent-tool preview terms too (4.12): keys are issued, and agent tools enabled, only after.
 */
export async function acceptTerms(
  ctx: ServiceContext,
  input: {
    workspaceId: string;
    administrator: string;
    email: string;
    termsVersion?: string | undefined;
    preview?: boolean;
  },
): Promise<TermsAcceptance[]> {
  const administrator = personName(input.administrator, "the contract administrator's name (--administrator)");
  const email = input.email.trim();
  if (email === '')
    throw new ServiceError('invalid_value', "the contract administrator's e-mail address (--email) is required");
  if (email.length > 254 || !EMAIL.test(email) || controlCharacterProblem(email)) {
    throw new ServiceError('invalid_value', `--email is not an e-mail address: ${JSON.stringify(input.email)}`);
  }
  const version = (input.termsVersion ?? CURRENT_TERMS_VERSION).trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(version)) {
    throw new ServiceError(
      'invalid_value',
      'a terms version is 1 to 40 letters, digits, ".", "_" or "-" (e.g. 2026-11)',
    );
  }
  await authorise(ctx, 'admin', 'recording an acceptance of terms');
  const recordedBy = auditActorOf(ctx).name ?? auditActorOf(ctx).type;
  return ctx.store.db.transaction().execute(async (tx) => {
    if (!(await findWorkspace(tx, input.workspaceId)))
      throw new ServiceError('not_found', `no workspace ${input.workspaceId}`);
    const now = isoNow(ctx.clock);
    const accepted: TermsAcceptance[] = [];
    for (const terms of input.preview ? (['api', 'agent_tools_preview'] as const) : (['api'] as const)) {
      const row = { terms, terms_version: version, administrator, email, accepted_at: now, recorded_by: recordedBy };
      await insertTermsAcceptance(tx, { id: newId('ta'), workspace_id: input.workspaceId, ...row });
      accepted.push(row);
    }
    await recordAudit(
      ctx,
      tx,
      accepted.map((a) => ({
        action: 'workspace.terms_accepted',
        subject: { type: 'workspace', id: input.workspaceId },
        details: { terms: a.terms, terms_version: a.terms_version, administrator: a.administrator, email: a.email },
      })),
    );
    return accepted;
  });
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
