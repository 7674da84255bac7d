import type { RiskIndicatorResponse } from '@svc/contracts';
import type { NextBandPath, RiskIndicator } from '@svc/methodology';
import {
  findCurrent,
  findIndicator,
  findInForce,
  findProvider,
  listCurrent,
  listHistory,
  type NamePosition,
} from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce, knownFramework, knownVersionOf } from '../frameworks/frameworks.js';
import { decodeNameCursor, namePosition, pageOf } from '../shared/paging.js';
import type { SnapshotRead } from '../shared/public-snapshot.js';
import { pageKey, type ServedPage, ServedRow } from '../shared/served-indicators.js';
import { type CheckedStatement, checkedPublicationStatement } from '../statements/statements.js';
import { pastInstant } from './as-of.js';
import { servedIndicatorJson } from './served.js';

/** Published Risk Indicators as the API and the pages read them: in force, listed, packaged, verified. */

/**
 * The provider's Risk Indicator in force, as served (JSON text): now, or with `asOf` (an `as_of` value) the one in
 * force at that instant as it was published then; with `fields`, only those top-level fields; `not_found` when it
 * has none.
 */
export async function currentIndicator(
  ctx: ServiceContext,
  input: { providerId: string; asOf?: string | undefined; fields?: readonly string[] | undefined },
): Promise<string> {
  const row = await servedIndicator(ctx, input);
  return input.fields === undefined ? row.bytes.toString() : row.select(new Set(input.fields));
}

/**
 * The provider's Risk Indicator in force as served (see currentIndicator), whole, now or at `asOf`: from the
 * indicators kept for this publication version (decision 0036, and its addendum for `asOf`), else from the store,
 * then kept.
 */
export async function servedIndicator(
  ctx: ServiceContext,
  input: { providerId: string; asOf?: string | undefined },
): Promise<ServedRow> {
  const providerId = input.providerId.toLowerCase();
  const asOf = input.asOf === undefined ? undefined : pastInstant(ctx, input.asOf);
  const kept = ctx.snapshot.indicators;
  const version = await kept.current();
  const found = kept.row(providerId, asOf);
  if (found) return found;
  const row =
    asOf === undefined
      ? await findCurrent(ctx.store.db, providerId)
      : await findInForce(ctx.store.db, providerId, asOf);
  if (!row)
    throw new ServiceError(
      'not_found',
      asOf === undefined
        ? `no published Risk Indicator for provider ${input.providerId}`
        : `no Risk Indicator of provider ${input.providerId} was in force at ${asOf}`,
    );
  const served = ServedRow.of(servedIndicatorJson(row));
  kept.keepRow(version, providerId, served, asOf);
  return served;
}

/**
 * A page of indicators in force by name, after the `cursor` of the previous page: each as served (JSON bytes, or
 * with `fields` only those top-level fields), and the cursor of the next page (null on the last). With `asOf` (an
 * `as_of` value), those in force at that instant as they were published then; its cursors hold the instant and
 * serve no other. Pages of the list now are kept for the publication version (decision 0036); `kept` is the kept
 * page itself when every field is asked for, so its whole answer can be kept with it (decision 0043).
 */
export async function currentIndicatorsPage(
  ctx: ServiceContext,
  input: {
    plannerType?: string | undefined;
    cursor?: string | undefined;
    limit: number;
    asOf?: string | undefined;
    fields?: readonly string[] | undefined;
  },
): Promise<{ data: Buffer[]; nextCursor: string | null; kept?: ServedPage }> {
  const asOf = input.asOf === undefined ? undefined : pastInstant(ctx, input.asOf);
  const after = decodeNameCursor(input.cursor, asOf);
  const page = asOf === undefined ? await keptPage(ctx, input.plannerType, after, input.limit) : undefined;
  const { rows, nextCursor } =
    page ?? (await readPage(ctx, { plannerType: input.plannerType, after, limit: input.limit, asOf }));
  if (input.fields === undefined)
    return { data: rows.map((r) => r.bytes), nextCursor, ...(page ? { kept: page } : {}) };
  const fields = new Set(input.fields);
  return { data: rows.map((r) => Buffer.from(r.select(fields))), nextCursor };
}

/** A page of the list now, as kept for this publication version, else read and kept. */
async function keptPage(
  ctx: ServiceContext,
  plannerType: string | undefined,
  after: NamePosition | undefined,
  limit: number,
): Promise<ServedPage> {
  const kept = ctx.snapshot.indicators;
  const version = await kept.current();
  const key = pageKey({ plannerType, after, limit });
  const found = kept.page(key);
  if (found) return found;
  const page = await readPage(ctx, { plannerType, after, limit });
  kept.keepPage(version, key, page);
  return page;
}

/** A page read from the store, its rows serialised as served. */
async function readPage(
  ctx: ServiceContext,
  input: { plannerType: string | undefined; after: NamePosition | undefined; limit: number; asOf?: string | undefined },
): Promise<ServedPage> {
  const { asOf } = input;
  const rows = await listCurrent(ctx.store.db, { ...input, limit: input.limit + 1 });
  const { page, nextCursor } = pageOf(rows, input.limit, (r) => namePosition(r, asOf));
  return { rows: page.map((r) => ServedRow.of(servedIndicatorJson(r))), nextCursor };
}

/**
 * The public list as of a past instant (an `as_of` value): the headlines in force then, in the current list's form
 * and order, with the instant (ISO 8601 UTC with milliseconds) its cursors hold.
 */
export async function publicScoresAsOf(
  ctx: ServiceContext,
  input: { asOf: string },
): Promise<SnapshotRead & { asOf: string }> {
  const asOf = pastInstant(ctx, input.asOf);
  return { ...(await ctx.snapshot.asOf(asOf)), asOf };
}

/** Every indicator in force, by name, optionally of one planner type (the export). */
export async function currentIndicators(
  ctx: ServiceContext,
  input: { plannerType?: string | undefined },
): Promise<RiskIndicatorResponse[]> {
  const rows = await listCurrent(ctx.store.db, { plannerType: input.plannerType, limit: 1_000_000 });
  return rows.map((r) => JSON.parse(servedIndicatorJson(r)) as RiskIndicatorResponse);
}

/** A published indicator's computation package: its stored canonical bytes, unchanged; `not_found` when unknown. */
export async function computationPackage(ctx: ServiceContext, input: { id: string }): Promise<string> {
  const row = await findIndicator(ctx.store.db, input.id);
  if (!row) throw new ServiceError('not_found', `no published Risk Indicator ${input.id}`);
  return row.package;
}

/** How many past publications a provider memo lists. */
const MEMO_HISTORY_ROWS = 10;

/** One past publication, as a memo lists it. */
export interface PastPublication {
  published_at: string;
  final_score: number;
  risk_band: string;
  framework_version: string;
  risk_indicator_id: string;
}

/**
 * What a provider's credit memo shows: the indicator in force, its latest publications, newest first, and the bands
 * of the indicator's framework (those of the framework in force should this process not know it); `not_found` when
 * it has none.
 */
export async function memoFacts(
  ctx: ServiceContext,
  input: { providerId: string },
): Promise<{ indicator: RiskIndicatorResponse; history: PastPublication[]; bands: { band: string; min: number }[] }> {
  const indicator = JSON.parse(await currentIndicator(ctx, input)) as RiskIndicatorResponse;
  const rows = await listHistory(ctx.store.db, input.providerId.toLowerCase(), { limit: MEMO_HISTORY_ROWS });
  const history = rows.map((h) => {
    const past = JSON.parse(h.indicator) as RiskIndicatorResponse;
    return {
      published_at: h.published_at,
      final_score: past.final_score,
      risk_band: past.risk_band,
      framework_version: past.framework_version,
      risk_indicator_id: past.risk_indicator_id,
    };
  });
  const version = knownVersionOf(ctx, indicator.framework_version);
  const framework = (version === null ? undefined : knownFramework(ctx, version)) ?? (await frameworkInForce(ctx));
  const bands = framework.definition.bands.map((b) => ({ band: b.band, min: Number(b.min) }));
  return { indicator, history, bands };
}

/** Whether a published indicator is the provider's one in force, was replaced (by which), or was withdrawn. */
export type Standing =
  | { kind: 'current' }
  | { kind: 'superseded'; currentId: string | null }
  | { kind: 'withdrawn'; withdrawnAt: string };

/** A published indicator as the verification page shows it: its figures, its hashes and where it stands now. */
export interface PublishedIndicator {
  indicator: RiskIndicator;
  publishedAt: string;
  scoreVerifiedAt: string;
  inputsSha256: string;
  frameworkSha256: string;
  resultSha256: string;
  frameworkVersion: string;
  pathToNextBand: NextBandPath | null;
  standing: Standing;
  /** Its publication's signed statement, checked; null until the statements of earlier publications are signed. */
  statement: CheckedStatement | null;
}

/** A published indicator by its id, with its standing; null when no indicator of that id was published. */
export async function publishedIndicator(
  ctx: ServiceContext,
  input: { id: string },
): Promise<PublishedIndicator | null> {
  const row = await findIndicator(ctx.store.db, input.id);
  if (!row) return null;
  const provider = await findProvider(ctx.store.db, row.provider_id);
  const standing: Standing = !provider
    ? { kind: 'superseded', currentId: null }
    : provider.withdrawn_at !== null
      ? { kind: 'withdrawn', withdrawnAt: provider.withdrawn_at }
      : provider.current_indicator_id === input.id
        ? { kind: 'current' }
        : { kind: 'superseded', currentId: provider.current_indicator_id };
  return {
    indicator: JSON.parse(row.indicator) as RiskIndicator,
    publishedAt: row.published_at,
    scoreVerifiedAt: row.score_verified_at,
    inputsSha256: row.inputs_sha256,
    frameworkSha256: row.framework_sha256,
    resultSha256: row.result_sha256,
    frameworkVersion: row.framework_version,
    pathToNextBand: row.path_to_next_band === null ? null : (JSON.parse(row.path_to_next_band) as NextBandPath),
    standing,
    statement: await checkedPublicationStatement(ctx, { riskIndicatorId: input.id }),
  };
}
