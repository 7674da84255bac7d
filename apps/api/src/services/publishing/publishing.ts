import type { RatingAction, RiskBand, WebhookEventData } from '@svc/contracts';
import {
  assertPublishable,
  type ComputationPackage,
  type Framework,
  futureDatedProblems,
  type InputsDocument,
  isAfterPresent,
  pathToNextBand,
  type RiskIndicator,
  scoreWithPackage,
  serializePackage,
} from '@svc/methodology';
import type { Insertable, Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { deferWrites } from '../../store/deferred-writes.js';
import { keepPlannerStatistics } from '../../store/planner-statistics.js';
import { approvedAtInstants } from '../../store/repositories/approved-inputs.js';
import { insertChange } from '../../store/repositories/changelog.js';
import { increment, incrementAll, PUBLICATION_SEQ, PUBLICATION_VERSION } from '../../store/repositories/meta.js';
import {
  findIndicator,
  findIndicators,
  findProvider,
  findProviders,
  type IndicatorRow,
  insertHistory,
  insertIndicatorIfAbsent,
  type ProviderRow,
  providerRowOf,
  upsertProvider,
} from '../../store/repositories/providers.js';
import { RATING_ACTION_SEQ } from '../../store/repositories/rating-actions.js';
import { subscribedEndpointsByType } from '../../store/repositories/webhooks.js';
import type { ChangelogTable, Database, IndicatorHistoryTable } from '../../store/schema.js';
import { isStoreUnavailable } from '../../store/store.js';
import type { ServiceContext } from '../context.js';
import { recordAudit } from '../operators/audit.js';
import { authorise } from '../operators/operators.js';
import {
  completeAction,
  type PublicationMaker,
  publicationMaker,
  recordPublicationAction,
} from '../rating-actions/rating-actions.js';
import {
  ensureStatements,
  packageSha256,
  prepareSigning,
  prepareSigningAll,
  signStatement,
} from '../statements/statements.js';
import { emitEvent } from '../webhooks/events.js';

export type ChangeType = 'NEW' | 'SCORE_CHANGE' | 'BAND_CHANGE' | 'WITHDRAWN';

export type PublishOutcome =
  | {
      status: 'published';
      indicator: RiskIndicator;
      change: ChangeType | null;
      previousBand: string | null;
      /** The score of the indicator it replaced; null for a first publication (or after a withdrawal). */
      previousScore: number | null;
      /** The rating action it is (NEW, UPGRADE, DOWNGRADE, AFFIRM or REINSTATE), signed; null in a dry run. */
      ratingAction: RatingAction | null;
    }
  | { status: 'unchanged'; indicator: RiskIndicator }
  | { status: 'refused'; indicator: RiskIndicator; reason: string };

export interface Publication {
  /** A validated approved-inputs document. */
  document: InputsDocument;
  framework: Framework;
  /** When the inputs were last approved: the indicator's score_verified_at. */
  approvedAt: string;
  /**
   * The re-scoring that follows a framework release, part of the chief risk officer's act (that role is checked);
   * any other publication needs the approver role.
   */
  releaseRescore?: boolean | undefined;
}

/** The role a publication needs (see Publication.releaseRescore). */
export function publishingRole(p: { releaseRescore?: boolean | undefined }): 'approver' | 'chief_risk_officer' {
  return p.releaseRescore ? 'chief_risk_officer' : 'approver';
}

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

/** A publication scored, checked and serialised, ready to be written (preparePublication). */
export interface PreparedPublication {
  publication: Publication;
  indicator: RiskIndicator;
  pkg: ComputationPackage;
  packageText: string;
  /** The path to the next band, as stored (JSON text). */
  nextBand: string;
}

/**
 * The engine's part of a publication, before any transaction: the indicator and its package, scored; the
 * publication refused when something in it is dated after the present or its confidence is below the threshold.
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
      return writePublication(ctx, tx, prepared, await takeSequences(tx));
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
      for (const b of batch) outcomes.push(await writePublication(ctx, tx, b, reads));
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

/**
 * What a batch reads once, after taking the publishers' lock and before it writes anything (decision 0040), for
 * every publication in it: what writePublication reads per provider alone. Safe to read ahead: a batch names each
 * provider once, and no publication writes another provider's row, indicators, submissions or statements, nor the
 * webhook endpoints.
 */
interface BatchReads {
  providers: Map<string, ProviderRow>;
  /** The indicators the batch's publications replace, by risk_indicator_id. */
  previous: Map<string, IndicatorRow>;
  /** Who proposed and approved each publication's inputs, by provider id (absent: nobody recorded). */
  makers: Map<string, NonNullable<PublicationMaker>>;
  subscribed: Subscribed;
  /** The publication and rating action sequences of each publication that changes something, by provider id. */
  sequences: Map<string, { seq: number; actionSeq: number }>;
}

type Subscribed = Record<(typeof PUBLICATION_EVENTS)[number], readonly { id: string }[]>;

/** The indicator a provider's publication replaces: its current one, unless it is withdrawn (or new). */
const currentOf = (provider: ProviderRow | undefined): string | null =>
  provider && provider.withdrawn_at === null ? provider.current_indicator_id : null;

async function readBatch(tx: Kysely<Database>, batch: readonly PreparedPublication[]): Promise<BatchReads> {
  const idOf = (b: PreparedPublication) => b.indicator.provider_id;
  const found = await findProviders(tx, batch.map(idOf));
  const providers = new Map(found.map((p) => [p.id, p]));
  const changing = batch.filter((b) => currentOf(providers.get(idOf(b))) !== b.indicator.risk_indicator_id);
  const replaced = await findIndicators(
    tx,
    changing.flatMap((b) => currentOf(providers.get(idOf(b))) ?? []),
  );
  const previous = new Map(replaced.map((row) => [row.risk_indicator_id, row]));
  const makers = await approvedAtInstants(
    tx,
    changing.map((b) => ({ providerId: idOf(b), approvedAt: b.publication.approvedAt })),
  );
  const subscribed = await subscribedEndpointsByType(tx, PUBLICATION_EVENTS);
  await prepareSigningAll(tx, changing.map(idOf));
  // The sequences of every publication that changes something, taken at once and handed out in the batch's order,
  // as taking them one publication at a time would number them (no gaps: an unchanged one takes none).
  const sequences = new Map<string, { seq: number; actionSeq: number }>();
  if (changing.length > 0) {
    const [lastSeq, lastActionSeq] = await incrementAll(tx, [PUBLICATION_SEQ, RATING_ACTION_SEQ], changing.length);
    if (lastSeq === undefined || lastActionSeq === undefined)
      throw new Error('the publication sequences were not taken');
    const first = { seq: lastSeq - changing.length + 1, actionSeq: lastActionSeq - changing.length + 1 };
    changing.forEach((b, i) => {
      sequences.set(idOf(b), { seq: first.seq + i, actionSeq: first.actionSeq + i });
    });
  }
  return { providers, previous, makers, subscribed, sequences };
}

/**
 * A publication's writes, in the caller's transaction, whose publication version is bumped already (its lock held).
 * Given `taken`, the publication and rating action sequences taken with the version (a publication alone, which
 * throws Unchanged to roll that back); given a batch's reads (readBatch), what they hold, and an unchanged
 * publication is an outcome.
 */
async function writePublication(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  prepared: PreparedPublication,
  known: { seq: number; actionSeq: number } | BatchReads,
): Promise<PublishOutcome> {
  const { store, clock } = ctx;
  const { publication, indicator, pkg, packageText, nextBand } = prepared;
  const now = isoNow(clock);
  const { provider: p } = publication.document;
  const reads = 'providers' in known ? known : null;
  const provider = reads ? reads.providers.get(p.id) : await findProvider(tx, indicator.provider_id);
  const previousId = currentOf(provider);
  if (previousId === indicator.risk_indicator_id) {
    if (!reads) throw new Unchanged(indicator);
    return { status: 'unchanged', indicator };
  }
  const taken = reads ? reads.sequences.get(p.id) : (known as { seq: number; actionSeq: number });
  if (!taken) throw new Error(`no publication sequence was taken for ${p.id}`);
  const { seq, actionSeq } = taken;
  // Everything else the transaction reads, read before it writes (decision 0038), or by the batch before any of
  // its publications (decision 0040): the indicator replaced, who made the inputs, who hears of it (once, for the
  // three events a publication may emit), and what its statements are chained to; only the audit head and the
  // signing key are read after the writes begin.
  let previous: IndicatorRow | undefined;
  let maker: PublicationMaker;
  let subscribed: Subscribed;
  if (reads) {
    previous = previousId ? reads.previous.get(previousId) : undefined;
    maker = reads.makers.get(p.id);
    subscribed = reads.subscribed;
  } else {
    previous = previousId ? await findIndicator(tx, previousId) : undefined;
    maker = await publicationMaker(tx, p.id, publication.approvedAt);
    subscribed = await subscribedEndpointsByType(tx, PUBLICATION_EVENTS);
    await prepareSigning(tx, p.id);
  }
  // From here the writes go to PostgreSQL together, a few statements at a time, rather than one by one.
  await deferWrites(tx, store.dialect);
  await upsertProvider(tx, providerRowOf(p, now), { indicatorId: indicator.risk_indicator_id, seq });
  await insertIndicatorIfAbsent(
    tx,
    indicatorRowOf({ indicator, pkg, packageText, nextBand, approvedAt: publication.approvedAt, now }),
  );
  await insertHistory(tx, historyRowOf(seq, indicator, publication.approvedAt, now));
  const action = await recordPublicationAction(tx, {
    provider,
    providerName: p.name,
    publicationSeq: seq,
    indicator,
    previous,
    now,
    actionSeq,
    maker,
  });
  const change = changeOf(previous, indicator);
  if (change) {
    await insertChange(tx, {
      ...changeRowOf(p.name, change, previous, indicator, now),
      rating_action_id: action.id,
    });
  }
  await emitPublished(
    tx,
    { indicator, providerName: p.name, approvedAt: publication.approvedAt, now, change, previous },
    subscribed,
  );
  const [entry] = await recordAudit(ctx, tx, [
    {
      action: 'indicator.published',
      subject: { type: 'provider', id: p.id },
      details: {
        risk_indicator_id: indicator.risk_indicator_id,
        publication_seq: seq,
        final_score: indicator.final_score,
        risk_band: indicator.risk_band,
        confidence: indicator.confidence,
        framework_version: indicator.framework_version,
        change,
        rating_action: { id: action.id, type: action.type },
      },
    },
  ]);
  if (!entry) throw new Error('the audit entry of a publication was not written');
  const auditHead = { seq: entry.seq, hash: entry.hash };
  await signStatement(ctx, tx, {
    facts: {
      type: 'publication',
      risk_indicator_id: indicator.risk_indicator_id,
      provider_id: p.id,
      provider_name: p.name,
      final_score: indicator.final_score,
      risk_band: indicator.risk_band,
      confidence: indicator.confidence,
      framework_version: indicator.framework_version,
      framework_sha256: pkg.framework.sha256,
      inputs_sha256: pkg.inputs_sha256,
      result_sha256: pkg.result_sha256,
      package_sha256: packageSha256(packageText),
      evaluation_date: pkg.evaluation_date,
      published_at: now,
    },
    publicationSeq: seq,
    auditHead,
  });
  // The action's statement follows the publication's in the provider's chain.
  const ratingAction = await completeAction(ctx, tx, action, auditHead, subscribed['rating_action.created']);
  return {
    status: 'published' as const,
    indicator,
    change,
    previousBand: previous?.risk_band ?? null,
    previousScore: previous?.final_score ?? null,
    ratingAction,
  };
}

/** The webhook events of a publication: always `risk_indicator.published`, and `band_changed` when the band moved. */
async function emitPublished(tx: Kysely<Database>, p: PublishedFacts, subscribed: Subscribed): Promise<void> {
  const { indicator, previous, now } = p;
  const previousBand = (previous?.risk_band ?? null) as RiskBand | null;
  await emitEvent(
    tx,
    { type: 'risk_indicator.published', at: now, data: publishedEventData(p) },
    subscribed['risk_indicator.published'],
  );
  if (previous && previousBand !== null && previous.risk_band !== indicator.risk_band) {
    await emitEvent(
      tx,
      {
        type: 'risk_indicator.band_changed',
        at: now,
        data: {
          provider_id: indicator.provider_id,
          provider_name: p.providerName,
          risk_indicator_id: indicator.risk_indicator_id,
          previous_band: previousBand,
          new_band: indicator.risk_band as RiskBand,
          previous_score: previous.final_score,
          new_score: indicator.final_score,
          direction: indicator.final_score > previous.final_score ? 'improved' : 'deteriorated',
          framework_version: indicator.framework_version,
          published_at: now,
        },
      },
      subscribed['risk_indicator.band_changed'],
    );
  }
}

/** The events a publication may emit. */
const PUBLICATION_EVENTS = [
  'risk_indicator.published',
  'risk_indicator.band_changed',
  'rating_action.created',
] as const;

/** What a publication writes beside its indicator: the rows below are built from it, by the verb and by bulk loads. */
export interface PublishedFacts {
  indicator: RiskIndicator;
  providerName: string;
  approvedAt: string;
  now: string;
  change: ChangeType | null;
  previous: { risk_band: string; final_score: number } | undefined;
}

/** The stored indicator: the engine's result with its serialised package and the path to the next band (JSON). */
export function indicatorRowOf(p: {
  indicator: RiskIndicator;
  pkg: ComputationPackage;
  packageText: string;
  nextBand: string;
  approvedAt: string;
  now: string;
}): IndicatorRow {
  const { indicator, pkg } = p;
  return {
    risk_indicator_id: indicator.risk_indicator_id,
    provider_id: indicator.provider_id,
    framework_version: indicator.framework_version,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band,
    confidence: indicator.confidence,
    publishable: 1,
    scored_at: indicator.scored_at,
    score_verified_at: p.approvedAt,
    published_at: p.now,
    indicator: JSON.stringify(indicator),
    package: p.packageText,
    path_to_next_band: p.nextBand,
    inputs_sha256: pkg.inputs_sha256,
    framework_sha256: pkg.framework.sha256,
    result_sha256: pkg.result_sha256,
  };
}

/** The history row of a publication, the `seq`-th of the store. */
export function historyRowOf(
  seq: number,
  indicator: Pick<RiskIndicator, 'provider_id' | 'risk_indicator_id' | 'framework_version'>,
  approvedAt: string,
  now: string,
): IndicatorHistoryTable {
  return {
    seq,
    provider_id: indicator.provider_id,
    risk_indicator_id: indicator.risk_indicator_id,
    framework_version: indicator.framework_version,
    score_verified_at: approvedAt,
    published_at: now,
  };
}

/** The change-feed row of a publication that changed something (`change` from changeOf). */
export function changeRowOf(
  providerName: string,
  change: ChangeType,
  previous: { risk_band: string; final_score: number } | undefined,
  indicator: RiskIndicator,
  now: string,
): Insertable<ChangelogTable> {
  return {
    provider_id: indicator.provider_id,
    provider_name: providerName,
    change_type: change,
    previous_score: previous?.final_score ?? null,
    new_score: indicator.final_score,
    previous_band: previous?.risk_band ?? null,
    new_band: indicator.risk_band,
    framework_version: indicator.framework_version,
    risk_indicator_id: indicator.risk_indicator_id,
    changed_at: now,
  };
}

/** The data of the `risk_indicator.published` event every publication emits. */
export function publishedEventData(p: PublishedFacts): WebhookEventData<'risk_indicator.published'> {
  const { indicator, previous, now } = p;
  return {
    provider_id: indicator.provider_id,
    provider_name: p.providerName,
    risk_indicator_id: indicator.risk_indicator_id,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band as RiskBand,
    confidence: indicator.confidence,
    framework_version: indicator.framework_version,
    scored_at: indicator.scored_at,
    score_verified_at: p.approvedAt,
    published_at: now,
    change_type: p.change === 'WITHDRAWN' ? null : p.change,
    previous_score: previous?.final_score ?? null,
    previous_band: (previous?.risk_band ?? null) as RiskBand | null,
  };
}

/** The change-feed entry a publication makes after the previous indicator in force, if any. */
export function changeOf(
  previous: { risk_band: string; final_score: number } | undefined,
  indicator: RiskIndicator,
): ChangeType | null {
  if (!previous) return 'NEW';
  if (previous.risk_band !== indicator.risk_band) return 'BAND_CHANGE';
  return previous.final_score !== indicator.final_score ? 'SCORE_CHANGE' : null;
}

/** Rolls the transaction back (nothing to write) and carries the outcome out of it. */
/** A batch in which nothing was published: rolled back, its outcomes kept. */
class NothingPublished extends Error {
  constructor(readonly outcomes: PublishOutcome[]) {
    super('nothing published');
  }
}

class Unchanged extends Error {
  constructor(readonly indicator: RiskIndicator) {
    super('unchanged');
  }
}
