// The indicators in force, now or at an instant, as they are served: the current one of a provider, one in force at
// an instant, the lists by name, the public headlines, a provider's history, the newest evaluation time.
import { type ExpressionBuilder, type Kysely, PostgresAdapter } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';

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

/**
 * ... as of an instant: the outlook and watch in force then, from the provider's latest rating action that took
 * effect at or before it (joined as `state` by inForceAt; each action records the outlook and watch after it).
 */
const asOfServedColumns = [
  ...publicationColumns,
  'state.outlook',
  'state.watch_direction',
  'state.watch_since',
  'state.watch_review_by',
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

/**
 * Providers joined to the publication in force at `asOf` (ISO 8601 UTC with milliseconds, as published_at is
 * stored) and its indicator: each provider's latest publication at or before that instant (ties by seq), found by
 * one seek of indicator_history_in_force from the end of the provider's range, unless its withdrawal (keyed by the
 * publication it withdrew) came at or before that instant. A provider with nothing in force then has no row. The
 * withdrawal is looked up by its key for each such row (a count, which PostgreSQL does not turn into an anti join
 * reading every withdrawal).
 *
 * SQLite runs the seek as a correlated subquery for each provider and reads the row by its key. PostgreSQL would
 * hash the whole history to join the subquery's answer (a scan of every row), so there the seek is a LATERAL
 * subquery that hands over the row itself, once per provider.
 */
function inForceAt(db: Kysely<Database>, asOf: string) {
  const latest = (eb: ExpressionBuilder<Database, 'providers'>) =>
    eb
      .selectFrom('indicator_history as latest')
      .whereRef('latest.provider_id', '=', 'providers.id')
      .where('latest.published_at', '<=', asOf)
      .orderBy('latest.published_at', 'desc')
      .orderBy('latest.seq', 'desc')
      .limit(1);
  const seeking = db
    .selectFrom('providers')
    .innerJoin('indicator_history', (j) =>
      j.on((eb) => eb('indicator_history.seq', '=', latest(eb).select('latest.seq'))),
    );
  const joined = onPostgres(db)
    ? (db.selectFrom('providers').innerJoinLateral(
        (eb) => latest(eb).selectAll('latest').as('indicator_history'),
        (j) => j.onTrue(),
      ) as unknown as typeof seeking)
    : seeking;
  // The outlook and watch in force at the instant: the provider's latest action that took effect by then, one seek
  // of rating_actions_effective (pending proposals have no effective_at and are never found).
  const latestAction = (eb: ExpressionBuilder<Database, 'providers'>) =>
    eb
      .selectFrom('rating_actions as action')
      .whereRef('action.provider_id', '=', 'providers.id')
      .where('action.effective_at', '<=', asOf)
      .orderBy('action.effective_at', 'desc')
      .orderBy('action.seq', 'desc')
      .limit(1);
  const stated = onPostgres(db)
    ? (joined.leftJoinLateral(
        (eb) =>
          latestAction(eb as never)
            .selectAll('action')
            .as('state'),
        (j) => j.onTrue(),
      ) as unknown as ReturnType<typeof withState>)
    : withState(joined);
  function withState(q: typeof joined) {
    return q.leftJoin('rating_actions as state', (j) =>
      j.on((eb) => eb('state.seq', '=', latestAction(eb as never).select('action.seq'))),
    );
  }
  return stated
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
    .leftJoin('statements', (j) =>
      j.onRef('statements.publication_seq', '=', 'indicator_history.seq').on('statements.type', '=', 'publication'),
    )
    .where(
      (eb) =>
        eb
          .selectFrom('withdrawals')
          .select((w) => w.fn.countAll<number>().as('n'))
          .whereRef('withdrawals.after_seq', '=', 'indicator_history.seq')
          .where('withdrawals.withdrawn_at', '<=', asOf),
      '=',
      0,
    );
}

/** Whether `db` (a store or a transaction) runs on PostgreSQL: where a query's best form differs by engine. */
function onPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** One provider's publication in force at `asOf`, on SQLite: the list's form, whose seek runs once. */
const inForceOnSqlite = prepared((db, providerId: string, asOf: string) =>
  inForceAt(db, asOf).select(asOfServedColumns).where('providers.id', '=', providerId),
);

/**
 * One provider's publication in force at `asOf`, on PostgreSQL: its latest at or before the instant (one seek of
 * indicator_history_in_force, in a derived table), with its indicator and statement, and the withdrawal of that
 * publication at or before the instant if there is one (by its key). No `providers` row and no LATERAL: PostgreSQL
 * plans this in a fifth of the time the list's form takes, which is most of a lookup's cost. (SQLite runs the derived
 * table as a co-routine, three times the cost of its correlated seek: hence two forms.)
 */
const inForceOnPostgres = prepared((db, providerId: string, asOf: string) =>
  db
    .selectFrom((eb) =>
      eb
        .selectFrom('indicator_history')
        .selectAll()
        .where('indicator_history.provider_id', '=', providerId)
        .where('indicator_history.published_at', '<=', asOf)
        .orderBy('indicator_history.published_at', 'desc')
        .orderBy('indicator_history.seq', 'desc')
        .limit(1)
        .as('in_force'),
    )
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'in_force.risk_indicator_id')
    .leftJoin('statements', (j) =>
      j.onRef('statements.publication_seq', '=', 'in_force.seq').on('statements.type', '=', 'publication'),
    )
    .leftJoin('withdrawals', (j) =>
      j.onRef('withdrawals.after_seq', '=', 'in_force.seq').on('withdrawals.withdrawn_at', '<=', asOf),
    )
    // The outlook and watch in force then: the latest action that took effect by the instant (one seek).
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('rating_actions')
          .select(['outlook', 'watch_direction', 'watch_since', 'watch_review_by'])
          .where('rating_actions.provider_id', '=', providerId)
          .where('rating_actions.effective_at', '<=', asOf)
          .orderBy('rating_actions.effective_at', 'desc')
          .orderBy('rating_actions.seq', 'desc')
          .limit(1)
          .as('state'),
      (j) => j.onTrue(),
    )
    // asOfServedColumns, the publication's times from the row found.
    .select([
      'state.outlook',
      'state.watch_direction',
      'state.watch_since',
      'state.watch_review_by',
      'risk_indicators.indicator',
      'risk_indicators.path_to_next_band',
      'in_force.score_verified_at',
      'in_force.published_at',
      'statements.kid as statement_kid',
      'statements.signature as statement_signature',
      'statements.statement_sha256',
      'withdrawals.after_seq as withdrawn',
    ]),
);

/** A provider's indicator in force at `asOf`, unless it had none then (not yet published, or withdrawn). */
export async function findInForce(db: Kysely<Database>, providerId: string, asOf: string) {
  if (!onPostgres(db)) return (await inForceOnSqlite(db, providerId, asOf))[0];
  const [row] = await inForceOnPostgres(db, providerId, asOf);
  if (!row || row.withdrawn !== null) return undefined;
  const { withdrawn: _, ...served } = row;
  return served;
}

export interface NamePosition {
  name: string;
  id: string;
}

/**
 * Indicators by provider name then id, after a position (keyset pagination): those in force now, or at `asOf`
 * when given.
 */
export async function listCurrent(
  db: Kysely<Database>,
  options: {
    plannerType?: string | undefined;
    after?: NamePosition | undefined;
    limit: number;
    asOf?: string | undefined;
  },
) {
  const now = () => current(db).select([...servedColumns, 'providers.name', 'providers.id']);
  // As of an instant: the same columns (the outlook and watch in force then), so the same type.
  let query =
    options.asOf === undefined
      ? now()
      : (inForceAt(db, options.asOf).select([
          ...asOfServedColumns,
          'providers.name',
          'providers.id',
        ]) as unknown as ReturnType<typeof now>);
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

/** The headline fields of a provider and the indicator it points at, as the public list serves them. */
const headlineFields = [
  'providers.id',
  'providers.name',
  'providers.planner_type',
  'providers.provider_subtype',
  'providers.yield_min',
  'providers.yield_max',
  'risk_indicators.final_score',
  'risk_indicators.risk_band',
  'risk_indicators.scored_at',
] as const;
const headlineColumns = [
  ...headlineFields,
  'providers.outlook',
  'providers.watch_direction',
  'providers.watch_since',
  'providers.watch_review_by',
] as const;
/** ... as of an instant, with the outlook and watch in force then (inForceAt's `state`). */
const asOfHeadlineColumns = [
  ...headlineFields,
  'state.outlook',
  'state.watch_direction',
  'state.watch_since',
  'state.watch_review_by',
] as const;

/** Headline fields of every current indicator, by name: the public snapshot. */
export async function listPublicHeadlines(db: Kysely<Database>) {
  return current(db).select(headlineColumns).orderBy('providers.name').orderBy('providers.id').execute();
}

/** Headline fields of every indicator in force at `asOf`, by name: the public list as of that instant. */
export async function listPublicHeadlinesAsOf(db: Kysely<Database>, asOf: string) {
  return inForceAt(db, asOf).select(asOfHeadlineColumns).orderBy('providers.name').orderBy('providers.id').execute();
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
