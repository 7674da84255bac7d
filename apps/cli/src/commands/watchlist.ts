import { EVIDENCE_SCHEDULE_MAX_DAYS } from '@svc/contracts';
import { type Command, InvalidArgumentError } from 'commander';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

/**
 * `svc watchlist`: the ratings in force that need the risk team's attention, as the API's `watchlist` verb reads
 * them (DESIGN-record sections 4 and 6). A report, so it exits 0 whether or not the list is empty; it writes nothing.
 */

export type { WatchlistCode, WatchlistEntry, WatchlistReason } from '@svc/api';

/** The verb's WATCHLIST_MAX_DAYS (as far as an evidence schedule looks), checked as the option is read. */
const MAX_DAYS = EVIDENCE_SCHEDULE_MAX_DAYS;
const DEFAULT_DAYS = 30;

interface WatchlistOptions {
  json?: boolean;
  days: number;
}

export function registerWatchlist(program: Command, env: Environment): void {
  withOutputOptions(
    program
      .command('watchlist')
      .description(
        'ratings in force that need a look: a watch past its review date, a band change or loss of publishability within --days as the evidence ages (no new evidence), or a final score within 1.00 point of an edge of its band (one held below the band above by a binding hard cap is listed as held at the cap, not near the edge); soonest date first',
      )
      .option('--days <n>', `how many days ahead to look, 1 to ${MAX_DAYS}`, daysOption, DEFAULT_DAYS),
  ).action(async (options: WatchlistOptions) => {
    const ops = await operations(env);
    const entries = await withOperator(ops, (ctx) => ops.api.watchlist(ctx, { days: options.days }));
    if (options.json) {
      printJson(entries);
      return;
    }
    if (entries.length === 0) {
      printLines(
        `nothing on the watchlist: no overdue watch, no band change or loss of publishability within ${options.days} days, no score within 1.00 of a band edge`,
      );
      return;
    }
    printLines(
      `${entries.length} ${entries.length === 1 ? 'rating' : 'ratings'} on the watchlist (looking ${options.days} days ahead):`,
      renderTable(
        ['Provider', 'Band', 'Score', 'Outlook', 'Watch', 'Why'],
        entries.map((e) => [
          [e.name, e.provider_id],
          e.risk_band,
          e.final_score.toFixed(2),
          e.outlook,
          e.watch === null ? '-' : `${e.watch.direction}, review by ${e.watch.review_by}`,
          e.reasons.map((r) => `${r.date ?? 'now'} ${r.code}: ${r.detail}`),
        ]),
      ),
      ...(entries.some((e) => e.reasons.some((r) => r.code === 'HELD_AT_CAP'))
        ? [
            'HELD_AT_CAP: just below the band above, but held there by a binding hard cap, so not counted as near the band edge',
          ]
        : []),
    );
  });
}

/** --days: a whole number 1 to 730 written in decimal digits. */
function daysOption(value: string): number {
  const days = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 1 && days <= MAX_DAYS)) {
    throw new InvalidArgumentError(`must be a whole number of days from 1 to ${MAX_DAYS}`);
  }
  return days;
}
