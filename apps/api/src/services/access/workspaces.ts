import { randomBytes } from 'node:crypto';
import { controlCharacterProblem } from '@svc/methodology';
import { isoNow } from '../../clock.js';
import {
  countWebhookEndpoints,
  findWorkspace,
  insertWorkspace,
  latestAcceptances,
  listWorkspacesWithKeys,
  updateWorkspace,
} from '../../store/repositories/workspaces.js';
import { boxOf, type ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { newId } from '../shared/ids.js';
import { type KeySummary, listKeys } from './keys.js';
import { acceptanceOf, TERMS_ORDER, type Terms, type TermsAcceptance } from './terms.js';

/** Workspaces: created with a sealed webhook secret, rotated, listed, shown, their agent tools turned on or off. */

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
