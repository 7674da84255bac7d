import {
  canonicalJson,
  type Framework,
  futureDatedProblems,
  type InputsDocument,
  readJson,
  sha256Hex,
  validateInputs,
} from '@svc/methodology';
import { isoNow } from '../../clock.js';
import {
  insertApprovedInputs,
  latestPending,
  listSubmissions,
  markApproved,
  supersede,
} from '../../store/repositories/approved-inputs.js';
import { findProvider, insertProviderIfAbsent, providerRowOf } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce } from '../frameworks/frameworks.js';
import { type AuditNote, recordAudit } from '../operators/audit.js';
import { actingPerson, samePerson } from '../operators/operators.js';
import { newId } from '../shared/ids.js';

/** Maker-checker: an analyst submits approved-inputs documents (PENDING), an approver who did not submit them approves them. */

export type SubmissionStatus = 'PENDING' | 'APPROVED' | 'SUPERSEDED';

/** One problem of one submitted document; `source` names the document (its file, for the CLI). */
export interface SubmissionProblem {
  source: string;
  path: string;
  message: string;
}

export interface SubmittedDocument {
  /** Where the document came from, for people: a file name. */
  source: string;
  /** The parsed document, not yet validated. */
  document: unknown;
}

/** A submission as listed: everything but the document itself. */
export interface SubmissionRecord {
  id: string;
  provider_id: string;
  provider_name: string;
  status: SubmissionStatus;
  inputs_sha256: string;
  submitted_by: string;
  submitted_at: string;
  approved_by: string | null;
  approved_at: string | null;
}

const newSubmissionId = () => newId('in');

/** Every problem of every document under the framework in force (the engine's validation); empty when all are valid. */
export async function submissionProblems(
  ctx: ServiceContext,
  input: { documents: readonly SubmittedDocument[] },
): Promise<SubmissionProblem[]> {
  const { documents } = input;
  return validateAll(documents, await frameworkInForce(ctx)).problems;
}

function validateAll(
  documents: readonly SubmittedDocument[],
  framework: Framework,
): { valid: InputsDocument[]; problems: SubmissionProblem[] } {
  const valid: InputsDocument[] = [];
  const problems: SubmissionProblem[] = [];
  for (const { source, document } of documents) {
    const validation = validateInputs(document, framework);
    if (validation.ok) valid.push(validation.document);
    else problems.push(...validation.problems.map((p) => ({ source, path: p.path, message: p.message })));
  }
  return { valid, problems };
}

/**
 * Records documents as PENDING submissions by one analyst, in one transaction:
 * all of them or, when any is invalid, none (every problem of every document
 * is reported). A newer submission supersedes the provider's pending one; a
 * provider seen for the first time gets a row with no publication.
 */
export async function submitInputs(
  ctx: ServiceContext,
  submission: {
    documents: readonly SubmittedDocument[];
    /** A re-dated copy of approved inputs (redateInputs): the submission and date it copies, in the audit entry. */
    redatedFrom?: { submission_id: string; evaluation_date: string } | undefined;
  },
): Promise<SubmissionRecord[]> {
  const { store, clock } = ctx;
  const by = await actingPerson(ctx, 'analyst', 'importing inputs', 'submitter');
  if (submission.documents.length === 0) throw new ServiceError('invalid_value', 'no documents to submit');
  const { valid, problems } = validateAll(submission.documents, await frameworkInForce(ctx));
  // Nothing dated after the present enters the record: evidence cannot come from the future.
  const now = clock.now();
  for (const { source, document } of submission.documents) {
    problems.push(...futureDatedProblems(document, now).map((p) => ({ source, ...p })));
  }
  if (problems.length > 0) {
    const documents = new Set(problems.map((p) => p.source)).size;
    throw new ServiceError(
      'invalid_inputs',
      `${documents} of ${submission.documents.length} ${plural(submission.documents.length, 'document')} not valid approved inputs (${problems.length} ${plural(problems.length, 'problem')}); nothing was submitted`,
      problems,
    );
  }
  return store.db.transaction().execute(async (tx) => {
    const now = isoNow(clock);
    const records: SubmissionRecord[] = [];
    for (const document of valid) {
      const { provider: p } = document;
      await insertProviderIfAbsent(tx, providerRowOf(p, now));
      await supersede(tx, p.id, 'PENDING');
      const text = canonicalJson(document);
      const row = {
        id: newSubmissionId(),
        provider_id: p.id,
        document: text,
        inputs_sha256: sha256Hex(text),
        status: 'PENDING',
        submitted_by: by.name,
        submitted_at: now,
        approved_by: null,
        approved_at: null,
        submitted_by_id: by.id,
        approved_by_id: null,
      };
      await insertApprovedInputs(tx, row);
      records.push(recordOf(row, document));
    }
    await recordAudit(
      ctx,
      tx,
      records.map((r) => ({
        action: 'inputs.imported',
        subject: { type: 'submission', id: r.id },
        details: {
          provider_id: r.provider_id,
          inputs_sha256: r.inputs_sha256,
          ...(submission.redatedFrom ? { redated_from: submission.redatedFrom } : {}),
        },
      })),
    );
    return records;
  });
}

/**
 * Approves each named provider's pending submission, in one transaction (all
 * or none). The approver must not be its submitter; the provider's previously
 * approved submission becomes SUPERSEDED. An approval certifies content: given
 * `inputsSha256` (one inputs_sha256 or a prefix of it, at least 12 hex digits,
 * for each provider, in any order), a pending submission that is not one of
 * them is refused and nothing is approved. The CLI always pins them.
 */
export async function approveInputs(
  ctx: ServiceContext,
  approval: { providerIds: readonly string[]; inputsSha256?: readonly string[] },
): Promise<SubmissionRecord[]> {
  const { store, clock } = ctx;
  const by = await actingPerson(ctx, 'approver', 'approving inputs', 'approver');
  const ids = [...new Set(approval.providerIds)];
  if (ids.length === 0) throw new ServiceError('invalid_value', 'no provider to approve');
  const pins = approval.inputsSha256 === undefined ? null : pinsOf(approval.inputsSha256, ids.length);
  return store.db.transaction().execute(async (tx) => {
    const now = isoNow(clock);
    const records: SubmissionRecord[] = [];
    for (const id of ids) {
      if (!(await findProvider(tx, id))) throw new ServiceError('not_found', `no provider ${id}`);
      const pending = await latestPending(tx, id);
      if (!pending) throw new ServiceError('not_found', `provider ${id} has no pending submission to approve`);
      if (pins) takePin(pins, pending);
      const future = futureDatedProblems(parse(pending.document), clock.now());
      if (future.length > 0) {
        throw new ServiceError(
          'invalid_inputs',
          `provider ${id}: the pending inputs are dated after the present (${future.map((p) => p.path).join(', ')}); nothing was approved`,
          future.map((p) => ({ source: id, ...p })),
        );
      }
      if (samePerson({ name: pending.submitted_by, id: pending.submitted_by_id }, by)) {
        throw new ServiceError(
          'refused',
          `provider ${id}: ${by.name} submitted these inputs and cannot approve them; another operator with the approver role must`,
        );
      }
      await supersede(tx, id, 'APPROVED');
      await approvePending(tx, pending, by, now);
      records.push(
        recordOf({ ...pending, status: 'APPROVED', approved_by: by.name, approved_at: now }, parse(pending.document)),
      );
    }
    await recordAudit(ctx, tx, records.map(approvedNote));
    return records;
  });
}

/** How few hex digits of an inputs_sha256 name a submission: 48 bits, which no two submissions share by chance. */
export const SHA256_PIN_MIN = 12;
const PIN = new RegExp(`^[0-9a-f]{${SHA256_PIN_MIN},64}$`);

/** The pins of an approval, checked: one per provider, each 12 to 64 hex digits. */
function pinsOf(given: readonly string[], providers: number): string[] {
  const pins = given.map((pin) => pin.trim().toLowerCase());
  const bad = pins.findIndex((pin) => !PIN.test(pin));
  if (bad >= 0) {
    const message = `must be the inputs_sha256 of the pending submission or its first ${SHA256_PIN_MIN} hex digits or more`;
    throw new ServiceError('invalid_value', `sha256 ${JSON.stringify(given[bad])} ${message}`, [
      { path: 'sha256', message },
    ]);
  }
  if (pins.length !== providers) {
    throw new ServiceError(
      'invalid_value',
      `${pins.length} sha256 ${pins.length === 1 ? 'value' : 'values'} for ${providers} ${plural(providers, 'provider')}: name one inputs_sha256 for each provider approved; nothing was approved`,
    );
  }
  return pins;
}

/** Takes the pin the pending submission matches out of `pins`; a submission no pin names is refused. */
function takePin(
  pins: string[],
  pending: { provider_id: string; inputs_sha256: string; submitted_by: string; submitted_at: string },
) {
  const at = pins.findIndex((pin) => pending.inputs_sha256.startsWith(pin));
  if (at < 0) {
    throw new ServiceError(
      'refused',
      `provider ${pending.provider_id}: the pending submission has inputs sha256 ${pending.inputs_sha256} (submitted by ${pending.submitted_by} at ${pending.submitted_at}), which is not the one named; nothing was approved. Review it with: svc inputs show ${pending.provider_id}`,
    );
  }
  pins.splice(at, 1);
}

/** Marks the pending submission approved; one replaced or approved by someone else meanwhile is refused. */
async function approvePending(
  tx: Parameters<typeof markApproved>[0],
  pending: { id: string; provider_id: string },
  by: { id: string | null; name: string },
  now: string,
): Promise<void> {
  if (!(await markApproved(tx, pending.id, by, now))) {
    throw new ServiceError(
      'refused',
      `provider ${pending.provider_id}: its pending submission changed while it was being approved; nothing was approved`,
    );
  }
}

export interface PendingApproval {
  /** The submissions approved, by provider name. */
  approved: SubmissionRecord[];
  /** The pending submissions the approver submitted: still pending, for another approver (maker-checker). */
  refused: (SubmissionRecord & { reason: string })[];
  /** The pending submissions not among those named (they arrived after the review): still pending. */
  unreviewed: SubmissionRecord[];
}

/**
 * Approves every pending submission the approver did not submit, in one transaction; each one they
 * submitted stays pending and is reported with the maker-checker reason, as approveInputs refuses it.
 * Given `submissionIds` (the ones a review showed), only those: any other stays pending, reported as unreviewed.
 */
export async function approveAllPending(
  ctx: ServiceContext,
  input: { submissionIds?: readonly string[] } = {},
): Promise<PendingApproval> {
  const { store, clock } = ctx;
  const by = await actingPerson(ctx, 'approver', 'approving inputs', 'approver');
  const shown = input.submissionIds ? new Set(input.submissionIds) : null;
  return store.db.transaction().execute(async (tx) => {
    const now = isoNow(clock);
    const ids = [...new Set((await listSubmissions(tx, { pendingOnly: true })).map((row) => row.provider_id))];
    const approved: SubmissionRecord[] = [];
    const refused: PendingApproval['refused'] = [];
    const unreviewed: SubmissionRecord[] = [];
    for (const id of ids) {
      const pending = await latestPending(tx, id);
      if (!pending) continue;
      const document = parse(pending.document);
      if (shown && !shown.has(pending.id)) {
        unreviewed.push(recordOf(pending, document));
        continue;
      }
      if (samePerson({ name: pending.submitted_by, id: pending.submitted_by_id }, by)) {
        const reason = `${by.name} submitted these inputs and cannot approve them; another operator with the approver role must`;
        refused.push({ ...recordOf(pending, document), reason });
        continue;
      }
      await supersede(tx, id, 'APPROVED');
      await approvePending(tx, pending, by, now);
      approved.push(recordOf({ ...pending, status: 'APPROVED', approved_by: by.name, approved_at: now }, document));
    }
    await recordAudit(ctx, tx, approved.map(approvedNote));
    return {
      approved: approved.sort(byProvider),
      refused: refused.sort(byProvider),
      unreviewed: unreviewed.sort(byProvider),
    };
  });
}

function byProvider(a: SubmissionRecord, b: SubmissionRecord): number {
  return compare(a.provider_name, b.provider_name) || compare(a.provider_id, b.provider_id);
}

/** Submissions, by provider name then newest first; only the pending ones when asked. */
export async function listInputs(
  ctx: ServiceContext,
  options: { pendingOnly?: boolean | undefined },
): Promise<SubmissionRecord[]> {
  const rows = await listSubmissions(ctx.store.db, options);
  const records = rows.map((row) => recordOf(row, parse(row.document)));
  return records.sort(
    (a, b) =>
      compare(a.provider_name, b.provider_name) ||
      compare(a.provider_id, b.provider_id) ||
      compare(b.submitted_at, a.submitted_at) ||
      compare(b.id, a.id),
  );
}

function approvedNote(r: SubmissionRecord): AuditNote {
  return {
    action: 'inputs.approved',
    subject: { type: 'submission', id: r.id },
    details: { provider_id: r.provider_id, inputs_sha256: r.inputs_sha256, submitted_by: r.submitted_by },
  };
}

/** A stored document (canonical JSON of a validated one), read back losslessly. */
function parse(text: string): Pick<InputsDocument, 'provider'> {
  return readJson(text) as InputsDocument;
}

function recordOf(
  row: Omit<SubmissionRecord, 'provider_name' | 'status'> & { status: string },
  document: Pick<InputsDocument, 'provider'>,
): SubmissionRecord {
  return {
    id: row.id,
    provider_id: row.provider_id,
    provider_name: document.provider.name,
    status: row.status as SubmissionStatus,
    inputs_sha256: row.inputs_sha256,
    submitted_by: row.submitted_by,
    submitted_at: row.submitted_at,
    approved_by: row.approved_by,
    approved_at: row.approved_at,
  };
}

/** Code-unit order, never locale order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
