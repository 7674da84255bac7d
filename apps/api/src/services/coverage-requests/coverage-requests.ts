import { createHash } from 'node:crypto';
import {
  COVERAGE_REQUEST_STATUSES,
  type CoverageRequestBody,
  type CoverageRequestReceipt,
  type CoverageRequestStatus,
} from '@svc/contracts';
import { canonicalJson, controlCharacterProblem } from '@svc/methodology';
import { isoNow } from '../../clock.js';
import {
  type CoverageRequestRow,
  findByFingerprint,
  findCoverageRequest,
  insertCoverageRequest,
  listCoverageRequests,
  updateCoverageRequest,
} from '../../store/repositories/coverage-requests.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import { newId } from '../shared/ids.js';

/** Coverage requests: a client asks for a provider to be covered; operators review and answer. */

const DAY_MS = 86_400_000;

/** The client and the canonical body: the same request again has the same fingerprint, whatever the key order. */
function fingerprintOf(ctx: ServiceContext, body: CoverageRequestBody): string {
  const client = ctx.actor.kind === 'public' ? ctx.actor.client : '';
  return createHash('sha256')
    .update(`${client}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** The receipt of the same request from the same client within 24 hours, with the status it has now; or null. */
export async function earlierRequest(
  ctx: ServiceContext,
  body: CoverageRequestBody,
): Promise<CoverageRequestReceipt | null> {
  const since = new Date(ctx.clock.now().getTime() - DAY_MS).toISOString();
  const existing = await findByFingerprint(ctx.store.db, fingerprintOf(ctx, body), since);
  if (!existing) return null;
  return {
    request_id: existing.id,
    status: existing.status as CoverageRequestReceipt['status'],
    received_at: existing.received_at,
  };
}

/**
 * Records a client's request for coverage (RECEIVED). The same body from the same client within 24 hours is the
 * same request: its receipt again, nothing new stored.
 */
export async function requestCoverage(ctx: ServiceContext, body: CoverageRequestBody): Promise<CoverageRequestReceipt> {
  // Looked up again: an identical request may have been stored since the transport's replay check.
  const again = await earlierRequest(ctx, body);
  if (again) return again;
  const receipt: CoverageRequestReceipt = {
    request_id: newId('cr'),
    status: 'RECEIVED',
    received_at: isoNow(ctx.clock),
  };
  await insertCoverageRequest(ctx.store.db, {
    id: receipt.request_id,
    provider_name: body.provider_name,
    website: body.website ?? null,
    contact_email: body.contact_email ?? null,
    planner_type: body.planner_type ?? null,
    message: body.message ?? null,
    fingerprint: fingerprintOf(ctx, body),
    status: 'RECEIVED',
    received_at: receipt.received_at,
    resolved_at: null,
    resolution: null,
  });
  return receipt;
}

/** A request's status and resolution note, for the requester: nothing they sent (name, website, email, message). */
export async function coverageRequestStatus(
  ctx: ServiceContext,
  input: { requestId: string },
): Promise<CoverageRequestStatus> {
  const row = await findCoverageRequest(ctx.store.db, input.requestId);
  if (!row) throw new ServiceError('not_found', `no coverage request ${input.requestId}`);
  return {
    request_id: row.id,
    status: row.status as CoverageRequestStatus['status'],
    resolution_note: row.resolution,
  };
}
export const REQUEST_STATUSES = COVERAGE_REQUEST_STATUSES;
type RequestStatus = (typeof COVERAGE_REQUEST_STATUSES)[number];
/** COVERED and DECLINED are final: the requester has had the answer. */
const FINAL_STATUSES: readonly string[] = ['COVERED', 'DECLINED'];

/** Coverage requests, newest first, optionally of one status. */
export async function listRequests(
  ctx: ServiceContext,
  input: { status?: string | undefined },
): Promise<CoverageRequestRow[]> {
  const { status } = input;
  if (status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(status)) {
    throw new ServiceError('invalid_value', `status must be one of ${REQUEST_STATUSES.join(', ')}`);
  }
  return listCoverageRequests(ctx.store.db, { status, limit: 10_000 });
}

/**
 * Moves a coverage request on: RECEIVED to IN_REVIEW, and either of them to COVERED or DECLINED (final, and
 * with a note for the requester, who reads it at GET /api/public/score-request/{id}). A note given replaces the
 * previous one; none keeps it. A final request is not changed again; a refusal changes nothing.
 */
export async function setRequestStatus(
  ctx: ServiceContext,
  input: { requestId: string; status: string; note?: string | undefined },
): Promise<CoverageRequestRow> {
  const { store, clock } = ctx;
  const { requestId } = input;
  const status = input.status.trim().toUpperCase();
  const settable = REQUEST_STATUSES.filter((s) => s !== 'RECEIVED');
  if (!(settable as readonly string[]).includes(status)) {
    throw new ServiceError('invalid_value', `the status must be one of ${settable.join(', ')}`, [
      { path: '--status', message: `must be one of ${settable.join(', ')}` },
    ]);
  }
  const note = input.note === undefined ? undefined : input.note.trim();
  if (note !== undefined && (note.length < 1 || note.length > 2000)) {
    throw new ServiceError('invalid_value', 'a note is 1 to 2000 characters', [
      { path: '--note', message: 'must be 1 to 2000 characters' },
    ]);
  }
  const unreadable = note === undefined ? null : controlCharacterProblem(note, 'multiline');
  if (unreadable)
    throw new ServiceError('invalid_value', `a note ${unreadable}`, [{ path: '--note', message: unreadable }]);
  await authorise(ctx, 'analyst', 'setting the status of a coverage request');
  return store.db.transaction().execute(async (tx) => {
    const existing = await findCoverageRequest(tx, requestId);
    if (!existing) throw new ServiceError('not_found', `no coverage request ${requestId}`);
    if (FINAL_STATUSES.includes(existing.status)) {
      throw new ServiceError(
        'refused',
        `coverage request ${requestId} is already ${existing.status} (at ${existing.resolved_at}); a final status is not changed`,
      );
    }
    if (existing.status === status) {
      throw new ServiceError('refused', `coverage request ${requestId} is already ${status}`);
    }
    const final = FINAL_STATUSES.includes(status);
    const resolution = note ?? existing.resolution;
    if (final && resolution === null) {
      throw new ServiceError('invalid_value', `${status} needs a note for the requester (--note)`, [
        { path: '--note', message: `is required for ${status}` },
      ]);
    }
    const resolvedAt = final ? isoNow(clock) : null;
    await updateCoverageRequest(tx, requestId, { status, resolution, resolvedAt });
    await recordAudit(ctx, tx, [
      {
        action: final ? 'coverage_request.resolved' : 'coverage_request.status_changed',
        subject: { type: 'coverage_request', id: requestId },
        details: { status, previous_status: existing.status, note_changed: note !== undefined },
      },
    ]);
    return { ...existing, status: status as RequestStatus, resolution, resolved_at: resolvedAt };
  });
}
