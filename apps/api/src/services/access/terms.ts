import { controlCharacterProblem } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { findWorkspace, insertTermsAcceptance, latestAcceptances } from '../../store/repositories/workspaces.js';
import type { Database } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { auditActorOf, recordAudit } from '../operators/audit.js';
import { authorise, personName } from '../operators/operators.js';
import { newId } from '../shared/ids.js';

/** The terms a workspace's administrator accepts before its keys answer. */

/** The terms documents a workspace's administrator accepts: the API terms, and the agent-tool preview terms. */
export const TERMS = { api: 'the API terms', agent_tools_preview: 'the agent-tool preview terms' } as const;
export type Terms = keyof typeof TERMS;
export const TERMS_ORDER: readonly Terms[] = ['api', 'agent_tools_preview'];
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

export async function acceptanceOf(db: Kysely<Database>, workspaceId: string, terms: Terms) {
  return (await latestAcceptances(db, workspaceId)).find((a) => a.terms === terms);
}

/** An e-mail address as people write one: something@somewhere.tld, no spaces, at most 254 characters. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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
