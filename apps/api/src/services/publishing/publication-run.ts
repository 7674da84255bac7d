import {
  assertPublishable,
  type Framework,
  futureDatedProblems,
  type InputsDocument,
  isAfterPresent,
  type Problem,
  type RiskIndicator,
  readJson,
  score,
  validateInputs,
  withEvaluationDate,
} from '@svc/methodology';
import { isoNow } from '../../clock.js';
import { latestApproved, providersWithApproved } from '../../store/repositories/approved-inputs.js';
import { findIndicator, findProvider } from '../../store/repositories/providers.js';
import type { Store } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce } from '../frameworks/frameworks.js';
import { authorise } from '../operators/operators.js';
import { evaluationTooOld } from '../shared/freshness-policy.js';
import {
  type ChangeType,
  changeOf,
  PUBLICATION_BATCH,
  type Publication,
  PublicationsStopped,
  type PublishOutcome,
  preparePublication,
  publishingRole,
  publishPrepared,
} from './publishing.js';

export interface PublishRunRequest {
  /** The providers to publish, or every provider with approved inputs. */
  providers: readonly string[] | 'all';
  /** Evaluate on this date (YYYY-MM-DD) instead of each document's evaluation_date. */
  date?: string | undefined;
  /** Score and report what would happen; write nothing. */
  dryRun?: boolean | undefined;
  /** Called after each provider, for a progress display. */
  onProgress?: ((done: number, total: number, providerId: string) => void) | undefined;
  /** Publish under this signed-off framework instead of the current one (a newly published version). */
  framework?: Framework | undefined;
  /** The re-scoring of a framework release (see Publication.releaseRescore). */
  releaseRescore?: boolean | undefined;
}

/** What happened to one provider (or, in a dry run, what would). */
export interface RunOutcome {
  provider_id: string;
  provider_name: string | null;
  status: 'published' | 'unchanged' | 'refused';
  /** The approved submission scored, when there is one. */
  submission_id: string | null;
  risk_indicator_id: string | null;
  final_score: number | null;
  risk_band: string | null;
  confidence: number | null;
  /** The band in force before, for a publication over an earlier one. */
  previous_band: string | null;
  /** The score in force before: the indicator replaced, or (unchanged) the one kept; null when there was none. */
  previous_score: number | null;
  /** The change-feed entry written (NEW, SCORE_CHANGE, BAND_CHANGE), or null. */
  change: ChangeType | null;
  /** Why it was refused. */
  reason: string | null;
  /** The document's problems, when it is not valid (e.g. on another evaluation date). */
  problems: Problem[];
}

export interface RunReport {
  dry_run: boolean;
  framework_version: string;
  /** The --date override, or null when each document's own evaluation_date was used. */
  evaluation_date: string | null;
  counts: { published: number; unchanged: number; refused: number };
  outcomes: RunOutcome[];
}

/**
 * Publishes each provider from its latest APPROVED submission under the framework
 * release in force (frameworkInForce), PUBLICATION_BATCH providers per transaction (publishPrepared,
 * decision 0039), so a run stopped at any point leaves every provider either fully published or
 * untouched, and running it again publishes only the rest.
 */
export async function publishRun(ctx: ServiceContext, request: PublishRunRequest): Promise<RunReport> {
  const { store, clock } = ctx;
  if (request.date !== undefined && isAfterPresent(request.date, clock.now())) {
    const message = `${request.date} is after the present (${isoNow(clock)})`;
    throw new ServiceError('invalid_value', `the evaluation date (--date) ${message}; nothing was published`, [
      { path: '--date', message },
    ]);
  }
  const tooOld = request.date === undefined ? null : evaluationTooOld(request.date, clock.now(), ctx.freshness);
  if (tooOld) {
    throw new ServiceError('invalid_value', `the evaluation date (--date) ${tooOld.message}; nothing was published`, [
      { path: '--date', message: tooOld.message },
    ]);
  }
  // The release in force on the evaluation date (the engine's signed-off one while none is recorded).
  const onDate = request.date ?? isoNow(clock).slice(0, 10);
  const framework = request.framework ?? (await frameworkInForce(ctx, { on: onDate }));
  assertPublishable(framework);
  // Refused before any scoring; each publication checks again in its own transaction (publishIndicator).
  if (request.dryRun !== true) await authorise(ctx, publishingRole(request), 'publishing');
  const ids = request.providers === 'all' ? await providersWithApproved(store.db) : [...new Set(request.providers)];
  const outcomes: RunOutcome[] = [];
  const reportOf = (): RunReport => {
    const count = (status: RunOutcome['status']) => outcomes.filter((o) => o.status === status).length;
    return {
      dry_run: request.dryRun === true,
      framework_version: framework.definition.framework_version,
      evaluation_date: request.date ?? null,
      counts: { published: count('published'), unchanged: count('unchanged'), refused: count('refused') },
      outcomes,
    };
  };
  // A batch of providers at a time, written in one transaction (decision 0039).
  for (let at = 0; at < ids.length; at += PUBLICATION_BATCH) {
    const batch = ids.slice(at, at + PUBLICATION_BATCH);
    try {
      const staged: Staged[] = [];
      for (const id of batch) staged.push(await stageOne(ctx, framework, id, request));
      for (const outcome of await finish(ctx, staged, request)) {
        outcomes.push(outcome);
        request.onProgress?.(outcomes.length, ids.length, outcome.provider_id);
      }
    } catch (error) {
      // What was written before the error stays written (each provider whole); the rest is untouched.
      const done = error instanceof FinishStopped ? error.outcomes : [];
      outcomes.push(...done);
      const cause = error instanceof FinishStopped ? error.cause : error;
      throw new RunStopped({ ...reportOf(), not_attempted: ids.slice(at + done.length) }, cause);
    }
  }
  return reportOf();
}

/**
 * A run that stopped partway (the store went away, the operator was revoked meanwhile): the report of what it did
 * before (every batch written before stays written, each provider whole) and the providers it did not reach, with
 * the error that stopped it as its cause. Running it again publishes the rest.
 */
export class RunStopped extends Error {
  override readonly name = 'RunStopped';
  constructor(
    readonly report: RunReport & { not_attempted: string[] },
    cause: unknown,
  ) {
    super(`the run stopped: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

async function stageOne(
  ctx: ServiceContext,
  framework: Framework,
  providerId: string,
  request: PublishRunRequest,
): Promise<Staged> {
  const { store, clock } = ctx;
  const submission = await latestApproved(store.db, providerId);
  if (!submission?.approved_at) {
    const known = await findProvider(store.db, providerId);
    const reason = known ? 'no approved inputs' : `no provider ${providerId}`;
    return { ...blank(providerId, known?.name ?? null), reason };
  }
  const raw = readJson(submission.document);
  const validation = validateInputs(
    request.date === undefined ? raw : withEvaluationDate(raw, request.date),
    framework,
  );
  if (!validation.ok) {
    const name = (raw as Partial<InputsDocument>).provider?.name ?? null;
    return {
      ...blank(providerId, name),
      submission_id: submission.id,
      reason: `the approved inputs are not valid on ${request.date}`,
      problems: validation.problems,
    };
  }
  const document = validation.document;
  // Approved before this check existed, or with the clock since set back: still nothing from the future.
  const future = futureDatedProblems(document, clock.now());
  if (future.length > 0) {
    return {
      ...blank(providerId, document.provider.name),
      submission_id: submission.id,
      reason: `the approved inputs are dated after the present (${future.map((p) => p.path).join(', ')})`,
      problems: future,
    };
  }
  const stale = staleRefusal(ctx, providerId, document);
  if (stale) return { ...stale, submission_id: submission.id };
  return {
    providerId,
    submissionId: submission.id,
    publication: { document, framework, approvedAt: submission.approved_at, releaseRescore: request.releaseRescore },
  };
}

/**
 * The publication guard (decision 0053): a provider whose evaluation_date is more than max_evaluation_age_days before
 * today (UTC) is refused, naming the date, the limit and the remedy; nothing of it is written.
 */
function staleRefusal(ctx: ServiceContext, providerId: string, document: InputsDocument): RunOutcome | null {
  const tooOld = evaluationTooOld(document.evaluation_date, ctx.clock.now(), ctx.freshness);
  if (!tooOld) return null;
  return {
    ...blank(providerId, document.provider.name),
    reason:
      `evaluation_date ${tooOld.message}: \`svc inputs redate ${providerId}\` submits the approved inputs again ` +
      'with a new evaluation date, for approval',
    problems: [{ path: 'evaluation_date', message: tooOld.message }],
  };
}

/** A provider read and checked, to be published (or previewed); or what happened to it already. */
type Staged = RunOutcome | { providerId: string; submissionId: string; publication: Publication };

/** What happened to each provider staged: previewed one by one in a dry run, else published together. */
async function finish(
  ctx: ServiceContext,
  staged: readonly Staged[],
  request: PublishRunRequest,
): Promise<RunOutcome[]> {
  const ready = staged.map((s) =>
    'publication' in s ? { ...s, prepared: request.dryRun ? null : preparePublication(ctx, s.publication) } : s,
  );
  const toWrite = ready.flatMap((r) =>
    'prepared' in r && r.prepared && !('status' in r.prepared) ? [r.prepared] : [],
  );
  // publishPrepared's outcomes are in toWrite's order, which is ready's: the next one is the next written.
  let stopped: PublicationsStopped | null = null;
  const written = await publishPrepared(ctx, toWrite).catch((error: unknown) => {
    if (!(error instanceof PublicationsStopped)) throw error;
    stopped = error;
    return error.written;
  });
  const next = written.values();
  const outcomes: RunOutcome[] = [];
  for (const r of ready) {
    if (!('prepared' in r)) {
      outcomes.push(r);
      continue;
    }
    const { document, framework } = r.publication;
    const outcome =
      r.prepared === null
        ? await preview(ctx.store, framework, document)
        : 'status' in r.prepared
          ? r.prepared
          : next.next().value;
    if (!outcome) {
      // The publication that stopped the run: those before it are the batch's outcomes so far.
      if (stopped) throw new FinishStopped(outcomes, (stopped as PublicationsStopped).cause);
      throw new Error(`no outcome for ${r.providerId}`);
    }
    outcomes.push({ ...outcomeOf(r.providerId, document, outcome), submission_id: r.submissionId });
  }
  return outcomes;
}

/** A batch of the run that stopped partway: the outcomes of its providers before the one that stopped it. */
class FinishStopped extends Error {
  constructor(
    readonly outcomes: RunOutcome[],
    override readonly cause: unknown,
  ) {
    super('a publication of the batch failed');
  }
}

/** What publishIndicator would do, read without writing: the same checks in the same order. */
async function preview(store: Store, framework: Framework, document: InputsDocument): Promise<PublishOutcome> {
  const indicator = score(document, framework);
  if (!indicator.publishable) return { status: 'refused', indicator, reason: belowThreshold(indicator) };
  const provider = await findProvider(store.db, indicator.provider_id);
  const previousId = provider && provider.withdrawn_at === null ? provider.current_indicator_id : null;
  if (previousId === indicator.risk_indicator_id) return { status: 'unchanged', indicator };
  const previous = previousId ? await findIndicator(store.db, previousId) : undefined;
  return {
    status: 'published',
    indicator,
    change: changeOf(previous, indicator),
    previousBand: previous?.risk_band ?? null,
    previousScore: previous?.final_score ?? null,
    ratingAction: null,
  };
}

function belowThreshold(indicator: RiskIndicator): string {
  return `confidence ${indicator.confidence} is below the publication threshold`;
}

function outcomeOf(providerId: string, document: InputsDocument, outcome: PublishOutcome): RunOutcome {
  const { indicator } = outcome;
  return {
    ...blank(providerId, document.provider.name),
    status: outcome.status,
    risk_indicator_id: indicator.risk_indicator_id,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band,
    confidence: indicator.confidence,
    previous_band: outcome.status === 'published' ? outcome.previousBand : null,
    previous_score: previousScoreOf(outcome),
    change: outcome.status === 'published' ? outcome.change : null,
    reason: outcome.status === 'refused' ? outcome.reason : null,
  };
}

function previousScoreOf(outcome: PublishOutcome): number | null {
  if (outcome.status === 'published') return outcome.previousScore;
  return outcome.status === 'unchanged' ? outcome.indicator.final_score : null;
}

function blank(providerId: string, name: string | null): RunOutcome {
  return {
    provider_id: providerId,
    provider_name: name,
    status: 'refused',
    submission_id: null,
    risk_indicator_id: null,
    final_score: null,
    risk_band: null,
    confidence: null,
    previous_band: null,
    previous_score: null,
    change: null,
    reason: null,
    problems: [],
  };
}
