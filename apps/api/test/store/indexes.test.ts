import {
  CompiledQuery,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryExecutor,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillNextBand } from '../../src/services/publishing/packaged.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import {
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from '../../src/store/repositories/api-keys.js';
import {
  approvedAtInstant,
  approvedAtInstants,
  insertApprovedInputs,
  latestApproved,
  latestPending,
  listSubmissions,
  markApproved,
  providersWithApproved,
  supersede,
} from '../../src/store/repositories/approved-inputs.js';
import { listChanges } from '../../src/store/repositories/changelog.js';
import {
  findByFingerprint,
  findCoverageRequest,
  insertCoverageRequest,
  listCoverageRequests,
  updateCoverageRequest,
} from '../../src/store/repositories/coverage-requests.js';
import { findIssuance, listIssuances, upsertIssuance } from '../../src/store/repositories/issuances.js';
import { increment, PUBLICATION_VERSION, readMeta } from '../../src/store/repositories/meta.js';
import {
  findCurrent,
  findCurrentMany,
  findCurrentWithPackage,
  findIndicator,
  findIndicators,
  findInForce,
  findProvider,
  findProviders,
  latestScoredAt,
  listCurrent,
  listHistory,
  listProvidersWithIndicator,
  listPublicHeadlines,
  listPublicHeadlinesAsOf,
  setCurrent,
  setStanding,
} from '../../src/store/repositories/providers.js';
import {
  findRatingAction,
  latestActionAt,
  listEffectiveActions,
  listPendingActions,
  makeEffective,
} from '../../src/store/repositories/rating-actions.js';
import {
  attemptsOf,
  claimDue,
  endpointSummaries,
  findDelivery,
  findEndpoint,
  findEvent,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  nextDue,
  recordAttempt,
  retireEndpoint,
  subscribedEndpoints,
} from '../../src/store/repositories/webhooks.js';
import { listWithdrawals } from '../../src/store/repositories/withdrawals.js';
import {
  countWebhookEndpoints,
  findWorkspace,
  insertWorkspace,
  listWorkspacesWithKeys,
} from '../../src/store/repositories/workspaces.js';
import type { Database } from '../../src/store/schema.js';
import type { Dialect, Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { exampleDocument, framework } from '../support/documents.js';
import { engines, type FreshStore, freshStore } from '../support/stores.js';

/**
 * Every query the repositories issue on the tables that grow with the business (providers, their indicators and
 * history, the change feed, keys, submissions, issuances, coverage requests, the webhook outbox), captured as
 * compiled and explained on each engine: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (FORMAT JSON) with
 * sequential scans, hash and merge joins and sorts switched off, so on these small tables the plan shows
 * whether an index CAN serve the query.
 *
 * - `lookup`: every read of a large table goes through an index condition (a key, a prefix, a range);
 * - `ordered`: a page in index order: a large table may be read along an index (the LIMIT stops it), but never
 *   read whole, and never sorted whole; a page after a position (`seek`) must also start there: the index
 *   condition names the position's column, so page 90 costs what page 1 does;
 * - `whole`: reads every row by design, named here with the reason; `bounded` names the large tables it must
 *   still reach through an index condition only (the list as of an instant reads every provider, but no history
 *   range whole).
 */
const LARGE = new Set([
  'providers',
  'risk_indicators',
  'indicator_history',
  'withdrawals',
  'changelog',
  'api_keys',
  'approved_inputs',
  'issuances',
  'coverage_requests',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'rating_actions',
]);

type Kind = 'lookup' | 'ordered' | 'whole';

interface Case {
  name: string;
  kind: Kind;
  /** A page after a position: the table read along an index from the position's column (a pattern). */
  seek?: { table: string; column: string };
  /** Large tables read through an index condition only, whatever the kind. */
  bounded?: string[];
  run(db: Kysely<Database>, dialect: Dialect): Promise<unknown>;
}

const AT = '2026-07-01T09:00:00.000Z';
const KEY_HASH = 'ab'.repeat(32);
const PROVIDERS = [exampleDocument('worked-example'), exampleDocument('low-band'), exampleDocument('multiple-caps')];
const [P1, P2] = PROVIDERS.map((d) => d.provider.id) as [string, string];

/** Filled in by the seed: ids the cases look up. */
const seeded = {
  workspaceId: 'ws_idx',
  keyId: 'key_idx',
  endpointId: 'wh_idx',
  deliveryId: '',
  eventId: '',
  indicatorId: '',
};

const store = (db: Kysely<Database>, dialect: Dialect): Store => ({
  db,
  dialect,
  ping: async () => {},
  close: async () => {},
});

const CASES: Case[] = [
  // providers, indicators, history
  { name: 'findProvider', kind: 'lookup', run: (db) => findProvider(db, P1) },
  { name: 'findIndicator', kind: 'lookup', run: (db) => findIndicator(db, seeded.indicatorId) },
  // a publishing batch's read ahead (decision 0040)
  { name: 'findProviders', kind: 'lookup', run: (db) => findProviders(db, [P1, P2]) },
  { name: 'findIndicators', kind: 'lookup', run: (db) => findIndicators(db, [seeded.indicatorId]) },
  { name: 'findCurrent', kind: 'lookup', run: (db) => findCurrent(db, P1) },
  { name: 'findCurrentMany', kind: 'lookup', run: (db) => findCurrentMany(db, [P1, P2]) },
  { name: 'findCurrentWithPackage', kind: 'lookup', run: (db) => findCurrentWithPackage(db, P1) },
  { name: 'setCurrent', kind: 'lookup', run: (db) => setCurrent(db, P1, seeded.indicatorId, 1, AT) },
  { name: 'listCurrent, first page', kind: 'ordered', run: (db) => listCurrent(db, { limit: 101 }) },
  {
    name: 'listCurrent, after a position',
    kind: 'ordered',
    seek: { table: 'providers', column: 'name' },
    run: (db) => listCurrent(db, { after: { name: 'M', id: P1 }, limit: 101 }),
  },
  {
    name: 'listCurrent, one planner type, after a position',
    kind: 'ordered',
    seek: { table: 'providers', column: 'name' },
    run: (db) => listCurrent(db, { plannerType: 'btc', after: { name: 'M', id: P1 }, limit: 101 }),
  },
  // as of a past instant (decision 0029): the publication in force then, one seek of indicator_history_in_force
  { name: 'findInForce', kind: 'lookup', run: (db) => findInForce(db, P1, AT) },
  {
    name: 'listCurrent as of an instant, first page',
    kind: 'ordered',
    bounded: ['indicator_history', 'withdrawals', 'rating_actions'],
    run: (db) => listCurrent(db, { limit: 101, asOf: AT }),
  },
  {
    name: 'listCurrent as of an instant, one planner type, after a position',
    kind: 'ordered',
    seek: { table: 'providers', column: 'name' },
    bounded: ['indicator_history', 'withdrawals', 'rating_actions'],
    run: (db) => listCurrent(db, { plannerType: 'btc', after: { name: 'M', id: P1 }, limit: 101, asOf: AT }),
  },
  { name: 'listHistory, newest', kind: 'ordered', run: (db) => listHistory(db, P1, { limit: 101 }) },
  {
    name: 'listHistory, before a publication',
    kind: 'ordered',
    seek: { table: 'indicator_history', column: 'seq' },
    run: (db) => listHistory(db, P1, { beforeSeq: 5, limit: 101 }),
  },
  // withdrawals
  { name: 'listWithdrawals, newest', kind: 'ordered', run: (db) => listWithdrawals(db, P1, { limit: 101 }) },
  {
    name: 'listWithdrawals, before a publication',
    kind: 'ordered',
    seek: { table: 'withdrawals', column: 'after_seq' },
    run: (db) => listWithdrawals(db, P1, { beforeSeq: 5, limit: 101 }),
  },
  // api keys
  { name: 'findApiKeyByHash', kind: 'lookup', run: (db) => findApiKeyByHash(db, KEY_HASH) },
  { name: 'listApiKeys of a workspace', kind: 'lookup', run: (db) => listApiKeys(db, seeded.workspaceId) },
  { name: 'revokeApiKey', kind: 'lookup', run: (db) => revokeApiKey(db, seeded.keyId, AT) },
  { name: 'touchApiKey', kind: 'lookup', run: (db) => touchApiKey(db, seeded.keyId, AT) },
  // approved inputs
  { name: 'latestApproved', kind: 'lookup', run: (db) => latestApproved(db, P1) },
  { name: 'latestPending', kind: 'lookup', run: (db) => latestPending(db, P1) },
  { name: 'supersede', kind: 'lookup', run: (db) => supersede(db, P1, 'PENDING') },
  { name: 'markApproved', kind: 'lookup', run: (db) => markApproved(db, 'ai_2', { id: null, name: 'analyst.b' }, AT) },
  {
    name: 'listSubmissions, pending only',
    kind: 'ordered',
    run: (db) => listSubmissions(db, { pendingOnly: true }),
  },
  // the change feed
  { name: 'listChanges, newest', kind: 'ordered', run: (db) => listChanges(db, { limit: 51 }) },
  {
    name: 'listChanges, before an id',
    kind: 'ordered',
    seek: { table: 'changelog', column: 'id|rowid' },
    run: (db) => listChanges(db, { beforeId: 9, limit: 51 }),
  },
  { name: 'listChanges, since a time', kind: 'ordered', run: (db) => listChanges(db, { since: AT, limit: 51 }) },
  // rating actions
  { name: 'findRatingAction', kind: 'lookup', run: (db) => findRatingAction(db, 'ra_1') },
  {
    name: 'makeEffective',
    kind: 'lookup',
    run: (db) => makeEffective(db, 'ra_1', { seq: 99, effective_at: AT }),
  },
  { name: 'listPendingActions', kind: 'ordered', run: (db) => listPendingActions(db) },
  { name: 'listEffectiveActions, newest', kind: 'ordered', run: (db) => listEffectiveActions(db, { limit: 101 }) },
  {
    name: 'listEffectiveActions, before a seq',
    kind: 'ordered',
    seek: { table: 'rating_actions', column: 'seq' },
    run: (db) => listEffectiveActions(db, { beforeSeq: 3, limit: 101 }),
  },
  {
    name: "listEffectiveActions, one provider's, before a seq",
    kind: 'ordered',
    seek: { table: 'rating_actions', column: 'provider_id' },
    run: (db) => listEffectiveActions(db, { providerId: P1, beforeSeq: 3, limit: 101 }),
  },
  {
    name: "listEffectiveActions, one type's, before a seq",
    kind: 'ordered',
    seek: { table: 'rating_actions', column: 'type' },
    run: (db) => listEffectiveActions(db, { type: 'NEW', beforeSeq: 3, limit: 101 }),
  },
  {
    name: 'listEffectiveActions, since a time',
    kind: 'ordered',
    run: (db) => listEffectiveActions(db, { since: AT, limit: 101 }),
  },
  { name: 'latestActionAt (what was in force then)', kind: 'lookup', run: (db) => latestActionAt(db, P1, AT) },
  {
    name: 'setStanding',
    kind: 'lookup',
    run: (db) =>
      setStanding(db, P1, { outlook: 'NEGATIVE', watch_direction: null, watch_since: null, watch_review_by: null }),
  },
  { name: 'approvedAtInstant', kind: 'lookup', run: (db) => approvedAtInstant(db, P1, AT) },
  {
    name: 'approvedAtInstants',
    kind: 'lookup',
    run: (db) =>
      approvedAtInstants(db, [
        { providerId: P1, approvedAt: AT },
        { providerId: P2, approvedAt: AT },
      ]),
  },
  // issuances
  { name: 'findIssuance', kind: 'lookup', run: (db) => findIssuance(db, 'iss_1') },
  { name: 'upsertIssuance', kind: 'lookup', run: (db) => upsertIssuance(db, issuance('iss_1')) },
  { name: 'listIssuances, upcoming', kind: 'ordered', run: (db) => listIssuances(db, { limit: 101 }) },
  {
    name: 'listIssuances, closed ones too',
    kind: 'ordered',
    run: (db) => listIssuances(db, { includeClosed: true, limit: 101 }),
  },
  {
    name: 'listIssuances, by status and type, after a position',
    kind: 'ordered',
    seek: { table: 'issuances', column: 'announced_at' },
    run: (db) =>
      listIssuances(db, { status: 'ANNOUNCED', type: 'BOND', after: { announced_at: AT, id: 'iss_9' }, limit: 101 }),
  },
  {
    name: 'listIssuances, by status',
    kind: 'ordered',
    run: (db) => listIssuances(db, { status: 'PRICED', limit: 101 }),
  },
  { name: 'listIssuances, by type', kind: 'ordered', run: (db) => listIssuances(db, { type: 'BOND', limit: 101 }) },
  // coverage requests
  { name: 'findByFingerprint', kind: 'lookup', run: (db) => findByFingerprint(db, 'f'.repeat(64), AT) },
  { name: 'findCoverageRequest', kind: 'lookup', run: (db) => findCoverageRequest(db, 'req_1') },
  {
    name: 'updateCoverageRequest',
    kind: 'lookup',
    run: (db) => updateCoverageRequest(db, 'req_1', { status: 'COVERED', resolution: 'done', resolvedAt: AT }),
  },
  {
    name: 'listCoverageRequests, by status',
    kind: 'ordered',
    run: (db) => listCoverageRequests(db, { status: 'OPEN', limit: 101 }),
  },
  { name: 'listCoverageRequests', kind: 'ordered', run: (db) => listCoverageRequests(db, { limit: 101 }) },
  // webhooks: endpoints, the outbox, deliveries and attempts
  { name: 'listEndpoints', kind: 'lookup', run: (db) => listEndpoints(db, seeded.workspaceId) },
  { name: 'findEndpoint', kind: 'lookup', run: (db) => findEndpoint(db, seeded.workspaceId, seeded.endpointId) },
  { name: 'subscribedEndpoints', kind: 'lookup', run: (db) => subscribedEndpoints(db, 'risk_indicator.published') },
  { name: 'findEvent', kind: 'lookup', run: (db) => findEvent(db, seeded.eventId) },
  {
    name: 'claimDue (claim, then read the claimed)',
    kind: 'lookup',
    run: (db, dialect) =>
      claimDue(store(db, dialect), {
        owner: 'd1',
        now: '2030-01-01T00:00:00.000Z',
        leaseUntil: '2030-01-01T00:01:00.000Z',
        limit: 16,
      }),
  },
  { name: 'nextDue', kind: 'lookup', run: (db) => nextDue(db) },
  {
    name: 'recordAttempt',
    kind: 'lookup',
    run: (db) =>
      recordAttempt(
        db,
        'd1',
        {
          delivery_id: seeded.deliveryId,
          attempt: 1,
          started_at: AT,
          duration_ms: 5,
          status_code: 204,
          error: null,
          response_excerpt: null,
        },
        { status: 'delivered', at: AT },
      ),
  },
  { name: 'findDelivery', kind: 'lookup', run: (db) => findDelivery(db, seeded.endpointId, seeded.deliveryId) },
  {
    name: 'listDeliveries of an endpoint',
    kind: 'ordered',
    run: (db) => listDeliveries(db, seeded.endpointId, { limit: 101 }),
  },
  {
    name: 'listDeliveries of an endpoint, by status, before a position',
    kind: 'ordered',
    seek: { table: 'webhook_deliveries', column: 'created_at' },
    run: (db) =>
      listDeliveries(db, seeded.endpointId, { status: 'pending', before: { created_at: AT, id: 'whd_z' }, limit: 101 }),
  },
  { name: 'attemptsOf', kind: 'lookup', run: (db) => attemptsOf(db, [seeded.deliveryId, 'whd_other']) },
  {
    name: 'retireEndpoint (and cancel its pending deliveries)',
    kind: 'lookup',
    run: (db) => retireEndpoint(db, seeded.endpointId, { status: 'disabled', at: AT, reason: 'gone' }),
  },
  // small tables, by key
  { name: 'findWorkspace', kind: 'lookup', run: (db) => findWorkspace(db, seeded.workspaceId) },
  {
    name: 'countWebhookEndpoints of a workspace (svc workspace show)',
    kind: 'lookup',
    run: (db) => countWebhookEndpoints(db, seeded.workspaceId),
  },
  { name: 'readMeta', kind: 'lookup', run: (db) => readMeta(db, PUBLICATION_VERSION) },
  { name: 'increment', kind: 'lookup', run: (db) => increment(db, PUBLICATION_VERSION) },
  // every row, by design
  {
    name: 'listPublicHeadlines: the public snapshot, rebuilt once per publication',
    kind: 'whole',
    run: (db) => listPublicHeadlines(db),
  },
  {
    name: 'listPublicHeadlinesAsOf: the public list as of an instant, built once per instant and publication',
    kind: 'whole',
    bounded: ['indicator_history', 'withdrawals', 'rating_actions'],
    run: (db) => listPublicHeadlinesAsOf(db, AT),
  },
  {
    name: 'latestScoredAt: data freshness (the status page now reads it from the snapshot)',
    kind: 'whole',
    run: (db) => latestScoredAt(db),
  },
  {
    name: 'listProvidersWithIndicator: every provider, for operators (svc provider list)',
    kind: 'whole',
    run: (db) => listProvidersWithIndicator(db),
  },
  {
    name: 'providersWithApproved: what svc publish --all publishes',
    kind: 'whole',
    run: (db) => providersWithApproved(db),
  },
  { name: 'listSubmissions: every submission (svc inputs list)', kind: 'whole', run: (db) => listSubmissions(db) },
  {
    name: 'listWorkspacesWithKeys: every workspace with its keys counted (svc workspace list)',
    kind: 'whole',
    run: (db) => listWorkspacesWithKeys(db, AT),
  },
  {
    name: 'endpointSummaries: deliveries counted per endpoint (svc webhooks list)',
    kind: 'whole',
    run: (db) => endpointSummaries(db, seeded.workspaceId),
  },
  {
    name: 'backfillNextBand: at start-up, indicators without a path to the next band',
    kind: 'whole',
    run: (db, dialect) => backfillNextBand(store(db, dialect)),
  },
];

function issuance(id: string) {
  return {
    id,
    issuer_name: 'Issuer',
    provider_id: P1,
    instrument_name: 'Note',
    ticker: null,
    type: 'BOND',
    status: 'ANNOUNCED',
    currency: 'USD',
    target_amount: '1000000',
    coupon_rate_pct: 5,
    coupon_frequency: null,
    expected_pricing_date: null,
    announced_at: AT,
    updated_at: AT,
  };
}

/** Every query run through a Kysely instance, compiled as its engine runs it. */
class CapturePlugin implements KyselyPlugin {
  readonly queries: CompiledQuery[] = [];

  constructor(private readonly executor: QueryExecutor) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries.push(this.executor.compileQuery(args.node, args.queryId));
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

class RolledBack extends Error {}

/** The queries a case issues, run in a transaction that is rolled back, so every case sees the same seed. */
async function queriesOf(s: Store, c: Case): Promise<CompiledQuery[]> {
  const capture = new CapturePlugin(s.db.getExecutor());
  await s.db
    .withPlugin(capture)
    .transaction()
    .execute(async (tx) => {
      await c.run(tx, s.dialect);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return capture.queries;
}

/** One access to a table in a plan: whether an index condition bounds it, and whether it is read whole. */
interface Access {
  table: string;
  /** The index condition, as the plan writes it ('' when none). */
  condition: string;
  bounded: boolean;
  /** Read in full: a table scan, or (SQLite) along an index without a condition. */
  whole: boolean;
  /** Read with no index at all. */
  unindexed: boolean;
}

interface Plan {
  accesses: Access[];
  /** A sort over a large table read whole. */
  sortsWhole: boolean;
  text: string;
}

async function explainSqlite(s: Store, q: CompiledQuery): Promise<Plan> {
  const { rows } = await s.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
  );
  const aliases = new Map<string, string>();
  for (const [, table, alias] of q.sql.matchAll(/"(\w+)" as "(\w+)"/g)) aliases.set(alias as string, table as string);
  const sorts = rows.some((r) =>
    /USE TEMP B-TREE FOR (ORDER BY|RIGHT PART OF ORDER BY|GROUP BY|DISTINCT)/.test(r.detail),
  );
  // A plain SCAN of a table whose order the query asks for, with nothing sorted after, walks its integer primary
  // key (SQLite's rowid): in order, until the LIMIT.
  const inKeyOrder = /\border by\b/i.test(q.sql) && !sorts;
  const accesses: Access[] = [];
  for (const { detail } of rows) {
    const m = /^(SCAN|SEARCH) (\w+)(.*)$/.exec(detail);
    if (!m) continue;
    const [, how, name, rest = ''] = m;
    const indexed = /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|USING ROWID/.test(rest) || inKeyOrder;
    accesses.push({
      table: aliases.get(name as string) ?? (name as string),
      condition: how === 'SEARCH' ? rest : '',
      bounded: how === 'SEARCH',
      whole: how === 'SCAN',
      unindexed: how === 'SCAN' && !indexed,
    });
  }
  return {
    accesses,
    sortsWhole: sorts && accesses.some((a) => LARGE.has(a.table) && a.whole),
    text: rows.map((r) => r.detail).join('\n'),
  };
}

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PgNode[];
}

/** The first column of every index of the store's schema: a condition on it is what bounds an index scan. */
async function leadingColumns(s: Store): Promise<Map<string, string>> {
  const { rows } = await s.db.executeQuery<{ index: string; leading: string }>(
    CompiledQuery.raw(`select c.relname as index, a.attname as leading
      from pg_index i
      join pg_class c on c.oid = i.indexrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
      where n.nspname = current_schema()`),
  );
  return new Map(rows.map((r) => [r.index, r.leading]));
}

async function explainPostgres(s: Store, q: CompiledQuery, leading: Map<string, string>): Promise<Plan> {
  const rows = await s.db.transaction().execute(async (tx) => {
    for (const setting of ['enable_seqscan', 'enable_hashjoin', 'enable_mergejoin', 'enable_sort']) {
      await tx.executeQuery(CompiledQuery.raw(`set local ${setting} = off`));
    }
    const result = await tx.executeQuery<{ 'QUERY PLAN': [{ Plan: PgNode }] }>(
      CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]),
    );
    return result.rows;
  });
  const root = rows[0]?.['QUERY PLAN'][0].Plan as PgNode;
  // PostgreSQL also checks a condition on a later column of an index while reading all of it: only a condition
  // on the first column bounds the scan.
  const bounds = (node: PgNode): boolean => {
    const column = leading.get(node['Index Name'] ?? '');
    return column !== undefined && new RegExp(`\\b${column}\\b`).test(node['Index Cond'] ?? '');
  };
  const accessesUnder = (node: PgNode): Access[] => {
    const own: Access[] = [];
    const table = node['Relation Name'];
    const type = node['Node Type'];
    // Scans only: an Update or Delete node names its table too.
    if (table && type.endsWith('Scan')) {
      const indexScans = type === 'Bitmap Heap Scan' ? (node.Plans ?? []) : [node];
      const bounded = indexScans.every((scan) => bounds(scan));
      const condition = indexScans.map((scan) => scan['Index Cond'] ?? '').join(' ');
      own.push({ table, condition, bounded, whole: !bounded, unindexed: type === 'Seq Scan' });
    }
    return [...own, ...(node.Plans ?? []).flatMap(accessesUnder)];
  };
  const sortsWhole = (node: PgNode): boolean =>
    (node['Node Type'] === 'Sort' && accessesUnder(node).some((a) => LARGE.has(a.table) && a.whole)) ||
    (node.Plans ?? []).some(sortsWhole);
  return { accesses: accessesUnder(root), sortsWhole: sortsWhole(root), text: JSON.stringify(root, null, 1) };
}

async function seed(s: FreshStore): Promise<void> {
  const { db } = s;
  await insertWorkspace(db, {
    id: seeded.workspaceId,
    name: 'indexes',
    webhook_secret_enc: 'x',
    previous_webhook_secret_enc: null,
    previous_secret_expires_at: null,
    mcp_enabled: 1,
    created_at: AT,
  });
  await insertApiKey(db, {
    id: seeded.keyId,
    workspace_id: seeded.workspaceId,
    prefix: 'svc_live_abcdef',
    key_hash: KEY_HASH,
    tier: 'ENTERPRISE',
    created_at: AT,
    last_used_at: null,
    revoked_at: null,
    name: 'indexes',
    expires_at: null,
  });
  await insertEndpoint(db, {
    id: seeded.endpointId,
    workspace_id: seeded.workspaceId,
    url: 'https://hooks.example.com/a',
    events: JSON.stringify(['risk_indicator.published']),
    description: null,
    status: 'active',
    created_at: AT,
    disabled_at: null,
    disabled_reason: null,
    deleted_at: null,
  });
  const clock = manualClock(AFTER_EXAMPLES);
  for (const document of PROVIDERS) {
    const outcome = await publishIndicator(ctxOf(s, { clock }), { document, framework, approvedAt: AT });
    if (outcome.status !== 'published') throw new Error(`seed: ${outcome.status}`);
    clock.advance(1000);
  }
  seeded.indicatorId = (await findProvider(db, P1))?.current_indicator_id ?? '';
  const delivery = await db.selectFrom('webhook_deliveries').select(['id', 'event_id']).executeTakeFirstOrThrow();
  seeded.deliveryId = delivery.id;
  seeded.eventId = delivery.event_id;
  for (const [id, status] of [
    ['ai_1', 'APPROVED'],
    ['ai_2', 'PENDING'],
  ] as const) {
    await insertApprovedInputs(db, {
      id,
      provider_id: P1,
      document: '{}',
      inputs_sha256: 'a'.repeat(64),
      status,
      submitted_by: 'analyst.a',
      submitted_at: AT,
      approved_by: status === 'APPROVED' ? 'analyst.b' : null,
      approved_at: status === 'APPROVED' ? AT : null,
      submitted_by_id: null,
      approved_by_id: null,
    });
  }
  await upsertIssuance(db, issuance('iss_1'));
  await insertCoverageRequest(db, {
    id: 'req_1',
    provider_name: 'Somebody',
    website: null,
    contact_email: null,
    planner_type: null,
    message: null,
    fingerprint: 'f'.repeat(64),
    status: 'OPEN',
    received_at: AT,
    resolved_at: null,
    resolution: null,
  });
}

/** Why a plan does not hold to its case, or null when it does. */
function fault(c: Case, plan: Plan): string | null {
  const { kind, seek } = c;
  const large = plan.accesses.filter((a) => LARGE.has(a.table));
  const unindexed = large.filter((a) => a.unindexed).map((a) => a.table);
  const loose = large.filter((a) => c.bounded?.includes(a.table) && !a.bounded).map((a) => a.table);
  if (loose.length > 0) return `reads ${[...new Set(loose)].join(', ')} without an index condition`;
  if (kind === 'whole') return null;
  if (unindexed.length > 0) return `reads ${unindexed.join(', ')} with no index`;
  if (kind === 'lookup') {
    const unbounded = large.filter((a) => !a.bounded).map((a) => a.table);
    if (unbounded.length > 0) return `reads ${unbounded.join(', ')} without an index condition`;
  }
  if (plan.sortsWhole) return 'sorts a whole large table';
  if (seek) {
    const column = new RegExp(`\\b(${seek.column})\\b`);
    const from = large.find((a) => a.table === seek.table && a.bounded && column.test(a.condition));
    if (!from) return `reads ${seek.table} from its start, not from the position (${seek.column})`;
  }
  return null;
}

describe.each(engines)('the indexes behind every repository query on %s', (engine) => {
  let s: FreshStore;
  let leading = new Map<string, string>();
  beforeAll(async () => {
    s = await freshStore(engine);
    await seed(s);
    if (engine === 'postgres') leading = await leadingColumns(s);
  });
  afterAll(async () => {
    await s?.dispose();
  });

  it.each(CASES.map((c) => [`${c.name} (${c.kind})`, c] as const))('%s', async (_name, c) => {
    const queries = await queriesOf(s, c);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      const plan = engine === 'sqlite' ? await explainSqlite(s, q) : await explainPostgres(s, q, leading);
      expect(fault(c, plan), `${q.sql}\n${plan.text}`).toBeNull();
    }
  });
});
