import { createHash, randomBytes } from 'node:crypto';
import { type CoverageRequestBody, type CoverageRequestReceipt, endpoints } from '@svc/contracts';
import { canonicalJson } from '@svc/methodology';
import type { Request } from 'express';
import { isoNow } from '../../clock.js';
import type { Services } from '../../services/services.js';
import { findByFingerprint, insertCoverageRequest } from '../../store/repositories/coverage-requests.js';
import { defineRoute, type Reply, type RouteModule } from '../route.js';

const DAY_MS = 86_400_000;

/** The client and the canonical body: the same request again has the same fingerprint, whatever the key order. */
function fingerprintOf(req: Request, body: CoverageRequestBody): string {
  return createHash('sha256')
    .update(`${req.ip ?? ''}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** The receipt of the same request from the same client within 24 hours, with the status it has now; or null. */
async function earlier(services: Services, req: Request, body: CoverageRequestBody): Promise<Reply | null> {
  const since = new Date(services.clock.now().getTime() - DAY_MS).toISOString();
  const existing = await findByFingerprint(services.store.db, fingerprintOf(req, body), since);
  if (!existing) return null;
  const receipt: CoverageRequestReceipt = {
    request_id: existing.id,
    status: existing.status as CoverageRequestReceipt['status'],
    received_at: existing.received_at,
  };
  return { status: 202, json: receipt };
}

/**
 * Stores a coverage request. The same body again from the same client within 24 hours gets the same receipt and
 * spends nothing of the 5-an-hour budget (see RouteModule.replay): resubmitting is asking, not a new request.
 */
const route = defineRoute(endpoints.requestScore, async ({ body, services, req }) => {
  // Looked up again: an identical request may have been stored since the replay check.
  const again = await earlier(services, req, body);
  if (again) return again;
  const receipt: CoverageRequestReceipt = {
    request_id: `cr_${randomBytes(12).toString('hex')}`,
    status: 'RECEIVED',
    received_at: isoNow(services.clock),
  };
  await insertCoverageRequest(services.store.db, {
    id: receipt.request_id,
    provider_name: body.provider_name,
    website: body.website ?? null,
    contact_email: body.contact_email ?? null,
    planner_type: body.planner_type ?? null,
    message: body.message ?? null,
    fingerprint: fingerprintOf(req, body),
    status: 'RECEIVED',
    received_at: receipt.received_at,
    resolved_at: null,
    resolution: null,
  });
  return { status: 202, json: receipt };
});

export default {
  ...route,
  replay: {
    limit: 'score_request_status',
    answer: ({ body, services, req }) => earlier(services, req, body as CoverageRequestBody),
  },
} satisfies RouteModule;
