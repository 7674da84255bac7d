import { type InputsDocument, readJson, withEvaluationDate } from '@svc/methodology';
import { latestApproved } from '../../store/repositories/approved-inputs.js';
import { findProvider } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { type SubmissionRecord, submitInputs } from './inputs.js';

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Submits a copy of a provider's latest approved inputs with a new evaluation_date (`date`, by default today, UTC,
 * by the context's clock), the evidence and its `as_of` dates unchanged (decision 0053): an import by the analyst
 * running it, PENDING until another operator approves it, as any submission. The date is a real calendar date, not
 * after today, not before any input's `as_of`, and after the evaluation_date it replaces; otherwise nothing is
 * submitted.
 */
export async function redateInputs(
  ctx: ServiceContext,
  input: { providerId: string; date?: string | undefined },
): Promise<SubmissionRecord> {
  const approved = await latestApproved(ctx.store.db, input.providerId);
  if (!approved) {
    const known = await findProvider(ctx.store.db, input.providerId);
    throw new ServiceError(
      'not_found',
      known
        ? `provider ${input.providerId} has no approved inputs to redate: import and approve them first (svc inputs import)`
        : `no provider ${input.providerId}`,
    );
  }
  const document = readJson(approved.document) as InputsDocument;
  const date = input.date ?? ctx.clock.now().toISOString().slice(0, 10);
  const refusal = redateRefusal(document, date, ctx.clock.now());
  if (refusal) {
    throw new ServiceError('invalid_value', `--date ${date}: ${refusal}; nothing was submitted`, [
      { path: '--date', message: refusal },
    ]);
  }
  const [record] = await submitInputs(ctx, {
    documents: [{ source: `redate of ${approved.id}`, document: withEvaluationDate(document, date) }],
    redatedFrom: { submission_id: approved.id, evaluation_date: document.evaluation_date },
  });
  if (!record) throw new Error('a redate submitted nothing');
  return record;
}

/** Why `date` cannot be the approved inputs' new evaluation date, or null when it can. */
function redateRefusal(document: InputsDocument, date: string, now: Date): string | null {
  const at = Date.parse(`${date}T00:00:00Z`);
  if (!CALENDAR_DATE.test(date) || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== date) {
    return 'is not a calendar date (YYYY-MM-DD)';
  }
  const today = now.toISOString().slice(0, 10);
  if (date > today) return `is after today (${today}, UTC)`;
  if (date <= document.evaluation_date) {
    return `is not after the approved inputs' evaluation_date (${document.evaluation_date}): a redate moves it forward`;
  }
  const latest = Object.entries(document.inputs)
    .map(([key, item]) => ({ path: `inputs.${key}.as_of`, asOf: String(item.as_of ?? '').slice(0, 10) }))
    .filter((e) => e.asOf > date)
    .sort((a, b) => (a.asOf < b.asOf ? 1 : -1))[0];
  if (latest) return `is before the evidence's ${latest.path} (${latest.asOf}), which stays as it is`;
  return null;
}
