import { join } from 'node:path';
import {
  type Actor,
  freshnessPolicy,
  generateSigner,
  migrate,
  openStore,
  type Store,
  standaloneContext,
} from '@svc/api';
import { ISSUANCE_STATUSES, ISSUANCE_TYPES, IssuanceSchema } from '@svc/contracts';
import { getFramework, PLANNER_TYPES, type RiskIndicator, score, validateInputs } from '@svc/methodology';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEMO_ANALYST,
  DEMO_APPROVER,
  DEMO_FRAMEWORK_VERSION,
  DEMO_ISSUANCES,
  DEMO_PROVIDERS,
  DEMO_RATING_ACTIONS,
  DEMO_ROUNDS,
  type SeedReport,
  seedDemo,
} from '../src/demo/index.js';
import { contentsOf, freshSchema, postgresAvailable } from './operations.js';
import { tempDir } from './svc.js';

/** The key the demo's statements are signed with in these tests. */
const signer = generateSigner();

/** The context the seed runs in: the system's "demo seed" by default, or an operator running it. */
const runBy = (store: Store, actor: Actor = { kind: 'system', name: 'demo seed' }) =>
  standaloneContext(store, { actor, signer });

/** The newest entry of the audit trail, as stored. */
function lastAuditEntry(store: Store) {
  return store.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
}

const framework = getFramework(DEMO_FRAMEWORK_VERSION);
const BANDS = ['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE'];
const DAY_MS = 86_400_000;

const documents = DEMO_ROUNDS.flatMap((r) => r.documents);
const scored = (): RiskIndicator[] => documents.map((d) => score(d, framework));

describe('the demo documents', () => {
  it('are valid approved-inputs documents under DCRF v1.0', () => {
    for (const document of documents) {
      const validation = validateInputs(document, framework);
      expect(validation.ok ? [] : validation.problems, document.provider.name).toEqual([]);
    }
  });

  it('are clearly fictional: every provider and issuer name says "(demo)", every source says so', () => {
    for (const p of DEMO_PROVIDERS) expect(p.name).toMatch(/\(demo\)$/);
    for (const i of DEMO_ISSUANCES) expect([i.issuer_name, i.instrument_name].join(' ')).toMatch(/\(demo\).*\(demo\)/);
    for (const d of documents)
      for (const item of Object.values(d.inputs)) expect(item.source).toContain('fictional demo evidence');
  });

  it('cover at least 12 providers across btc, fiat and stablecoin, each with its own fixed id', () => {
    expect(DEMO_PROVIDERS.length).toBeGreaterThanOrEqual(12);
    expect(new Set(DEMO_PROVIDERS.map((p) => p.id)).size).toBe(DEMO_PROVIDERS.length);
    expect(new Set(DEMO_PROVIDERS.map((p) => p.planner_type))).toEqual(new Set(PLANNER_TYPES));
    expect(new Set(DEMO_ROUNDS[0]?.documents.map((d) => d.provider.id))).toEqual(
      new Set(DEMO_PROVIDERS.map((p) => p.id)),
    );
  });

  it('are all publishable, with evidence at most about 90 days old', () => {
    for (const [i, indicator] of scored().entries()) {
      expect(indicator.publishable, indicator.name).toBe(true);
      expect(indicator.confidence).toBeGreaterThanOrEqual(0.9);
      const document = documents[i];
      for (const item of Object.values(document?.inputs ?? {})) {
        const age = (Date.parse(document?.evaluation_date ?? '') - Date.parse(item.as_of)) / DAY_MS;
        expect(age).toBeLessThanOrEqual(92);
      }
    }
  });

  it('are published after the inputs were approved, round after round', () => {
    for (const round of DEMO_ROUNDS) {
      for (const d of round.documents)
        for (const item of Object.values(d.inputs))
          expect(Date.parse(item.approved_at)).toBeLessThan(Date.parse(round.published_at));
    }
    const times = DEMO_ROUNDS.map((r) => Date.parse(r.published_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

const engines = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(engines)('seedDemo (%s)', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function freshStore(): Promise<Store> {
    let store: Store;
    if (engine === 'sqlite') store = openStore({ kind: 'sqlite', file: join(await tempDir(), 'svc.db') });
    else {
      const schema = await freshSchema();
      cleanups.push(() => schema.drop());
      store = openStore({ kind: 'postgres', url: schema.url });
    }
    cleanups.push(() => store.close());
    await migrate(store);
    return store;
  }

  it('loads 12+ providers in every band, with at least three different hard caps fired', async () => {
    const store = await freshStore();
    const report = await seedDemo(runBy(store));
    expect(report.providers.length).toBeGreaterThanOrEqual(12);
    const current = await store.db
      .selectFrom('providers')
      .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'providers.current_indicator_id')
      .select(['providers.id', 'providers.planner_type', 'risk_indicators.risk_band', 'risk_indicators.indicator'])
      .execute();
    expect(current).toHaveLength(report.providers.length);
    expect(new Set(current.map((r) => r.risk_band))).toEqual(new Set(BANDS));
    expect(new Set(current.map((r) => r.planner_type))).toEqual(new Set(PLANNER_TYPES));
    const caps = new Set(
      current.flatMap((r) =>
        (JSON.parse(r.indicator) as RiskIndicator).svc_decision_object.hard_caps_fired.map((c) => c.cap_id),
      ),
    );
    expect(caps.size).toBeGreaterThanOrEqual(3);
    expect(report.providers.map((p) => p.risk_band).sort()).toEqual(current.map((r) => r.risk_band).sort());
  });

  it('the audit trail records who loaded the demo, when: never backdated to its fictional history, which its rows keep', async () => {
    const store = await freshStore();
    const started = new Date().toISOString();
    await seedDemo(runBy(store, { kind: 'operator', id: null, name: 'Dana Loader' }));
    const entries = await store.db.selectFrom('audit_log').selectAll().orderBy('seq').execute();
    const [genesis, ...seeded] = entries;
    expect(genesis?.action).toBe('audit.started');
    expect(seeded.length).toBeGreaterThan(20);
    expect(new Set(seeded.map((e) => `${e.actor_type}:${e.actor_name}`))).toEqual(new Set(['operator:Dana Loader']));
    const ats = entries.map((e) => e.at);
    expect(ats).toEqual([...ats].sort());
    expect(seeded.every((e) => e.at >= started)).toBe(true);
    // The demo's own rows keep its dates and personas.
    const actions = await store.db
      .selectFrom('rating_actions')
      .selectAll()
      .where('proposed_by', 'is not', null)
      .execute();
    expect(actions.every((a) => (a.effective_at ?? '') < '2026-12-01')).toBe(true);
    expect(new Set(actions.map((a) => a.proposed_by))).toEqual(new Set([DEMO_ANALYST]));
  });

  it('writes a change feed with NEW for every provider, then SCORE_CHANGE and BAND_CHANGE, and two-entry histories', async () => {
    const store = await freshStore();
    await seedDemo(runBy(store));
    const changes = await store.db.selectFrom('changelog').selectAll().orderBy('id').execute();
    const count = (type: string) => changes.filter((c) => c.change_type === type).length;
    // Every provider's first publication, and the reinstatement of the one withdrawn between rounds 2 and 3.
    expect(count('NEW')).toBe(DEMO_PROVIDERS.length + 1);
    expect(count('WITHDRAWN')).toBe(1);
    expect(count('SCORE_CHANGE')).toBeGreaterThanOrEqual(1);
    expect(count('BAND_CHANGE')).toBeGreaterThanOrEqual(1);
    expect(changes.slice(0, DEMO_PROVIDERS.length).every((c) => c.change_type === 'NEW')).toBe(true);
    // Each round comes after the one before, at its own fixed time; the withdrawal between the second and third.
    expect(new Set(changes.map((c) => c.changed_at))).toEqual(
      new Set([...DEMO_ROUNDS.map((r) => r.published_at), DEMO_RATING_ACTIONS.withdrawal.at]),
    );
    for (const c of changes.filter((c) => c.change_type === 'SCORE_CHANGE' || c.change_type === 'BAND_CHANGE')) {
      const history = await store.db
        .selectFrom('indicator_history')
        .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
        .select(['risk_indicators.final_score', 'risk_indicators.risk_band'])
        .where('indicator_history.provider_id', '=', c.provider_id)
        .orderBy('indicator_history.seq')
        .execute();
      expect(history).toEqual([
        { final_score: c.previous_score, risk_band: c.previous_band },
        { final_score: c.new_score, risk_band: c.new_band },
      ]);
      expect(c.change_type === 'BAND_CHANGE').toBe(c.previous_band !== c.new_band);
    }
  });

  it('records every kind of rating action through the real verbs: analyst actions proposed and approved by two people', async () => {
    const store = await freshStore();
    const report = await seedDemo(runBy(store));
    expect(report.rating_actions).toEqual({ approved: 2, withdrawn: 1 });
    const actions = await store.db.selectFrom('rating_actions').selectAll().orderBy('seq').execute();
    expect(actions.every((a) => a.status === 'EFFECTIVE')).toBe(true);
    const types = actions.map((a) => a.type);
    for (const type of [
      'NEW',
      'UPGRADE',
      'DOWNGRADE',
      'AFFIRM',
      'WITHDRAW',
      'REINSTATE',
      'WATCH_PLACED',
      'OUTLOOK_CHANGED',
    ])
      expect(types, type).toContain(type);
    const { outlook, watch, withdrawal } = DEMO_RATING_ACTIONS;
    const of = (type: string) => actions.find((a) => a.type === type);
    expect(of('OUTLOOK_CHANGED')).toMatchObject({
      provider_id: outlook.provider_id,
      outlook: 'NEGATIVE',
      proposed_by: DEMO_ANALYST,
      approved_by: DEMO_APPROVER,
      effective_at: outlook.approved_at,
    });
    expect(of('WATCH_PLACED')).toMatchObject({
      provider_id: watch.provider_id,
      watch_direction: 'NEGATIVE',
      watch_review_by: '2027-02-02',
      proposed_by: DEMO_ANALYST,
      approved_by: DEMO_APPROVER,
    });
    expect(of('WITHDRAW')).toMatchObject({
      provider_id: withdrawal.provider_id,
      approved_by: DEMO_APPROVER,
      effective_at: withdrawal.at,
    });
    expect(of('REINSTATE')).toMatchObject({
      provider_id: withdrawal.provider_id,
      effective_at: DEMO_ROUNDS[2]?.published_at,
    });
    // In force now: the outlook and the watch on their providers, the reinstated provider STABLE without a watch.
    const providers = await store.db
      .selectFrom('providers')
      .select(['id', 'outlook', 'watch_direction', 'withdrawn_at'])
      .execute();
    const row = (id: string) => providers.find((p) => p.id === id);
    expect(row(outlook.provider_id)?.outlook).toBe('NEGATIVE');
    expect(row(watch.provider_id)?.watch_direction).toBe('NEGATIVE');
    expect(row(withdrawal.provider_id)).toMatchObject({ outlook: 'STABLE', watch_direction: null, withdrawn_at: null });
  });

  it('adds 6+ issuances of both types and both statuses, some linked to demo providers, valid as served', async () => {
    const store = await freshStore();
    const report = await seedDemo(runBy(store));
    expect(report.issuances).toEqual({ inserted: DEMO_ISSUANCES.length, updated: 0, unchanged: 0 });
    const rows = await store.db.selectFrom('issuances').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(ISSUANCE_TYPES));
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(ISSUANCE_STATUSES));
    const ids = new Set(DEMO_PROVIDERS.map((p) => p.id));
    expect(rows.filter((r) => r.provider_id !== null && ids.has(r.provider_id)).length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.provider_id === null || ids.has(r.provider_id))).toBe(true);
    for (const r of rows) IssuanceSchema.parse({ ...r, target_amount: Number(r.target_amount) });
  });

  it('is deterministic: two fresh stores seeded at different times hold the same ids, dates and rows', async () => {
    const first = await freshStore();
    const a = await seedDemo(runBy(first));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await freshStore();
    const b = await seedDemo(runBy(second));
    expect(b.providers).toEqual(a.providers);
    expect(await contentsOf(second)).toEqual(await contentsOf(first));
  });

  it('is idempotent: a second run changes nothing, not even the counters', async () => {
    const store = await freshStore();
    const first = await seedDemo(runBy(store));
    const before = await contentsOf(store);
    const second: SeedReport = await seedDemo(runBy(store));
    expect(second.changed).toBe(false);
    expect(second.published).toBe(0);
    expect(second.issuances).toEqual({ inserted: 0, updated: 0, unchanged: DEMO_ISSUANCES.length });
    expect(second.providers.map((p) => p.risk_indicator_id)).toEqual(first.providers.map((p) => p.risk_indicator_id));
    expect(await contentsOf(store)).toEqual(before);
  });

  it('puts an edited issuance back as it was, touching nothing else', async () => {
    const store = await freshStore();
    await seedDemo(runBy(store));
    const before = await contentsOf(store);
    const edited = DEMO_ISSUANCES[0]?.id ?? '';
    await store.db
      .updateTable('issuances')
      .set({ status: 'ANNOUNCED', target_amount: '1' })
      .where('id', '=', edited)
      .execute();
    const report = await seedDemo(runBy(store));
    expect(report.issuances).toEqual({ inserted: 0, updated: 1, unchanged: DEMO_ISSUANCES.length - 1 });
    expect(report.published).toBe(0);
    // The rows are as they were; the audit trail has the one change more.
    expect(await contentsOf(store)).toEqual({
      ...before,
      counts: { ...before.counts, audit_log: (before.counts.audit_log ?? 0) + 1 },
    });
    expect(await lastAuditEntry(store)).toMatchObject({
      actor_type: 'system',
      actor_name: 'demo seed',
      action: 'issuance.changed',
      subject_id: edited,
    });
  });

  it('reinstates a withdrawn demo provider at its last indicator (one NEW entry, one history row), without replaying its history', async () => {
    const store = await freshStore();
    await seedDemo(runBy(store));
    const before = await contentsOf(store);
    const provider = DEMO_ROUNDS[1]?.documents[0]?.provider.id ?? '';
    await store.db
      .updateTable('providers')
      .set({ withdrawn_at: '2026-11-05T00:00:00.000Z' })
      .where('id', '=', provider)
      .execute();
    const report = await seedDemo(runBy(store));
    expect(report.published).toBe(1);
    expect(report.changes).toEqual({ NEW: 1, SCORE_CHANGE: 0, BAND_CHANGE: 0 });
    const after = await contentsOf(store);
    expect(after.counts).toEqual({
      ...before.counts,
      changelog: (before.counts.changelog ?? 0) + 1,
      indicator_history: (before.counts.indicator_history ?? 0) + 1,
      audit_log: (before.counts.audit_log ?? 0) + 1,
      // The reinstatement's signed statement, and its REINSTATE rating action's.
      statements: (before.counts.statements ?? 0) + 2,
      rating_actions: (before.counts.rating_actions ?? 0) + 1,
    });
    expect(await lastAuditEntry(store)).toMatchObject({
      actor_type: 'system',
      actor_name: 'demo seed',
      action: 'indicator.published',
    });
    // The reinstatement is one publication of the indicator it had; nothing earlier is replayed.
    expect(after.history.slice(0, before.history.length)).toEqual(before.history);
    const reinstated = after.history[after.history.length - 1];
    expect(reinstated?.provider_id).toBe(provider);
    expect(reinstated?.risk_indicator_id).toBe(before.providers.find((p) => p.id === provider)?.current_indicator_id);
    const row = after.providers.find((p) => p.id === provider);
    expect(row?.withdrawn_at).toBeNull();
    expect(row?.current_indicator_id).toBe(before.providers.find((p) => p.id === provider)?.current_indicator_id);
  });

  it('publishes at the given clock when one is passed', async () => {
    const store = await freshStore();
    const at = new Date('2026-11-20T12:00:00.000Z');
    // Every round published at one instant, the first evaluated 51 days before it: the test sets a policy that
    // allows it (the guard applies to the demo's publications, by its clock; decision 0053).
    const allowing = { ...runBy(store), freshness: freshnessPolicy({ maxEvaluationAgeDays: 36500 }) };
    await seedDemo(allowing, { clock: { now: () => at } });
    const times = await store.db.selectFrom('risk_indicators').select('published_at').distinct().execute();
    expect(times).toEqual([{ published_at: at.toISOString() }]);
  });
});
