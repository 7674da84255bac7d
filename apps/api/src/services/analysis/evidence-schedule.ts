import { type EvidenceScheduleResponse, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { evidenceSchedule as scheduleOf } from '@svc/methodology';
import { findCurrentWithPackage } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { packagedInputs } from '../publishing/packaged.js';

/**
 * The dates within `days` of today on which the provider's indicator in force changes as its evidence ages without
 * new evidence (engine: evidenceSchedule): from the approved inputs and the framework of its computation package,
 * starting today (UTC) or on the indicator's evaluation date when that is later (a publication may be dated a few
 * minutes ahead of the clock). Nothing is stored; `not_found` when the provider has no indicator in force.
 */
export async function evidenceSchedule(
  ctx: ServiceContext,
  input: { providerId: string; days: number },
): Promise<EvidenceScheduleResponse> {
  const providerId = input.providerId.toLowerCase();
  const row = await findCurrentWithPackage(ctx.store.db, providerId);
  if (!row) throw new ServiceError('not_found', `no published Risk Indicator for provider ${input.providerId}`);
  const { document, framework } = packagedInputs(row.package, ctx);
  const today = ctx.clock.now().toISOString().slice(0, 10);
  // The later of the two: dates YYYY-MM-DD sort as text.
  const start = [today, document.evaluation_date].sort()[1] as string;
  const schedule = scheduleOf(document, framework, { start, days: input.days });
  return {
    provider_id: providerId,
    risk_indicator_id: row.risk_indicator_id,
    evaluation_date: document.evaluation_date,
    ...(schedule as Omit<
      EvidenceScheduleResponse,
      'provider_id' | 'risk_indicator_id' | 'evaluation_date' | 'limitations_disclosure'
    >),
    limitations_disclosure: LIMITATIONS_DISCLOSURE,
  };
}
