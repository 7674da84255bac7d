import { createHash, randomBytes } from 'node:crypto';
import { type CoverageRequestReceipt, endpoints } from '@svc/contracts';
import { canonicalJson } from '@svc/methodology';
import { isoNow } from '../../clock.js';
import { findByFingerprint, insertCoverageRequest } from '../../store/repositories/coverage-requests.js';
import { defineRoute } from '../route.js';

const DAY_MS = 86_400_000;

/** Stores a coverage request; the same body again from the same client within 24 hours gets the same receipt. */
export default defineRoute(endpoints.requestScore, async ({ body, services, req }) => {
  const fingerprint = createHash('sha256')
    .update(`${req.ip ?? ''}\n${canonicalJson(body)}`)
    .digest('hex');
  const now = services.clock.now();
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const db = services.store.db;
  const existing = await findByFingerprint(db, fingerprint, since);
  if (existing) {
    const receipt: CoverageRequestReceipt = {
      request_id: existing.id,
      status: 'RECEIVED',
      received_at: existing.received_at,
    };
    return { status: 202, json: receipt };
  }
  const receipt: CoverageRequestReceipt = {
    request_id: `cr_${randomBytes(12).toString('hex')}`,
    status: 'RECEIVED',
    received_at: isoNow(services.clock),
  };
  await insertCoverageRequest(db, {
    id: receipt.request_id,
    provider_name: body.provider_name,
    website: body.website ?? null,
    contact_email: body.contact_email ?? null,
    planner_type: body.planner_type ?? null,
    message: body.message ?? null,
    fingerprint,
    status: 'RECEIVED',
    received_at: receipt.received_at,
    resolved_at: null,
    resolution: null,
  });
  return { status: 202, json: receipt };
});
