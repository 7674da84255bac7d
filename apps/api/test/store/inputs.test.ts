import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { approveInputs, listInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { publishRun, RunStopped } from '../../src/services/publishing/publication-run.js';
import { PUBLICATION_BATCH } from '../../src/services/publishing/publishing.js';
import { listChanges } from '../../src/store/repositories/changelog.js';
import { findProvider, listCurrent, listPublicHeadlines } from '../../src/store/repositories/providers.js';
import type { Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import {
  example,
  type InputsDoc,
  newProvider,
  UNKNOWN_PROVIDER_ID,
  variantOf,
  WORKED_ID,
  withInput,
} from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { publicationOrder, storeContents } from './contents.js';

const doc = (d: InputsDoc, source = 'doc.json') => ({ source, document: d });

describe.each(engines)('approved inputs and publication runs on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set('2026-07-01T09:00:00.000Z');
  });

  const submit = (by: string, ...docs: InputsDoc[]) =>
    submitInputs(ctxOf(store, { clock, by }), { documents: docs.map((d, i) => doc(d, `doc-${i}.json`)) });
  const approve = (by: string, ...providerIds: string[]) => approveInputs(ctxOf(store, { clock, by }), { providerIds });

  it('a submission is PENDING, creates a provider row with no publication, and stays out of the public lists', async () => {
    const [record] = await submit('alice', example('worked-example'));
    expect(record).toMatchObject({
      provider_id: WORKED_ID,
      provider_name: 'Example Sats Lending',
      status: 'PENDING',
      submitted_by: 'alice',
      submitted_at: '2026-07-01T09:00:00.000Z',
      approved_by: null,
      approved_at: null,
    });
    expect(record?.id).toMatch(/^in_[0-9a-f]{24}$/);
    expect(record?.inputs_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await findProvider(store.db, WORKED_ID)).toMatchObject({ current_indicator_id: null, current_seq: null });
    expect(await listPublicHeadlines(store.db)).toEqual([]);
    expect(await listCurrent(store.db, { limit: 10 })).toEqual([]);
  });

  it('an invalid document among valid ones stores nothing and reports every problem with its source', async () => {
    const before = await storeContents(store);
    const bad = { ...example('worked-example'), evaluation_date: 'soon' } as InputsDoc;
    const worse = withInput(example('low-band'), 'collateral_coverage_ratio', 'lots');
    const failure = await submitInputs(ctxOf(store, { clock, by: 'alice' }), {
      documents: [doc(example('worked-example'), 'ok.json'), doc(bad, 'bad.json'), doc(worse, 'worse.json')],
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    const { code, problems, message } = failure as ServiceError;
    expect(code).toBe('invalid_inputs');
    expect(message).toMatch(/^2 of 3 documents not valid approved inputs/);
    expect(new Set(problems.map((p) => p.source))).toEqual(new Set(['bad.json', 'worse.json']));
    expect(problems).toContainEqual(expect.objectContaining({ source: 'bad.json', path: 'evaluation_date' }));
    expect(problems).toContainEqual(
      expect.objectContaining({ source: 'worse.json', path: 'inputs.collateral_coverage_ratio.value' }),
    );
    expect(await storeContents(store)).toEqual(before);
  });

  it('the submitter cannot approve their own submission, whatever the case of the name', async () => {
    await submit('alice', example('worked-example'));
    await expect(approve(' Alice ', WORKED_ID)).rejects.toMatchObject({ code: 'refused' });
    expect((await listInputs(ctxOf(store), { pendingOnly: true })).map((r) => r.status)).toEqual(['PENDING']);
  });

  it('an approval pinned to inputs_sha256 approves only that content: another pending one is refused, nothing written', async () => {
    clock.set(AFTER_EXAMPLES);
    const shaOf = (record: { inputs_sha256: string } | undefined) => record?.inputs_sha256 ?? '';
    const [seen] = await submit('alice', example('worked-example'), example('low-band'));
    const [replaced] = await submit('carol', withInput(example('worked-example'), 'collateral_coverage_ratio', 1.2));
    const low = (await listInputs(ctxOf(store), { pendingOnly: true })).find((r) => r.provider_id !== WORKED_ID);
    const pinned = (...pins: string[]) =>
      approveInputs(ctxOf(store, { clock, by: 'bob' }), {
        providerIds: [low?.provider_id ?? '', WORKED_ID],
        inputsSha256: pins,
      });
    const before = await storeContents(store);
    const refused = await pinned(shaOf(low), shaOf(seen)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'refused' });
    expect((refused as Error).message).toContain(`the pending submission has inputs sha256 ${shaOf(replaced)}`);
    for (const pins of [['abc'], [shaOf(seen).slice(0, 11), 'f'.repeat(12)], ['x'.repeat(12), 'f'.repeat(12)]]) {
      await expect(pinned(...pins)).rejects.toMatchObject({ code: 'invalid_value' });
    }
    expect(await storeContents(store)).toEqual(before);
    // Any order, and a prefix of 12 hex digits in any case, names each one.
    const approved = await pinned(shaOf(replaced).slice(0, 12).toUpperCase(), shaOf(low));
    expect(approved.map((r) => [r.provider_id, r.inputs_sha256, r.status])).toEqual([
      [low?.provider_id, shaOf(low), 'APPROVED'],
      [WORKED_ID, shaOf(replaced), 'APPROVED'],
    ]);
  });

  it('another analyst approves; an unknown provider or one with nothing pending is not_found', async () => {
    await submit('alice', example('worked-example'));
    clock.advance(1000);
    const [approved] = await approve('bob', WORKED_ID);
    expect(approved).toMatchObject({
      status: 'APPROVED',
      submitted_by: 'alice',
      approved_by: 'bob',
      approved_at: '2026-07-01T09:00:01.000Z',
    });
    await expect(approve('bob', WORKED_ID)).rejects.toMatchObject({ code: 'not_found' });
    await expect(approve('bob', UNKNOWN_PROVIDER_ID)).rejects.toMatchObject({
      code: 'not_found',
      message: `no provider ${UNKNOWN_PROVIDER_ID}`,
    });
    expect(await listInputs(ctxOf(store), { pendingOnly: true })).toEqual([]);
  });

  it('a newer submission supersedes the pending one; approving supersedes the approved one', async () => {
    const first = await submit('alice', example('worked-example'));
    clock.advance(1000);
    const second = await submit('alice', withInput(example('worked-example'), 'operating_history_years', 5));
    expect(new Map((await listInputs(ctxOf(store), {})).map((r) => [r.id, r.status]))).toEqual(
      new Map([
        [second[0]?.id, 'PENDING'],
        [first[0]?.id, 'SUPERSEDED'],
      ]),
    );
    await approve('bob', WORKED_ID);
    clock.advance(1000);
    const third = await submit('carol', example('worked-example'));
    await approve('bob', WORKED_ID);
    const statuses = new Map((await listInputs(ctxOf(store), {})).map((r) => [r.id, r.status]));
    expect(statuses.get(third[0]?.id ?? '')).toBe('APPROVED');
    expect(statuses.get(second[0]?.id ?? '')).toBe('SUPERSEDED');
    expect([...statuses.values()].filter((s) => s === 'APPROVED')).toHaveLength(1);
  });

  it('approving several providers is all or none', async () => {
    const other = variantOf(example('worked-example'), 1);
    await submit('alice', example('worked-example'), other);
    await expect(approve('bob', WORKED_ID, UNKNOWN_PROVIDER_ID)).rejects.toMatchObject({ code: 'not_found' });
    expect(await listInputs(ctxOf(store), { pendingOnly: true })).toHaveLength(2);
  });

  it('publishRun publishes approved inputs once (then unchanged) with score_verified_at = approved_at', async () => {
    clock.set(AFTER_EXAMPLES);
    await submit('alice', example('worked-example'), example('missing-inputs'));
    await approve('bob', WORKED_ID, example('missing-inputs').provider.id);
    const first = await publishRun(ctxOf(store, { clock }), { providers: 'all' });
    expect(first.counts).toEqual({ published: 1, unchanged: 0, refused: 1 });
    const published = first.outcomes.find((o) => o.provider_id === WORKED_ID);
    expect(published).toMatchObject({ status: 'published', change: 'NEW', final_score: 78.46, risk_band: 'MEDIUM' });
    const refused = first.outcomes.find((o) => o.status === 'refused');
    expect(refused?.reason).toMatch(/below the publication threshold/);
    const history = await store.db.selectFrom('indicator_history').selectAll().execute();
    expect(history.map((h) => h.score_verified_at)).toEqual([AFTER_EXAMPLES]);
    const again = await publishRun(ctxOf(store, { clock }), { providers: 'all' });
    expect(again.counts).toEqual({ published: 0, unchanged: 1, refused: 1 });
    expect(await store.db.selectFrom('indicator_history').selectAll().execute()).toHaveLength(1);
  });

  it('a run stopped partway by a store error reports what it published, and the providers it did not reach stay untouched', async () => {
    const docs = Array.from({ length: PUBLICATION_BATCH + 5 }, () => newProvider());
    await submit('alice', ...(docs as unknown as InputsDoc[]));
    await approve('bob', ...docs.map((d) => d.provider.id));
    // The store refuses the write of the second batch's third provider (a trigger: a real failure of the store).
    const failing = docs[PUBLICATION_BATCH + 2]?.provider.id ?? '';
    await refuseHistoryOf(store, failing);
    const ids = docs.map((d) => d.provider.id);
    const stopped = await publishRun(ctxOf(store, { clock }), { providers: ids }).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(RunStopped);
    const { report, cause } = stopped as RunStopped;
    expect(String((cause as Error).message)).toContain('the store refused the write');
    // The batch that failed is tried provider by provider: the two before the failing one are written alone, and
    // the report says so; the failing one and those after it are not attempted.
    expect(report.counts).toEqual({ published: PUBLICATION_BATCH + 2, unchanged: 0, refused: 0 });
    expect(report.outcomes.map((o) => o.provider_id)).toEqual(ids.slice(0, PUBLICATION_BATCH + 2));
    expect(report.not_attempted).toEqual(ids.slice(PUBLICATION_BATCH + 2));
    const published = new Set(
      (await store.db.selectFrom('indicator_history').select('provider_id').execute()).map((h) => h.provider_id),
    );
    expect(ids.filter((id) => published.has(id))).toEqual(ids.slice(0, PUBLICATION_BATCH + 2));
    // Run again once the store takes it: the rest is published, the rest only.
    await allowHistory(store);
    const again = await publishRun(ctxOf(store, { clock }), { providers: ids });
    expect(again.counts).toEqual({ published: 3, unchanged: PUBLICATION_BATCH + 2, refused: 0 });
  });

  it('a run over several batches publishes each provider once, in order, the progress counted one by one', async () => {
    // Two full batches and a part (decision 0039).
    const docs = Array.from({ length: 2 * PUBLICATION_BATCH + 3 }, () => newProvider());
    await submit('alice', ...(docs as unknown as InputsDoc[]));
    await approve('bob', ...docs.map((d) => d.provider.id));
    const progress: [number, number, string][] = [];
    const run = await publishRun(ctxOf(store, { clock }), {
      providers: docs.map((d) => d.provider.id),
      onProgress: (done, total, id) => progress.push([done, total, id]),
    });
    expect(run.outcomes.map((o) => [o.provider_id, o.status])).toEqual(docs.map((d) => [d.provider.id, 'published']));
    expect(progress).toEqual(docs.map((d, i) => [i + 1, docs.length, d.provider.id]));
    expect(await publicationOrder(store)).toEqual(docs.map((d, i) => [i + 1, d.provider.id]));
    // Each rating action numbered in publication order, its maker and checker the submission's (read by each batch
    // once for all its providers, decision 0040).
    const actions = await store.db
      .selectFrom('rating_actions')
      .select(['seq', 'publication_seq', 'provider_id', 'proposed_by', 'approved_by'])
      .orderBy('seq')
      .execute();
    expect(actions).toEqual(
      docs.map((d, i) => ({
        seq: i + 1,
        publication_seq: i + 1,
        provider_id: d.provider.id,
        proposed_by: 'alice',
        approved_by: 'bob',
      })),
    );
    const again = await publishRun(ctxOf(store, { clock }), { providers: 'all' });
    expect(again.counts).toEqual({ published: 0, unchanged: docs.length, refused: 0 });
  });

  it('a dry run writes nothing and reports what publishing would do', async () => {
    await submit('alice', example('worked-example'));
    await approve('bob', WORKED_ID);
    const before = await storeContents(store);
    const dry = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], dryRun: true });
    expect(dry).toMatchObject({ dry_run: true, counts: { published: 1, unchanged: 0, refused: 0 } });
    expect(dry.outcomes[0]).toMatchObject({ status: 'published', change: 'NEW' });
    expect(await storeContents(store)).toEqual(before);
    const real = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID] });
    expect(real.outcomes[0]?.risk_indicator_id).toBe(dry.outcomes[0]?.risk_indicator_id);
  });

  it('--date moves the evaluation date: a new indicator id and a SCORE_CHANGE or no entry; an early date is refused', async () => {
    clock.set('2026-10-01T09:00:00.000Z');
    await submit('alice', example('worked-example'));
    await approve('bob', WORKED_ID);
    const first = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID] });
    const later = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], date: '2026-09-30' });
    expect(later.outcomes[0]?.status).toBe('published');
    expect(later.outcomes[0]?.risk_indicator_id).not.toBe(first.outcomes[0]?.risk_indicator_id);
    expect([null, 'SCORE_CHANGE', 'BAND_CHANGE']).toContain(later.outcomes[0]?.change);
    const changes = await listChanges(store.db, { limit: 10 });
    expect(changes.map((c) => c.change_type).sort()).toEqual(
      later.outcomes[0]?.change ? ['NEW', later.outcomes[0].change].sort() : ['NEW'],
    );
    const early = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], date: '2026-01-01' });
    expect(early.outcomes[0]).toMatchObject({ status: 'refused' });
    expect(early.outcomes[0]?.problems.length).toBeGreaterThan(0);
  });

  /** The worked example moved into the future: evaluated 2030-01-01 on evidence of 2029. */
  const fromTheFuture = (): InputsDoc => {
    const d = example('worked-example');
    d.evaluation_date = '2030-01-01';
    const item = d.inputs.operating_history_years as Record<string, unknown>;
    item.as_of = '2029-06-01';
    item.approved_at = '2029-06-02T10:00:00Z';
    return d;
  };

  it('import refuses a document dated after the present, naming each field, and stores nothing', async () => {
    const before = await storeContents(store);
    const failure = await submitInputs(ctxOf(store, { clock, by: 'alice' }), {
      documents: [doc(example('worked-example'), 'ok.json'), doc(fromTheFuture(), 'future.json')],
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).code).toBe('invalid_inputs');
    expect((failure as ServiceError).problems).toEqual([
      {
        source: 'future.json',
        path: 'evaluation_date',
        message: '2030-01-01 is after the present (2026-07-01T09:00:00.000Z)',
      },
      {
        source: 'future.json',
        path: 'inputs.operating_history_years.as_of',
        message: expect.stringMatching(/^2029-06-01 is after the present/),
      },
      {
        source: 'future.json',
        path: 'inputs.operating_history_years.approved_at',
        message: expect.stringMatching(/^2029-06-02T10:00:00Z is after the present/),
      },
    ]);
    expect(await storeContents(store)).toEqual(before);
  });

  it('five minutes of clock skew are allowed: evidence dated today, a minute ahead of the clock, is accepted', async () => {
    clock.set('2026-06-29T23:56:00.000Z');
    const [record] = await submit('alice', example('worked-example')); // evaluated 2026-06-30
    expect(record?.status).toBe('PENDING');
  });

  it('approval and publication refuse future-dated inputs already in the store (the clock set back), naming each field', async () => {
    clock.set('2030-02-01T00:00:00.000Z');
    await submit('alice', fromTheFuture());
    clock.set('2026-07-01T09:00:00.000Z');
    const before = await storeContents(store);
    const refused = await approve('bob', WORKED_ID).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'invalid_inputs' });
    expect((refused as ServiceError).problems.map((p) => p.path)).toEqual([
      'evaluation_date',
      'inputs.operating_history_years.as_of',
      'inputs.operating_history_years.approved_at',
    ]);
    expect(await storeContents(store)).toEqual(before);

    clock.set('2030-02-01T00:00:00.000Z');
    await approve('bob', WORKED_ID);
    clock.set('2026-07-01T09:00:00.000Z');
    for (const dryRun of [true, false]) {
      const run = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], dryRun });
      expect(run.counts).toEqual({ published: 0, unchanged: 0, refused: 1 });
      expect(run.outcomes[0]?.reason).toMatch(
        /dated after the present \(evaluation_date, inputs\.operating_history_years\.as_of/,
      );
      expect(run.outcomes[0]?.problems.map((p) => p.path)).toContain('inputs.operating_history_years.approved_at');
    }
    expect(await store.db.selectFrom('indicator_history').selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom('risk_indicators').selectAll().execute()).toEqual([]);
  });

  it('publish --date after the present is refused naming --date, and nothing is published', async () => {
    await submit('alice', example('worked-example'));
    await approve('bob', WORKED_ID);
    const before = await storeContents(store);
    const failure = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], date: '2026-07-02' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).problems).toEqual([
      { path: '--date', message: '2026-07-02 is after the present (2026-07-01T09:00:00.000Z)' },
    ]);
    expect(await storeContents(store)).toEqual(before);
    // Today is not the future.
    const today = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID], date: '2026-07-01' });
    expect(today.counts.published).toBe(1);
  });

  it('a named provider without approved inputs is refused, and so is an unknown one', async () => {
    await submit('alice', example('worked-example'));
    const run = await publishRun(ctxOf(store, { clock }), { providers: [WORKED_ID, UNKNOWN_PROVIDER_ID] });
    expect(run.outcomes.map((o) => o.reason)).toEqual(['no approved inputs', `no provider ${UNKNOWN_PROVIDER_ID}`]);
    expect(await store.db.selectFrom('indicator_history').selectAll().execute()).toEqual([]);
  });
});

/** Makes the store refuse to record a publication of `providerId` (a trigger), as a failing disk or constraint would. */
async function refuseHistoryOf(store: Store, providerId: string): Promise<void> {
  if (store.dialect === 'sqlite') {
    await sql`create trigger refuse_history before insert on indicator_history when new.provider_id = ${sql.lit(providerId)}
      begin select raise(abort, 'the store refused the write'); end`.execute(store.db);
    return;
  }
  await sql`create function refuse_history() returns trigger language plpgsql as $$
    begin
      if new.provider_id = ${sql.lit(providerId)} then raise exception 'the store refused the write'; end if;
      return new;
    end $$`.execute(store.db);
  await sql`create trigger refuse_history before insert on indicator_history for each row execute function refuse_history()`.execute(
    store.db,
  );
}

async function allowHistory(store: Store): Promise<void> {
  await sql`drop trigger refuse_history${store.dialect === 'postgres' ? sql` on indicator_history` : sql``}`.execute(
    store.db,
  );
}
