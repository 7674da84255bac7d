import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { DEFAULT_FRESHNESS_POLICY, freshnessPolicy } from '../../src/services/shared/freshness-policy.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, exampleDocument, framework, type InputsDoc, LOW_BAND_ID, WORKED_ID } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

// The worked example is evaluated on 2026-06-30, the low-band one on 2026-07-15; the default limit is 31 days.
const LAST_DAY = '2026-07-31T23:59:59.999Z';
const FIRST_DAY_REFUSED = '2026-08-01T00:00:00.000Z';

describe.each(engines)('the publication guard (max_evaluation_age_days) on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  const ctx = (by?: string) =>
    ctxOf(store, { clock, freshness: DEFAULT_FRESHNESS_POLICY, ...(by === undefined ? {} : { by }) });
  beforeEach(async () => {
    clock.set('2026-07-20T09:00:00.000Z');
    const documents = [example('worked-example'), example('low-band')].map((d: InputsDoc) => ({
      source: `${d.provider.id}.json`,
      document: d,
    }));
    await submitInputs(ctx('alice'), { documents });
    await approveInputs(ctx('bob'), { providerIds: [WORKED_ID, LOW_BAND_ID] });
  });

  it('an evaluation exactly max_evaluation_age_days before today (UTC) publishes, to the day’s last millisecond', async () => {
    clock.set(LAST_DAY);
    const run = await publishRun(ctx(), { providers: [WORKED_ID] });
    expect(run.counts).toEqual({ published: 1, unchanged: 0, refused: 0 });
  });

  it('one day more is refused naming evaluation_date, the limit and the remedy; nothing of it is written, the others publish', async () => {
    clock.set(FIRST_DAY_REFUSED);
    const before = await storeContents(store);
    const dry = await publishRun(ctx(), { providers: [WORKED_ID], dryRun: true });
    expect(dry.outcomes[0]?.status).toBe('refused');
    expect(await storeContents(store)).toEqual(before);
    const run = await publishRun(ctx(), { providers: [WORKED_ID, LOW_BAND_ID] });
    expect(run.counts).toEqual({ published: 1, unchanged: 0, refused: 1 });
    const refused = run.outcomes.find((o) => o.provider_id === WORKED_ID);
    expect(refused).toMatchObject({ status: 'refused', risk_indicator_id: null, final_score: null });
    expect(refused?.submission_id).toMatch(/^in_/);
    expect(refused?.reason).toBe(
      'evaluation_date 2026-06-30 is 32 days before today (2026-08-01, UTC), more than max_evaluation_age_days (31): ' +
        `\`svc inputs redate ${WORKED_ID}\` submits the approved inputs again with a new evaluation date, for approval`,
    );
    expect(refused?.problems).toEqual([
      {
        path: 'evaluation_date',
        message: '2026-06-30 is 32 days before today (2026-08-01, UTC), more than max_evaluation_age_days (31)',
      },
    ]);
    const history = await store.db.selectFrom('indicator_history').select('provider_id').execute();
    expect(history.map((h) => h.provider_id)).toEqual([LOW_BAND_ID]);
  });

  it('the limit is the configured one: a longer max age publishes what the default refuses', async () => {
    clock.set(FIRST_DAY_REFUSED);
    const run = await publishRun(ctxOf(store, { clock, freshness: freshnessPolicy({ maxEvaluationAgeDays: 32 }) }), {
      providers: [WORKED_ID],
    });
    expect(run.counts.published).toBe(1);
  });

  it('--date more than the limit before today is refused as a whole, naming --date; nothing is written', async () => {
    clock.set('2026-08-01T09:00:00.000Z');
    const before = await storeContents(store);
    const failure = await publishRun(ctx(), { providers: [LOW_BAND_ID], date: '2026-06-30' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).problems).toEqual([
      {
        path: '--date',
        message: '2026-06-30 is 32 days before today (2026-08-01, UTC), more than max_evaluation_age_days (31)',
      },
    ]);
    expect(await storeContents(store)).toEqual(before);
    // The stale document evaluated on a recent --date publishes (its evidence is what it is).
    const recent = await publishRun(ctx(), { providers: [WORKED_ID], date: '2026-07-01' });
    expect(recent.counts.published).toBe(1);
  });

  it('publishIndicator (the demo seed’s path) applies the same guard by its context’s clock', async () => {
    const document = exampleDocument('worked-example', { provider: { id: '00000000-0000-4000-8000-0000000000aa' } });
    const publication = { document, framework, approvedAt: '2026-07-01T00:00:00.000Z' };
    clock.set(FIRST_DAY_REFUSED);
    const before = await storeContents(store);
    const refused = await publishIndicator(ctx(), publication);
    expect(refused).toMatchObject({
      status: 'refused',
      reason: expect.stringMatching(/^evaluation_date 2026-06-30 is 32 days/),
    });
    expect(await storeContents(store)).toEqual(before);
    clock.set(LAST_DAY);
    expect((await publishIndicator(ctx(), publication)).status).toBe('published');
  });
});
