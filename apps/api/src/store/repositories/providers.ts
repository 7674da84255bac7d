import type { Provider } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database, IndicatorHistoryTable, ProvidersTable, RiskIndicatorsTable } from '../schema.js';

export type ProviderRow = ProvidersTable;
export type IndicatorRow = RiskIndicatorsTable;

/** A provider row from an inputs document's provider, not yet in force and not withdrawn. */
export function providerRowOf(p: Provider, now: string): ProviderRow {
  return {
    id: p.id,
    name: p.name,
    planner_type: p.planner_type,
    provider_subtype: p.provider_subtype,
    yield_min: p.yield_min,
    yield_max: p.yield_max,
    current_indicator_id: null,
    current_seq: null,
    created_at: now,
    updated_at: now,
    withdrawn_at: null,
    outlook: 'STABLE',
    watch_direction: null,
    watch_since: null,
    watch_review_by: null,
  };
}

export async function findProvider(db: Kysely<Database>, id: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('providers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Creates a provider or updates its descriptive fields; its current indicator is set by setCurrent. */
export async function upsertProvider(db: Kysely<Database>, row: ProviderRow): Promise<void> {
  await db
    .insertInto('providers')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        name: row.name,
        planner_type: row.planner_type,
        provider_subtype: row.provider_subtype,
        yield_min: row.yield_min,
        yield_max: row.yield_max,
        updated_at: row.updated_at,
        withdrawn_at: row.withdrawn_at,
      }),
    )
    .execute();
}

/** Points a provider at the publication in force. */
export async function setCurrent(
  db: Kysely<Database>,
  providerId: string,
  indicatorId: string,
  seq: number,
  at: string,
) {
  await db
    .updateTable('providers')
    .set({ current_indicator_id: indicatorId, current_seq: seq, updated_at: at })
    .where('id', '=', providerId)
    .execute();
}

export async function findIndicator(db: Kysely<Database>, riskIndicatorId: string): Promise<IndicatorRow | undefined> {
  return db
    .selectFrom('risk_indicators')
    .selectAll()
    .where('risk_indicator_id', '=', riskIndicatorId)
    .executeTakeFirst();
}

export async function insertIndicator(db: Kysely<Database>, row: IndicatorRow): Promise<void> {
  await db.insertInto('risk_indicators').values(row).execute();
}

export async function insertHistory(db: Kysely<Database>, row: IndicatorHistoryTable): Promise<void> {
  await db.insertInto('indicator_history').values(row).execute();
}

/** The fields a served Risk Indicator is assembled from: the stored JSON and the publication's times. */
const publicationColumns = [
  'risk_indicators.indicator',
  'risk_indicators.path_to_next_band',
  'indicator_history.score_verified_at',
  'indicator_history.published_at',
  'statements.kid as statement_kid',
  'statements.signature as statement_signature',
  'statements.statement_sha256',
] as const;

/** ... with the outlook and watch in force, kept on the provider's row. */
const servedColumns = [
  ...publicationColumns,
  'providers.outlook',
  'providers.watch_direction',
  'providers.watch_since',
  'providers.watch_review_by',
] as const;

/** The rating actions a publication makes (its action names the outlook and watch in force when it was published). */
export const PUBLICATION_ACTION_TYPES = ['NEW', 'UPGRADE', 'DOWNGRADE', 'AFFIRM', 'REINSTATE'] as const;

/** Providers in force (not withdrawn) joined to the publication in force and its indicator. */
function current(db: Kysely<Database>) {
  return (
    db
      .selectFrom('providers')
      .innerJoin('indicator_history', 'indicator_history.seq', 'providers.current_seq')
      .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
      // The publication's signed statement (none before the statements of earlier publications are signed).
      .leftJoin('statements', (j) =>
        j.onRef('statements.publication_seq', '=', 'providers.current_seq').on('statements.type', '=', 'publication'),
      )
      .where('providers.withdrawn_at', 'is', null)
  );
}

const currentOf = prepared((db, providerId: string) =>
  current(db).select(servedColumns).where('providers.id', '=', providerId),
);

/** A provider's current indicator, unless it has none or was withdrawn. */
export async function findCurrent(db: Kysely<Database>, providerId: string) {
  return (await currentOf(db, providerId))[0];
}

/** The current indicators of several providers (those that have one), with their ids. */
export async function findCurrentMany(db: Kysely<Database>, providerIds: readonly string[]) {
  if (providerIds.length === 0) return [];
  return current(db)
    .select([...servedColumns, 'providers.id'])
    .where('providers.id', 'in', [...providerIds])
    .execute();
}

/** A provider's current indicator with its computation package (the approved inputs it was scored from). */
export async function findCurrentWithPackage(db: Kysely<Database>, providerId: string) {
  return current(db)
    .select([...servedColumns, 'risk_indicators.risk_indicator_id', 'risk_indicators.package'])
    .where('providers.id', '=', providerId)
    .executeTakeFirst();
}

export interface NamePosition {
  name: string;
  id: string;
}

/** Current indicators by provider name then id, after a position (keyset pagination). */
export async function listCurrent(
  db: Kysely<Database>,
  options: { plannerType?: string | undefined; after?: NamePosition | undefined; limit: number },
) {
  let query = current(db).select([...servedColumns, 'providers.name', 'providers.id']);
  if (options.plannerType) query = query.where('providers.planner_type', '=', options.plannerType);
  const after = options.after;
  if (after) {
    // After (name, id): the name bounds the index range, so a page far down the list starts where it is.
    query = query
      .where('providers.name', '>=', after.name)
      .where((eb) => eb.or([eb('providers.name', '>', after.name), eb('providers.id', '>', after.id)]));
  }
  return query.orderBy('providers.name').orderBy('providers.id').limit(options.limit).execute();
}

/** Headline fields of every current indicator, by name: the public snapshot. */
export async function listPublicHeadlines(db: Kysely<Database>) {
  return current(db)
    .select([
      'providers.id',
      'providers.name',
      'providers.planner_type',
      'providers.provider_subtype',
      'providers.yield_min',
      'providers.yield_max',
      'risk_indicators.final_score',
      'risk_indicators.risk_band',
      'risk_indicators.scored_at',
      'providers.outlook',
      'providers.watch_direction',
      'providers.watch_since',
      'providers.watch_review_by',
    ])
    .orderBy('providers.name')
    .orderBy('providers.id')
    .execute();
}

/** A provider's publications, newest first, before a publication sequence number. */
export async function listHistory(
  db: Kysely<Database>,
  providerId: string,
  options: { beforeSeq?: number | undefined; limit: number },
) {
  let query = db
    .selectFrom('indicator_history')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
    .leftJoin('statements', (j) =>
      j.onRef('statements.publication_seq', '=', 'indicator_history.seq').on('statements.type', '=', 'publication'),
    )
    // Each publication as it was published: the outlook and watch its action recorded.
    .leftJoin('rating_actions', (j) =>
      j
        .onRef('rating_actions.publication_seq', '=', 'indicator_history.seq')
        .on('rating_actions.type', 'in', PUBLICATION_ACTION_TYPES),
    )
    .select([
      ...publicationColumns,
      'rating_actions.outlook',
      'rating_actions.watch_direction',
      'rating_actions.watch_since',
      'rating_actions.watch_review_by',
      'indicator_history.seq',
    ])
    .where('indicator_history.provider_id', '=', providerId);
  if (options.beforeSeq !== undefined) query = query.where('indicator_history.seq', '<', options.beforeSeq);
  return query.orderBy('indicator_history.seq', 'desc').limit(options.limit).execute();
}

/** The newest evaluation time among current indicators: how fresh the published data is. */
export async function latestScoredAt(db: Kysely<Database>): Promise<string | null> {
  const row = await current(db)
    .select((eb) => eb.fn.max('risk_indicators.scored_at').as('latest'))
    .executeTakeFirst();
  return row?.latest ?? null;
}

/** Creates a provider row with no publication, unless it exists: submissions need it, the public lists skip it. */
export async function insertProviderIfAbsent(db: Kysely<Database>, row: ProviderRow): Promise<void> {
  await db
    .insertInto('providers')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Every provider by name with the score and band of the indicator it points at (withdrawn ones included). */
export async function listProvidersWithIndicator(db: Kysely<Database>) {
  return db
    .selectFrom('providers')
    .leftJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
    .select([
      'providers.id',
      'providers.name',
      'providers.planner_type',
      'providers.withdrawn_at',
      'risk_indicators.final_score',
      'risk_indicators.risk_band',
    ])
    .orderBy('providers.name')
    .orderBy('providers.id')
    .execute();
}

/** The outlook and watch in force for a provider (an approved action, or a withdrawal ending them). */
export async function setStanding(
  db: Kysely<Database>,
  providerId: string,
  standing: Pick<ProviderRow, 'outlook' | 'watch_direction' | 'watch_since' | 'watch_review_by'>,
): Promise<void> {
  await db.updateTable('providers').set(standing).where('id', '=', providerId).execute();
}
