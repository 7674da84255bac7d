import { describe, expect, it } from 'vitest';
import { WATCHLIST_MAX_DAYS, watchlist } from '../../src/services/analysis/watchlist.js';
import { ServiceError } from '../../src/services/errors.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { approveRatingActions, proposeWatch } from '../../src/services/rating-actions/rating-actions.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { type ExampleName, exampleDocument, framework } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { everything } from './contents.js';

/**
 * The watchlist as a verb (issue 33: `svc watchlist` computed it in the CLI, an evidence schedule per provider and
 * the bands from the engine's getFramework): the same report, read from the record, for any transport. The CLI's
 * suite (apps/cli/test/rating-actions.test.ts) holds every reason against a scripted record; here the verb itself.
 */
describe.each(engines)('watchlist on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);
  const ctx = (by?: string) => ctxOf(store, by === undefined ? { clock } : { clock, by });
  const SATS = exampleDocument('worked-example').provider.id;
  const HARBOUR = exampleDocument('low-band').provider.id;
  const QUICKYIELD = exampleDocument('multiple-caps').provider.id;

  async function publish(...names: ExampleName[]): Promise<void> {
    for (const name of names) {
      const document = exampleDocument(name);
      await publishIndicator(ctx(), { document, framework, approvedAt: clock.now().toISOString() });
    }
  }

  it('refuses a look ahead that is not a whole number of days from 1 to 730, reading nothing', async () => {
    clock.set(AFTER_EXAMPLES);
    expect(WATCHLIST_MAX_DAYS).toBe(730);
    const before = await everything(store);
    for (const days of [0, 731, 1.5, -3, Number.NaN]) {
      const error = await watchlist(ctx(), { days }).catch((e: unknown) => e);
      expect(error, String(days)).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('invalid_value');
      expect((error as ServiceError).problems).toEqual([
        { path: 'days', message: 'must be a whole number of days from 1 to 730' },
      ]);
    }
    expect(await everything(store)).toEqual(before);
  });

  it('an empty record has nothing on the watchlist', async () => {
    clock.set(AFTER_EXAMPLES);
    expect(await watchlist(ctx(), { days: WATCHLIST_MAX_DAYS })).toEqual([]);
  });

  it('within 30 days: the overdue watch first (dated by its review date), then the rating held at its caps', async () => {
    clock.set(AFTER_EXAMPLES);
    await publish('worked-example', 'low-band', 'multiple-caps');
    const proposal = await proposeWatch(ctx('Ann Analyst'), {
      providerId: HARBOUR,
      direction: 'NEGATIVE',
      reviewBy: '2026-08-10',
      rationale: 'a custodian under review',
    });
    await approveRatingActions(ctx('Pat Approver'), { ids: [proposal.id] });
    clock.set('2026-08-20T09:00:00.000Z');
    const listed = await watchlist(ctx(), { days: 30 });
    expect(listed.map((e) => [e.provider_id, e.reasons.map((r) => r.code)])).toEqual([
      [HARBOUR, ['WATCH_OVERDUE']],
      [QUICKYIELD, ['HELD_AT_CAP']],
    ]);
    expect(listed[0]).toEqual({
      provider_id: HARBOUR,
      name: 'Example Harbour Custody',
      risk_band: 'LOW',
      final_score: 95.54,
      outlook: 'STABLE',
      watch: { direction: 'NEGATIVE', since: AFTER_EXAMPLES, review_by: '2026-08-10' },
      reasons: [
        {
          code: 'WATCH_OVERDUE',
          date: '2026-08-10',
          detail: 'NEGATIVE watch since 2026-08-01 was due for review by 2026-08-10',
        },
      ],
    });
    expect(listed[1]?.reasons).toEqual([
      {
        code: 'HELD_AT_CAP',
        detail:
          'held by hard caps HC-01 (Default or withdrawal freeze) and HC-02 (Under-collateralised) at 34.99, 0.01 points below 35.00, where HIGH starts: no small improvement lifts it while the caps bind',
      },
    ]);
  });

  it('within a year: the band changes and losses of publishability as the evidence ages, soonest first, then by name', async () => {
    clock.set(AFTER_EXAMPLES);
    await publish('worked-example', 'low-band', 'multiple-caps');
    const listed = await watchlist(ctx(), { days: 365 });
    expect(listed.map((e) => [e.provider_id, e.reasons.map((r) => `${r.date ?? 'now'} ${r.code}`)])).toEqual([
      [QUICKYIELD, ['2027-05-23 NOT_PUBLISHABLE', 'now HELD_AT_CAP']],
      [HARBOUR, ['2027-06-01 NOT_PUBLISHABLE', '2027-06-11 BAND_CHANGE']],
      [SATS, ['2027-06-01 BAND_CHANGE', '2027-06-01 NOT_PUBLISHABLE']],
    ]);
    expect(listed[2]?.reasons[0]).toEqual({
      code: 'BAND_CHANGE',
      date: '2027-06-01',
      detail: 'band MEDIUM -> ELEVATED as the evidence ages',
    });
  });
});
