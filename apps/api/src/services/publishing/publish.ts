import {
  assertPublishable,
  futureDatedProblems,
  isAfterPresent,
  pathToNextBand,
  type RiskIndicator,
  scoreWithPackage,
  serializePackage,
} from '@svc/methodology';
import type { Kysely } from 'kysely';
import { keepPlannerStatistics } from '../../store/planner-statistics.js';
import { increment, incrementAll, PUBLICATION_SEQ, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import { RATING_ACTION_SEQ } from '../../store/repositories/rating-actions.js';
import type { Database } from '../../store/schema.js';
import { isStoreUnavailable } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { authorise } from '../operators/operators.js';
import { evaluationTooOld } from '../shared/freshness-policy.js';
import { ensureStatements } from '../statements/statements.js';
import { type PreparedPublication, type Publication, type PublishOutcome, publishingRole } from './model.js';
import { readAlone, readBatch, readOfBatch } from './reads.js';
import { writePublication } from './write.js';

/** Publishing: one indicator, or a run's publications in batches, each batch in one transaction (decision 0039). */

/**
 * Scores approved inputs and, in one transaction, stores the indicator with its
 * computation package, points the provider at it, records its rating action,
 * writes the change-feed entry naming it and bumps the publication version. Re-publishing unchanged inputs is a no-op
 * (the risk_indicator_id is content-addressed); unpublishable results are refused.
 */
export async function publishIndicator(ctx: ServiceContext, publication: Publication): Promise<PublishOutcome> {
  assertPublishable(publication.framework);
  await authorise(ctx, publishingRole(publication), 'publishing');
  await ensureStatements(ctx);
  const prepared = preparePublication(ctx, publication);
  return 'status' in prepared ? prepared : writeAlone(ctx, prepared);
}

/**
 * The engine's part of a publication, before any transaction: the indicator and its package, scored; the
 * publication refused when something in it is dated after the present, its evaluation is older than the policy allows
 * (max_evaluation_age_days) or its confidence is below the threshold.
 */
export function preparePublication(
  ctx: ServiceContext,
  publication: Publication,
): PreparedPublication | Extract<PublishOutcome, { status: 'refused' }> {
  const { clock } = ctx;
  const { indicator, package: pkg } = scoreWithPackage(publication.document, publication.framework);
  // Nothing dated after the present is published, whichever path led here (see futureDatedProblems).
  const future = futureDatedProblems(publication.document, clock.now()).map((p) => p.path);
  if (isAfterPresent(publication.approvedAt, clock.now())) future.push('approved_at (of the submission)');
  if (future.length > 0) {
    return { status: 'refused', indicator, reason: `dated after the present: ${future.join(', ')}` };
  }
  // Nor anything evaluated longer ago than the policy allows, by the context's clock (decision 0053).
  const tooOld = evaluationTooOld(publication.document.evaluation_date, clock.now(), ctx.freshness);
  if (tooOld) return { status: 'refused', indicator, reason: `evaluation_date ${tooOld.message}` };
  if (!indicator.publishable) {
    return {
      status: 'refused',
      indicator,
      reason: `confidence ${indicator.confidence} is below the publication threshold`,
    };
  }
  const packageText = serializePackage(pkg);
  // Computed before the transaction: it scores the document a hundred times or so (milliseconds).
  const nextBand = JSON.stringify(pathToNextBand(publication.document, publication.framework));
  return { publication, indicator, pkg, packageText, nextBand };
}

/** One publication in its own transaction. */
function writeAlone(ctx: ServiceContext, prepared: PreparedPublication): Promise<PublishOutcome> {
  return ctx.store.db
    .transaction()
    .execute(async (tx) => {
      // Taken first, in one statement: the publication version (it serialises publishers on PostgreSQL, a row lock
      // until commit), then the publication and rating action sequences.
      const before = await readAlone(tx, prepared, await takeSequences(tx));
      if (!before) throw new Unchanged(prepared.indicator);
      return writePublication(ctx, tx, prepared, before);
    })
    .catch((error: unknown) => {
      if (error instanceof Unchanged) return { status: 'unchanged' as const, indicator: error.indicator };
      throw error;
    });
}

/** The publication version's bump (the publishers' lock), then the publication and rating action sequences: one statement. */
async function takeSequences(tx: Kysely<Database>): Promise<{ seq: number; actionSeq: number }> {
  const [, seq, actionSeq] = await incrementAll(tx, [PUBLICATION_VERSION, PUBLICATION_SEQ, RATING_ACTION_SEQ]);
  if (seq === undefined || actionSeq === undefined) throw new Error('the publication sequences were not taken');
  return { seq, actionSeq };
}

/** How many publications a run writes in one transaction (decision 0039). */
export const PUBLICATION_BATCH = 50;

/**
 * Publications prepared for several providers, written in one transaction (decision 0039): all of them or, if the
 * transaction fails, each alone in its own, so that what failed fails alone (and its error is thrown as
 * publishIndicator would throw it). Either way each provider is fully published or untouched. Each publication is
 * for another provider; the role each needs (publishingRole) is checked first. Outcomes in the order given.
 */
export async function publishPrepared(
  ctx: ServiceContext,
  batch: readonly PreparedPublication[],
): Promise<PublishOutcome[]> {
  if (batch.length === 0) return [];
  const providers = new Set(batch.map((b) => b.indicator.provider_id));
  if (providers.size !== batch.length) throw new Error('a batch of publications names a provider twice');
  for (const b of batch) assertPublishable(b.publication.framework);
  for (const role of new Set(batch.map((b) => publishingRole(b.publication)))) {
    await authorise(ctx, role, 'publishing');
  }
  await ensureStatements(ctx);
  const outcomes = await writeBatch(ctx, batch);
  // A run grows the tables fast: their statistics kept in step, so foreign keys stay checked by index (decision 0042).
  await keepPlannerStatistics(ctx.store, outcomes.filter((o) => o.status === 'published').length);
  return outcomes;
}

/** publishPrepared's writes: one transaction, or each publication alone when it fails. */
async function writeBatch(ctx: ServiceContext, batch: readonly PreparedPublication[]): Promise<PublishOutcome[]> {
  if (batch.length <= 1) return Promise.all(batch.map((b) => writeAlone(ctx, b)));
  try {
    return await ctx.store.db.transaction().execute(async (tx) => {
      // The publishers' lock, once for the batch (writeAlone's first statement).
      await increment(tx, PUBLICATION_VERSION);
      const reads = await readBatch(tx, batch);
      const outcomes: PublishOutcome[] = [];
      for (const b of batch) {
        const before = readOfBatch(reads, b);
        outcomes.push(
          before ? await writePublication(ctx, tx, b, before) : { status: 'unchanged', indicator: b.indicator },
        );
      }
      // Nothing published: nothing kept, not even the version's bump.
      if (!outcomes.some((o) => o.status === 'published')) throw new NothingPublished(outcomes);
      return outcomes;
    });
  } catch (error) {
    if (error instanceof NothingPublished) return error.outcomes;
    // The store away or overloaded: one provider alone would only wait for it again; the caller hears it now.
    if (isStoreUnavailable(error)) throw error;
    const outcomes: PublishOutcome[] = [];
    for (const b of batch) {
      try {
        outcomes.push(await writeAlone(ctx, b));
      } catch (failure) {
        throw new PublicationsStopped(outcomes, failure);
      }
    }
    return outcomes;
  }
}

/**
 * Publications written one by one that stopped at one of them: the outcomes of those written before it (each
 * committed, whole), and the error that stopped it as the cause.
 */
export class PublicationsStopped extends Error {
  override readonly name = 'PublicationsStopped';
  constructor(
    readonly written: PublishOutcome[],
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** A batch in which nothing was published: rolled back, its outcomes kept. */
class NothingPublished extends Error {
  constructor(readonly outcomes: PublishOutcome[]) {
    super('nothing published');
  }
}

/** Rolls the transaction back (nothing to write) and carries the outcome out of it. */
class Unchanged extends Error {
  constructor(readonly indicator: RiskIndicator) {
    super('unchanged');
  }
}
