import type { Provider } from '@svc/methodology';
import type { Kysely } from 'kysely';
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

/** The providers of these ids that exist, in no set order (a publishing batch's read ahead, decision 0040). */
export async function findProviders(db: Kysely<Database>, ids: readonly string[]): Promise<ProviderRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('providers')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** The indicators of these ids that exist, in no set order. */
export async function findIndicators(db: Kysely<Database>, ids: readonly string[]): Promise<IndicatorRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('risk_indicators')
    .selectAll()
    .where('risk_indicator_id', 'in', [...ids])
    .execute();
}

/**
 * Creates a provider or updates its descriptive fields. Its current indicator is set by setCurrent, or here, in the
 * same statement (`current`: a publication's provider row). The current indicator's row may follow in the
 * transaction: current_indicator_id holds no foreign key.
 */
export async function upsertProvider(
  db: Kysely<Database>,
  row: ProviderRow,
  current?: { indicatorId: string; seq: number },
): Promise<void> {
  const inForce = current ? { current_indicator_id: current.indicatorId, current_seq: current.seq } : {};
  await db
    .insertInto('providers')
    .values({ ...row, ...inForce })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        name: row.name,
        planner_type: row.planner_type,
        provider_subtype: row.provider_subtype,
        yield_min: row.yield_min,
        yield_max: row.yield_max,
        updated_at: row.updated_at,
        withdrawn_at: row.withdrawn_at,
        ...inForce,
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

/**
 * Stores an indicator unless one with its id is stored already (ids are content-addressed: the same result published
 * again, after a withdrawal or another result, keeps its first row), in one statement.
 */
export async function insertIndicatorIfAbsent(db: Kysely<Database>, row: IndicatorRow): Promise<void> {
  await db
    .insertInto('risk_indicators')
    .values(row)
    .onConflict((oc) => oc.column('risk_indicator_id').doNothing())
    .execute();
}

export async function insertHistory(db: Kysely<Database>, row: IndicatorHistoryTable): Promise<void> {
  await db.insertInto('indicator_history').values(row).execute();
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

// The indicators in force are read by in-force.ts; named here too, where their callers look for them.
export {
  findCurrent,
  findCurrentMany,
  findCurrentWithPackage,
  findInForce,
  latestScoredAt,
  listCurrent,
  listHistory,
  listPublicHeadlines,
  listPublicHeadlinesAsOf,
  type NamePosition,
  PUBLICATION_ACTION_TYPES,
} from './in-force.js';
