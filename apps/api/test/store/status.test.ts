import { describe, expect, it } from 'vitest';
import { statusFigures } from '../../src/services/operations/status.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { approveRatingActions, proposeWatch } from '../../src/services/rating-actions/rating-actions.js';
import { openStore } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf, TEST_FRESHNESS } from '../support/context.js';
import { exampleDocument, framework } from '../support/documents.js';
import { engines, freshLocation, useFreshStore } from '../support/stores.js';

/**
 * The status's figures of the record (issue 33: the verb behind GET /api/v1/status, which counted the watches
 * itself): the framework in force, the freshness and the watches from the public snapshot, and a store that does not
 * answer reported as unavailable, never as an error.
 */
describe.each(engines)('statusFigures on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);
  const as = (by?: string) => ctxOf(store, by === undefined ? { clock } : { clock, by });
  const TIMEOUT = { timeoutMs: 5000 };
  // The context's freshness policy, which the status shows whatever the store's state (decision 0053).
  const policy = {
    max_evaluation_age_days: TEST_FRESHNESS.maxEvaluationAgeDays,
    review_cadence_days: { default: 180, by_planner_type: { btc: 180, fiat: 180, stablecoin: 180 } },
  };

  it('an empty record: the store answers, the built-in framework is in force, nothing is fresh, no watch', async () => {
    clock.set(AFTER_EXAMPLES);
    expect(await statusFigures(as(), TIMEOUT)).toEqual({
      store: 'ok',
      framework_version: 'DCRF v1.0',
      data_freshness: { latest_scored_at: null, age_seconds: null },
      watches: { on_watch: 0, overdue: 0 },
      policy,
    });
  });

  it('counts the watches in force, and those past their review date by the clock (before today, UTC)', async () => {
    clock.set(AFTER_EXAMPLES);
    const worked = exampleDocument('worked-example');
    const low = exampleDocument('low-band');
    for (const document of [worked, low]) {
      await publishIndicator(as('Pat Approver'), { document, framework, approvedAt: clock.now().toISOString() });
    }
    const proposal = await proposeWatch(as('Ann Analyst'), {
      providerId: worked.provider.id,
      direction: 'NEGATIVE',
      reviewBy: '2026-08-15',
      rationale: 'a custodian under review',
    });
    await approveRatingActions(as('Pat Approver'), { ids: [proposal.id] });

    const before = await statusFigures(as(), TIMEOUT);
    expect(before).toEqual({
      store: 'ok',
      framework_version: 'DCRF v1.0',
      // The newest evaluation among those in force (the low-band example's), as the public list shows it.
      data_freshness: {
        latest_scored_at: '2026-07-15T00:00:00Z',
        age_seconds: (Date.parse(AFTER_EXAMPLES) - Date.parse('2026-07-15T00:00:00Z')) / 1000,
      },
      watches: { on_watch: 1, overdue: 0 },
      policy,
    });
    // On its review date the watch is due, not yet overdue; the day after it is.
    clock.set('2026-08-15T23:59:59.000Z');
    expect((await statusFigures(as(), TIMEOUT)).watches).toEqual({ on_watch: 1, overdue: 0 });
    clock.set('2026-08-16T00:00:00.000Z');
    expect((await statusFigures(as(), TIMEOUT)).watches).toEqual({ on_watch: 1, overdue: 1 });
  });

  it('a store that does not answer is unavailable: no freshness, no watches, the framework as last read', async () => {
    const place = await freshLocation(engine);
    const closed = openStore(place.location);
    await closed.close();
    try {
      expect(await statusFigures(ctxOf(closed, { clock }), TIMEOUT)).toEqual({
        store: 'unavailable',
        framework_version: 'DCRF v1.0',
        data_freshness: { latest_scored_at: null, age_seconds: null },
        watches: null,
        policy,
      });
    } finally {
      await place.cleanup();
    }
  });
});
