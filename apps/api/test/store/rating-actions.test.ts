import type { RatingAction } from '@svc/contracts';
import { canonicalJson, type InputsDocument } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { listAudit, verifyAudit } from '../../src/services/operators/audit.js';
import { addOperator, type IssuedOperator } from '../../src/services/operators/operators.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import {
  approveRatingActions,
  listRatingActions,
  proposeOutlook,
  proposeWatch,
  proposeWatchRemoval,
  type RatingActionForm,
  ratingActionStatement,
  ratingActionsPage,
  watchesInForce,
} from '../../src/services/rating-actions/rating-actions.js';
import { scoreHistory } from '../../src/services/records/history.js';
import { currentIndicator } from '../../src/services/scores/scores.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { signPastPublications } from '../../src/services/statements/statements.js';
import { verifyStatements } from '../../src/services/statements/statements-verification.js';
import { latestActionAt } from '../../src/store/repositories/rating-actions.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf, TEST_SIGNER } from '../support/context.js';
import { exampleDocument, framework, newProvider } from '../support/documents.js';
import { chainFaults, sha256, signatureHolds, storedStatements } from '../support/statements.js';
import { engines, migrateBesideOtherTests, useFreshStore } from '../support/stores.js';
import { undo0012 } from '../support/undo-migrations.js';
import { everything } from './contents.js';

/**
 * Rating actions in the store (issue 15, DESIGN-record section 4, decision 0030): the actions a scripted history makes,
 * exactly and in order, each signed in its provider's chain; the analyst actions' maker-checker and their refusals,
 * each writing nothing; the outlook and watch every indicator form carries; migration 0012 deriving the same actions
 * from the history of a store that had none.
 */

const box = secretBox(Buffer.alloc(32, 15));
/** Same band (MEDIUM) as the worked example (78.46), another score: 78.84. */
const LONGER_HISTORY = { operating_history_years: 5 };
/** A better band: LOW. */
const MORE_COLLATERAL = { collateral_coverage_ratio: 1.5 };
const MINUTE = 60_000;

type Operator = Pick<IssuedOperator, 'operator_id' | 'name'>;

/** The fields of an action that say what happened, for comparing a history with the one expected. */
function gist(a: RatingActionForm) {
  return {
    type: a.type,
    previous_band: a.previous_band,
    new_band: a.new_band,
    previous_score: a.previous_score,
    new_score: a.new_score,
    outlook: a.outlook,
    watch: a.watch,
  };
}

describe.each(engines)('rating actions on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);

  const system = () => ctxOf(store, { clock, box });
  const as = (op: Operator) => ctxOf(store, { clock, box, by: op.name, operatorId: op.operator_id });
  const byName = (name: string) => ctxOf(store, { clock, box, by: name });

  /** The first administrator and a team: two analysts, an approver, and one person holding both roles. */
  async function team() {
    clock.set(AFTER_EXAMPLES);
    const admin = await addOperator(ctxOf(store, { clock, by: 'Ada Admin' }), { name: 'Ada Admin', roles: ['admin'] });
    const add = (name: string, roles: string[]) => addOperator(as(admin), { name, roles });
    return {
      admin,
      analyst: await add('Bo Analyst', ['analyst']),
      analyst2: await add('Cy Analyst', ['analyst']),
      approver: await add('Di Approver', ['approver']),
      both: await add('Fay Both', ['analyst', 'approver']),
    };
  }

  type Team = Awaited<ReturnType<typeof team>>;

  /** A refusal: the verb throws a ServiceError of `code` matching `message`, and the store is exactly as it was. */
  async function refusedUnchanged(
    run: () => Promise<unknown>,
    code: ServiceError['code'],
    message: RegExp,
  ): Promise<ServiceError> {
    const before = await everything(store);
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, `expected a refusal matching ${message}`).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe(code);
    expect((error as Error).message).toMatch(message);
    expect(await everything(store)).toEqual(before);
    return error as ServiceError;
  }

  /** Publishes a document as the approver, one minute on; returns the outcome. */
  async function publish(t: Team, document: InputsDocument) {
    clock.advance(MINUTE);
    return publishIndicator(as(t.approver), { document, framework, approvedAt: clock.now().toISOString() });
  }

  /** Proposes with `propose` as an analyst and approves it as the approver, a minute apart each. */
  async function effective(t: Team, propose: (ctx: ReturnType<typeof as>) => Promise<{ id: string }>) {
    clock.advance(MINUTE);
    const proposal = await propose(as(t.analyst));
    clock.advance(MINUTE);
    const [action] = await approveRatingActions(as(t.approver), { ids: [proposal.id] });
    return action as RatingAction;
  }

  /** The whole feed, oldest first. */
  async function feed(): Promise<RatingAction[]> {
    return (await ratingActionsPage(system(), { limit: 500 })).data.reverse();
  }

  const served = async (providerId: string) =>
    JSON.parse(await currentIndicator(system(), { providerId })) as { outlook: string; watch: unknown };

  it('a scripted history makes exactly the expected actions, in order, each signed in the chain and linked from the change feed', async () => {
    const t = await team();
    const worked = exampleDocument('worked-example');
    const id = worked.provider.id;
    // The first publication through the inputs workflow: its action names the analyst and the approver of the inputs.
    clock.advance(MINUTE);
    await submitInputs(as(t.analyst), { documents: [{ source: 'worked.json', document: worked }] });
    clock.advance(MINUTE);
    await approveInputs(as(t.approver), { providerIds: [id] });
    clock.advance(MINUTE);
    const first = await publishRun(as(t.approver), { providers: [id] });
    expect(first.counts.published).toBe(1);
    const newAt = clock.now().toISOString();
    // The same inputs again: unchanged, no action.
    clock.advance(MINUTE);
    const again = await publishRun(as(t.approver), { providers: [id] });
    expect(again.counts).toEqual({ published: 0, unchanged: 1, refused: 0 });
    expect(await feed()).toHaveLength(1);

    expect((await publish(t, exampleDocument('worked-example', { values: LONGER_HISTORY }))).status).toBe('published');
    expect((await publish(t, exampleDocument('worked-example', { values: MORE_COLLATERAL }))).status).toBe('published');
    expect((await publish(t, worked)).status).toBe('published');

    const placed = await effective(t, (ctx) =>
      proposeWatch(ctx, { providerId: id, direction: 'NEGATIVE', rationale: 'a custodian under review' }),
    );
    const placedAt = clock.now().toISOString();
    const reviewBy = new Date(Date.parse(placedAt) + 90 * 86_400_000).toISOString().slice(0, 10);
    expect(placed.watch).toEqual({ direction: 'NEGATIVE', since: placedAt, review_by: reviewBy });
    expect(await served(id)).toMatchObject({ outlook: 'STABLE', watch: placed.watch });

    await effective(t, (ctx) =>
      proposeOutlook(ctx, { providerId: id, outlook: 'NEGATIVE', rationale: 'redemptions rising\nfor two quarters' }),
    );
    // A publication while the watch is on keeps the watch and the outlook.
    const whileOnWatch = await publish(t, exampleDocument('worked-example', { values: LONGER_HISTORY }));
    expect(whileOnWatch.status).toBe('published');
    expect(await served(id)).toEqual(expect.objectContaining({ outlook: 'NEGATIVE', watch: placed.watch }));
    const removed = await effective(t, (ctx) =>
      proposeWatchRemoval(ctx, { providerId: id, rationale: 'the custodian was cleared' }),
    );
    expect(removed.watch).toBeNull();
    clock.advance(MINUTE);
    await withdrawProvider(as(t.approver), { providerId: id, reason: 'paused lending' });
    const reinstated = await publish(t, worked);
    expect(reinstated.status).toBe('published');

    const actions = await feed();
    const watch = placed.watch;
    expect(actions.map(gist)).toEqual([
      {
        type: 'NEW',
        previous_band: null,
        new_band: 'MEDIUM',
        previous_score: null,
        new_score: 78.46,
        outlook: 'STABLE',
        watch: null,
      },
      {
        type: 'AFFIRM',
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        previous_score: 78.46,
        new_score: 78.84,
        outlook: 'STABLE',
        watch: null,
      },
      {
        type: 'UPGRADE',
        previous_band: 'MEDIUM',
        new_band: 'LOW',
        previous_score: 78.84,
        new_score: actions[2]?.new_score,
        outlook: 'STABLE',
        watch: null,
      },
      {
        type: 'DOWNGRADE',
        previous_band: 'LOW',
        new_band: 'MEDIUM',
        previous_score: actions[2]?.new_score,
        new_score: 78.46,
        outlook: 'STABLE',
        watch: null,
      },
      {
        type: 'WATCH_PLACED',
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        previous_score: 78.46,
        new_score: 78.46,
        outlook: 'STABLE',
        watch,
      },
      {
        type: 'OUTLOOK_CHANGED',
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        previous_score: 78.46,
        new_score: 78.46,
        outlook: 'NEGATIVE',
        watch,
      },
      {
        type: 'AFFIRM',
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        previous_score: 78.46,
        new_score: 78.84,
        outlook: 'NEGATIVE',
        watch,
      },
      {
        type: 'WATCH_REMOVED',
        previous_band: 'MEDIUM',
        new_band: 'MEDIUM',
        previous_score: 78.84,
        new_score: 78.84,
        outlook: 'NEGATIVE',
        watch: null,
      },
      {
        type: 'WITHDRAW',
        previous_band: 'MEDIUM',
        new_band: null,
        previous_score: 78.84,
        new_score: null,
        outlook: 'STABLE',
        watch: null,
      },
      {
        type: 'REINSTATE',
        previous_band: null,
        new_band: 'MEDIUM',
        previous_score: null,
        new_score: 78.46,
        outlook: 'STABLE',
        watch: null,
      },
    ]);
    expect(actions[2]?.new_band).toBe('LOW');
    // Who proposed and approved each, and why.
    expect(actions.map((a) => [a.type, a.proposed_by, a.approved_by, a.rationale])).toEqual([
      ['NEW', 'Bo Analyst', 'Di Approver', null],
      ['AFFIRM', null, null, null],
      ['UPGRADE', null, null, null],
      ['DOWNGRADE', null, null, null],
      ['WATCH_PLACED', 'Bo Analyst', 'Di Approver', 'a custodian under review'],
      ['OUTLOOK_CHANGED', 'Bo Analyst', 'Di Approver', 'redemptions rising\nfor two quarters'],
      ['AFFIRM', null, null, null],
      ['WATCH_REMOVED', 'Bo Analyst', 'Di Approver', 'the custodian was cleared'],
      ['WITHDRAW', null, 'Di Approver', 'paused lending'],
      ['REINSTATE', null, null, null],
    ]);
    // Effective at the publication, the withdrawal or the approval: the instants in order, the first at the publication.
    expect(actions[0]?.effective_at).toBe(newAt);
    const times = actions.map((a) => a.effective_at);
    expect([...times].sort()).toEqual(times);
    expect(new Set(actions.map((a) => a.id)).size).toBe(actions.length);
    for (const a of actions) expect(a.id).toMatch(/^ra_[0-9a-f]{24}$/);
    expect(reinstated.status === 'published' && reinstated.ratingAction?.id).toBe(actions[9]?.id);
    // Each indicator named is the one published, withdrawn or in force.
    const history = await store.db
      .selectFrom('indicator_history')
      .select(['seq', 'risk_indicator_id'])
      .orderBy('seq')
      .execute();
    expect(actions.map((a) => a.risk_indicator_id)).toEqual(
      [0, 1, 2, 3, 3, 3, 4, 4, 4, 5].map((i) => history[i]?.risk_indicator_id),
    );

    // Each is signed: its statement states it exactly, verifies under the key, and sits in the provider's chain.
    for (const a of actions) {
      const signed = await ratingActionStatement(system(), { ratingActionId: a.id });
      const { signature, ...form } = a;
      expect(signed.statement).toMatchObject({
        type: 'rating_action',
        provider_id: id,
        risk_indicator_id: a.risk_indicator_id,
      });
      expect(signed.statement.type === 'rating_action' && signed.statement.action).toEqual(form);
      const text = canonicalJson(signed.statement);
      expect(sha256(text)).toBe(signed.statement_sha256);
      expect(signature).toEqual({
        kid: TEST_SIGNER.kid,
        value: signed.signature,
        statement_sha256: signed.statement_sha256,
      });
      expect(signatureHolds(text, signed.signature, TEST_SIGNER.publicKey)).toBe(true);
    }
    const statements = await storedStatements(store);
    expect(statements.filter((s) => s.type === 'rating_action')).toHaveLength(actions.length);
    expect(chainFaults(statements)).toEqual([]);
    expect(await verifyStatements(system())).toEqual({ checked: statements.length, broken: null });
    expect((await verifyAudit(system())).intact).toBe(true);

    // The change feed keeps its entries, each naming its action (an AFFIRM of an unchanged score would have none).
    const changes = await store.db
      .selectFrom('changelog')
      .select(['change_type', 'rating_action_id'])
      .orderBy('id')
      .execute();
    const byId = new Map(actions.map((a) => [a.id, a.type]));
    expect(changes.map((c) => [c.change_type, byId.get(c.rating_action_id ?? '')])).toEqual([
      ['NEW', 'NEW'],
      ['SCORE_CHANGE', 'AFFIRM'],
      ['BAND_CHANGE', 'UPGRADE'],
      ['BAND_CHANGE', 'DOWNGRADE'],
      ['SCORE_CHANGE', 'AFFIRM'],
      ['WITHDRAWN', 'WITHDRAW'],
      ['NEW', 'REINSTATE'],
    ]);

    // The trail: a proposal and an approval per analyst action, by their people; publications name their action.
    const entries = await listAudit(system(), { action: 'rating_action.' });
    expect(entries.map((e) => [e.action, e.actor.name, e.details.type])).toEqual([
      ['rating_action.proposed', 'Bo Analyst', 'WATCH_PLACED'],
      ['rating_action.approved', 'Di Approver', 'WATCH_PLACED'],
      ['rating_action.proposed', 'Bo Analyst', 'OUTLOOK_CHANGED'],
      ['rating_action.approved', 'Di Approver', 'OUTLOOK_CHANGED'],
      ['rating_action.proposed', 'Bo Analyst', 'WATCH_REMOVED'],
      ['rating_action.approved', 'Di Approver', 'WATCH_REMOVED'],
    ]);
    const published = await listAudit(system(), { action: 'indicator.published' });
    expect(published.map((e) => (e.details.rating_action as { type: string }).type)).toEqual([
      'NEW',
      'AFFIRM',
      'UPGRADE',
      'DOWNGRADE',
      'AFFIRM',
      'REINSTATE',
    ]);

    // Each publication in the history carries the outlook and watch in force when it was published.
    const page = JSON.parse((await scoreHistory(system(), { providerId: id, limit: 20 })).json) as {
      data: { entry_type?: string; outlook?: string; watch?: unknown }[];
    };
    expect(page.data.filter((e) => e.entry_type !== 'withdrawal').map((e) => [e.outlook, e.watch])).toEqual([
      ['STABLE', null],
      ['NEGATIVE', watch],
      ['STABLE', null],
      ['STABLE', null],
      ['STABLE', null],
      ['STABLE', null],
    ]);
    // What was in force at each instant: the latest action at or before it (what as_of reads).
    for (const [i, a] of actions.entries()) {
      const before = new Date(Date.parse(a.effective_at) - 1).toISOString();
      expect((await latestActionAt(store.db, id, a.effective_at))?.id).toBe(a.id);
      expect((await latestActionAt(store.db, id, before))?.id).toBe(actions[i - 1]?.id);
    }
  });

  it('the outlook and watch show in every form: the public list, the search, the keyed forms; the status counts overdue watches', async () => {
    const t = await team();
    const worked = exampleDocument('worked-example');
    await publish(t, worked);
    await publish(t, exampleDocument('low-band'));
    clock.advance(MINUTE);
    const proposal = await proposeWatch(as(t.analyst), {
      providerId: worked.provider.id,
      direction: 'DEVELOPING',
      reviewBy: '2026-08-15',
      rationale: 'a merger announced',
    });
    expect(proposal).toMatchObject({
      status: 'PENDING',
      type: 'WATCH_PLACED',
      proposal: { direction: 'DEVELOPING', review_by: '2026-08-15' },
      proposed_by: 'Bo Analyst',
      action: null,
    });
    // Pending: nothing in force yet, nothing in the feed, no statement.
    expect((await served(worked.provider.id)).watch).toBeNull();
    expect((await ratingActionsPage(system(), { type: 'WATCH_PLACED', limit: 10 })).data).toEqual([]);
    await expect(ratingActionStatement(system(), { ratingActionId: proposal.id })).rejects.toThrow(/no effective/);
    expect((await listRatingActions(system(), { pendingOnly: true })).map((r) => r.id)).toEqual([proposal.id]);

    const versionBefore = await store.db
      .selectFrom('store_meta')
      .select('value')
      .where('key', '=', 'publication_version')
      .executeTakeFirstOrThrow();
    clock.advance(MINUTE);
    const [placed] = await approveRatingActions(as(t.approver), { ids: [proposal.id] });
    const versionAfter = await store.db
      .selectFrom('store_meta')
      .select('value')
      .where('key', '=', 'publication_version')
      .executeTakeFirstOrThrow();
    // The publication version moved: every instance rebuilds its public list.
    expect(Number(versionAfter.value)).toBe(Number(versionBefore.value) + 1);
    const watch = { direction: 'DEVELOPING', since: placed?.effective_at, review_by: '2026-08-15' };
    const headlines = await system().snapshot.headlines();
    expect(headlines.map((h) => [h.id, h.outlook, h.watch])).toEqual(
      expect.arrayContaining([
        [worked.provider.id, 'STABLE', watch],
        [exampleDocument('low-band').provider.id, 'STABLE', null],
      ]),
    );
    expect((await listRatingActions(system(), { pendingOnly: true })).map((r) => r.id)).toEqual([]);
    expect((await listRatingActions(system())).map((r) => [r.type, r.status])).toEqual([
      ['WATCH_PLACED', 'EFFECTIVE'],
      ['NEW', 'EFFECTIVE'],
      ['NEW', 'EFFECTIVE'],
    ]);
    expect(await watchesInForce(system())).toEqual([
      { provider_id: worked.provider.id, name: 'Example Sats Lending', watch, overdue: false },
    ]);
    clock.set('2026-08-16T00:00:00.000Z');
    expect((await watchesInForce(system()))[0]?.overdue).toBe(true);
  });

  describe('maker-checker and bad input: each refused, each writing nothing', () => {
    async function published() {
      const t = await team();
      const worked = exampleDocument('worked-example');
      await publish(t, worked);
      return { t, id: worked.provider.id };
    }

    it('a proposer without the analyst role; an approver without the approver role', async () => {
      const { t, id } = await published();
      await refusedUnchanged(
        () => proposeWatch(as(t.approver), { providerId: id, direction: 'NEGATIVE', rationale: 'why' }),
        'refused',
        /needs the analyst role, which Di Approver does not hold/,
      );
      const proposal = await proposeWatch(as(t.analyst), { providerId: id, direction: 'NEGATIVE', rationale: 'why' });
      await refusedUnchanged(
        () => approveRatingActions(as(t.analyst2), { ids: [proposal.id] }),
        'refused',
        /needs the approver role, which Cy Analyst does not hold/,
      );
      // A name typed after --by is no operator once the store has operators.
      await refusedUnchanged(
        () => approveRatingActions(byName('Di Approver'), { ids: [proposal.id] }),
        'refused',
        /SVC_OPERATOR_TOKEN/,
      );
    });

    it('approving one’s own proposal, even holding both roles; all or nothing when one of several is refused', async () => {
      const { t, id } = await published();
      const own = await proposeOutlook(as(t.both), { providerId: id, outlook: 'POSITIVE', rationale: 'why' });
      await refusedUnchanged(
        () => approveRatingActions(as(t.both), { ids: [own.id] }),
        'refused',
        /Fay Both proposed it and cannot approve it/,
      );
      clock.advance(MINUTE);
      const other = await proposeWatch(as(t.analyst), { providerId: id, direction: 'NEGATIVE', rationale: 'why' });
      await refusedUnchanged(
        () => approveRatingActions(as(t.both), { ids: [other.id, own.id] }),
        'refused',
        /proposed it/,
      );
      // Two watches proposed: approving both at once fails on the second, and neither takes effect.
      clock.advance(MINUTE);
      const second = await proposeWatch(as(t.analyst2), { providerId: id, direction: 'POSITIVE', rationale: 'why' });
      await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: [second.id, other.id] }),
        'refused',
        /already on watch/,
      );
      // Applied in the order proposed, whatever the order named.
      const done = await approveRatingActions(as(t.approver), { ids: [other.id, own.id] });
      expect(done.map((a) => [a.id, a.type])).toEqual([
        [own.id, 'OUTLOOK_CHANGED'],
        [other.id, 'WATCH_PLACED'],
      ]);
      expect(done[1]).toMatchObject({ outlook: 'POSITIVE', watch: { direction: 'NEGATIVE' } });
      await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: [other.id] }),
        'refused',
        /is not pending/,
      );
      await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: [`ra_${'0'.repeat(24)}`] }),
        'not_found',
        /no rating action ra_0{24}/,
      );
      const malformed = await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: ['ra_nothex'] }),
        'invalid_value',
        /^id is not a rating action id/,
      );
      expect(malformed.problems.map((p) => p.path)).toEqual(['id']);
      await refusedUnchanged(() => approveRatingActions(as(t.approver), { ids: [] }), 'invalid_value', /at least one/);
    });

    it('in open mode a typed name is compared by name: "ann" cannot approve what "Ann " proposed', async () => {
      clock.set(AFTER_EXAMPLES);
      clock.advance(MINUTE);
      const worked = exampleDocument('worked-example');
      await publishIndicator(system(), { document: worked, framework, approvedAt: clock.now().toISOString() });
      const own = await proposeWatchRemoval(byName('Ann '), { providerId: worked.provider.id, rationale: 'why' }).catch(
        (e: unknown) => e,
      );
      // No watch to remove: refused before anything else is looked at.
      expect((own as ServiceError).message).toMatch(/is not on watch/);
      const proposal = await proposeOutlook(byName('Ann '), {
        providerId: worked.provider.id,
        outlook: 'DEVELOPING',
        rationale: 'why',
      });
      expect(proposal.proposed_by).toBe('Ann');
      await refusedUnchanged(
        () => approveRatingActions(byName('ann'), { ids: [proposal.id] }),
        'refused',
        /proposed it/,
      );
      const [done] = await approveRatingActions(byName('Bea'), { ids: [proposal.id] });
      expect(done).toMatchObject({ outlook: 'DEVELOPING', proposed_by: 'Ann', approved_by: 'Bea' });
    });

    it('an empty or unreadable rationale, an outlook or direction outside their sets, a review date that is not a later date', async () => {
      const { t, id } = await published();
      const analyst = as(t.analyst);
      const field = async (run: () => Promise<unknown>, path: string, message: RegExp) => {
        const error = await refusedUnchanged(run, 'invalid_value', message);
        expect(error.problems.map((p) => p.path)).toEqual([path]);
      };
      await field(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'NEGATIVE', rationale: '  \n ' }),
        'rationale',
        /^rationale must not be empty/,
      );
      await field(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'NEGATIVE', rationale: 'x\u001b[2J' }),
        'rationale',
        /^rationale must not hold control characters/,
      );
      await field(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'NEGATIVE', rationale: 'x'.repeat(2001) }),
        'rationale',
        /at most 2000 characters/,
      );
      await field(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'BULLISH', rationale: 'why' }),
        'outlook',
        /^outlook must be one of POSITIVE, STABLE, NEGATIVE, DEVELOPING, not "BULLISH"/,
      );
      await field(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'negative', rationale: 'why' }),
        'outlook',
        /must be one of/,
      );
      await field(
        () => proposeWatch(analyst, { providerId: id, direction: 'STABLE', rationale: 'why' }),
        'direction',
        /^direction must be one of POSITIVE, NEGATIVE, DEVELOPING/,
      );
      const today = clock.now().toISOString().slice(0, 10);
      for (const [reviewBy, message] of [
        ['next month', /must be a date \(YYYY-MM-DD\) on the calendar/],
        ['2026-02-30', /must be a date \(YYYY-MM-DD\) on the calendar/],
        ['2026-8-20', /must be a date/],
        [today, /must be after today/],
        ['2026-07-01', /must be after today/],
        ['2027-09-01', /at most 365 days ahead/],
      ] as const) {
        await field(
          () => proposeWatch(analyst, { providerId: id, direction: 'NEGATIVE', reviewBy, rationale: 'why' }),
          'review_by',
          message,
        );
      }
      // A rationale is kept trimmed; line breaks inside are its own.
      const kept = await proposeOutlook(analyst, { providerId: id, outlook: 'NEGATIVE', rationale: '  two\nlines  ' });
      expect(kept.rationale).toBe('two\nlines');
    });

    it('a watch on a provider with no indicator in force (unknown, never published, withdrawn); removing a watch that is not on; the outlook in force', async () => {
      const { t, id } = await published();
      const analyst = as(t.analyst);
      await refusedUnchanged(
        () =>
          proposeWatch(analyst, {
            providerId: '0f0f0f0f-0000-4000-8000-000000000000',
            direction: 'NEGATIVE',
            rationale: 'why',
          }),
        'not_found',
        /no provider 0f0f0f0f/,
      );
      const unpublished = newProvider({ provider: { name: 'Only Submitted' } });
      await submitInputs(analyst, { documents: [{ source: 'x.json', document: unpublished }] });
      await refusedUnchanged(
        () => proposeWatch(analyst, { providerId: unpublished.provider.id, direction: 'NEGATIVE', rationale: 'why' }),
        'refused',
        /has no indicator in force \(it was never published\)/,
      );
      await refusedUnchanged(
        () => proposeWatchRemoval(analyst, { providerId: id, rationale: 'why' }),
        'refused',
        /is not on watch/,
      );
      await refusedUnchanged(
        () => proposeOutlook(analyst, { providerId: id, outlook: 'STABLE', rationale: 'why' }),
        'refused',
        /outlook is STABLE already/,
      );
      // Proposed while in force, withdrawn before approval: the approval is refused.
      const pending = await proposeWatch(analyst, { providerId: id, direction: 'NEGATIVE', rationale: 'why' });
      clock.advance(MINUTE);
      await withdrawProvider(as(t.approver), { providerId: id, reason: 'stopped' });
      await refusedUnchanged(
        () => proposeWatch(analyst, { providerId: id.toUpperCase(), direction: 'NEGATIVE', rationale: 'why' }),
        'refused',
        /has no indicator in force \(it was withdrawn at/,
      );
      await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: [pending.id] }),
        'refused',
        new RegExp(`rating action ${pending.id}: provider ${id} has no indicator in force`),
      );
    });

    it('a review date that has passed by the time of approval is refused then, naming review_by', async () => {
      const { t, id } = await published();
      const proposal = await proposeWatch(as(t.analyst), {
        providerId: id,
        direction: 'NEGATIVE',
        reviewBy: '2026-08-03',
        rationale: 'why',
      });
      clock.set('2026-08-03T12:00:00.000Z');
      const error = await refusedUnchanged(
        () => approveRatingActions(as(t.approver), { ids: [proposal.id] }),
        'refused',
        /review_by 2026-08-03 is no longer after today/,
      );
      expect(error.problems.map((p) => p.path)).toEqual(['review_by']);
    });
  });

  it('migration 0012 derives, from a store that had no rating actions, the actions publishing records now, and their statements are signed once', async () => {
    const t = await team();
    const worked = exampleDocument('worked-example');
    const low = exampleDocument('low-band');
    clock.advance(MINUTE);
    await submitInputs(as(t.analyst), { documents: [{ source: 'w.json', document: worked }] });
    clock.advance(MINUTE);
    await approveInputs(as(t.approver), { providerIds: [worked.provider.id] });
    clock.advance(MINUTE);
    await publishRun(as(t.approver), { providers: [worked.provider.id] });
    await publish(t, low);
    await publish(t, exampleDocument('worked-example', { values: MORE_COLLATERAL }));
    clock.advance(MINUTE);
    await withdrawProvider(as(t.approver), { providerId: low.provider.id, reason: 'closed' });
    await publish(t, exampleDocument('worked-example', { values: LONGER_HISTORY }));
    await publish(t, low);
    const live = await feed();
    expect(live.map((a) => a.type)).toEqual(['NEW', 'NEW', 'UPGRADE', 'WITHDRAW', 'DOWNGRADE', 'REINSTATE']);
    const links = async () =>
      (await store.db.selectFrom('changelog').select(['id', 'rating_action_id']).orderBy('id').execute()).map((c) => [
        Number(c.id),
        c.rating_action_id,
      ]);
    const liveLinks = await links();

    // The store as 0011 left it, its statements chained as they were then.
    await undo0012(store);
    expect(await verifyStatements(system())).toMatchObject({ broken: null });
    const auditBefore = await verifyAudit(system());
    expect(auditBefore.intact).toBe(true);
    expect(await migrateBesideOtherTests(store)).toEqual(['0012-rating-actions', '0013-audit-time-and-name-keys']);

    // The same actions (ids, facts, order), unsigned until a process that can sign comes.
    const derived = await feed();
    const unsigned = live.map(({ signature: _s, ...form }) => ({ ...form, signature: null }));
    expect(derived).toEqual(unsigned);
    expect(await links()).toEqual(liveLinks);
    const entry = (await listAudit(system(), { action: 'rating_actions.' }))[0];
    expect(entry).toMatchObject({
      actor: { type: 'system', id: null, name: 'migration 0012' },
      details: {
        actions: 6,
        by_type: { NEW: 2, UPGRADE: 1, WITHDRAW: 1, DOWNGRADE: 1, REINSTATE: 1 },
        changelog_entries: 6,
      },
    });
    expect(
      await store.db.selectFrom('store_meta').select('value').where('key', '=', 'statements_backfilled').execute(),
    ).toEqual([]);

    const result = await signPastPublications(store, { configured: TEST_SIGNER.pem, box: () => box });
    expect(result).toEqual({ signed: 6, kid: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const signing = (await listAudit(system(), { action: 'statements.' })).at(-1);
    expect(signing).toMatchObject({ actor: { type: 'system', name: 'migration 0012' }, details: { statements: 6 } });
    const signed = await feed();
    expect(signed.map(({ signature: _s, ...form }) => form)).toEqual(live.map(({ signature: _s, ...form }) => form));
    for (const a of signed) {
      const statement = await ratingActionStatement(system(), { ratingActionId: a.id });
      expect(statement.statement).toMatchObject({
        type: 'rating_action',
        audit_head: { seq: signing?.seq, hash: signing?.hash },
      });
    }
    const statements = await storedStatements(store);
    expect(chainFaults(statements)).toEqual([]);
    expect(await verifyStatements(system())).toEqual({ checked: statements.length, broken: null });
    expect((await verifyAudit(system())).intact).toBe(true);
    // Done once; and the next publication chains after the statements signed at migration.
    expect(await signPastPublications(store, { configured: TEST_SIGNER.pem, box: () => box })).toEqual({
      signed: 0,
      kid: null,
    });
  });
});
