import type { Kysely } from 'kysely';
import type { Database, ProvidersTable, RiskIndicatorsTable } from '../schema.js';

export type ProviderRow = ProvidersTable;
export type IndicatorRow = RiskIndicatorsTable;

export async function findProvider(db: Kysely<Database>, id: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('providers').selectAll().where('id', '=', id).executeTakeFirst();
}

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
      }),
    )
    .execute();
}

export async function setCurrentIndicator(
  db: Kysely<Database>,
  providerId: string,
  indicatorId: string | null,
  at: string,
) {
  await db
    .updateTable('providers')
    .set({ current_indicator_id: indicatorId, updated_at: at })
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

/** The fields a served Risk Indicator is assembled from. */
const servedColumns = [
  'risk_indicators.indicator',
  'risk_indicators.score_verified_at',
  'risk_indicators.published_at',
] as const;

/** A provider's current indicator, unless it has none or was withdrawn. */
export async function findCurrent(db: Kysely<Database>, providerId: string) {
  return db
    .selectFrom('providers')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
    .select(servedColumns)
    .where('providers.id', '=', providerId)
    .where('providers.withdrawn_at', 'is', null)
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
  let query = db
    .selectFrom('providers')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
    .select([...servedColumns, 'providers.name', 'providers.id'])
    .where('providers.withdrawn_at', 'is', null);
  if (options.plannerType) query = query.where('providers.planner_type', '=', options.plannerType);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('providers.name', '>', after.name),
        eb.and([eb('providers.name', '=', after.name), eb('providers.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('providers.name').orderBy('providers.id').limit(options.limit).execute();
}

/** Headline fields of every current indicator, by name: the public snapshot. */
export async function listPublicHeadlines(db: Kysely<Database>) {
  return db
    .selectFrom('providers')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
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
    ])
    .where('providers.withdrawn_at', 'is', null)
    .orderBy('providers.name')
    .orderBy('providers.id')
    .execute();
}

/** A provider's published indicators, newest first, before a publication sequence number. */
export async function listHistory(
  db: Kysely<Database>,
  providerId: string,
  options: { beforeSeq?: number | undefined; limit: number },
) {
  let query = db
    .selectFrom('risk_indicators')
    .select([...servedColumns, 'risk_indicators.seq'])
    .where('risk_indicators.provider_id', '=', providerId);
  if (options.beforeSeq !== undefined) query = query.where('risk_indicators.seq', '<', options.beforeSeq);
  return query.orderBy('risk_indicators.seq', 'desc').limit(options.limit).execute();
}

/** The newest evaluation time among current indicators: how fresh the published data is. */
export async function latestScoredAt(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('providers')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
    .select((eb) => eb.fn.max('risk_indicators.scored_at').as('latest'))
    .where('providers.withdrawn_at', 'is', null)
    .executeTakeFirst();
  return row?.latest ?? null;
}
