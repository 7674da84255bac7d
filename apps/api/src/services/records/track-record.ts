import {
  type BandsResponse,
  type RiskBand,
  RiskBandSchema,
  TRANSITION_COLUMNS,
  type TransitionColumn,
  type TransitionsResponse,
} from '@svc/contracts';
import type { ServiceContext } from '../context.js';
import { pastInstant } from '../scores/as-of.js';
import { csvRow } from '../shared/csv.js';
import type { Headline } from '../shared/public-snapshot.js';

/**
 * The track record (design section 6, decision 0032): the band transition matrix between two instants and the
 * providers per band at one, from the public lists as of those instants (services/shared/public-snapshot.ts asOf, the same
 * rule as `as_of`: a publication counts from its published_at, a withdrawal from its time on). An instant left out
 * is the present: the list in force now.
 */

const BANDS = RiskBandSchema.options;
const rank = (band: RiskBand) => BANDS.indexOf(band);

/**
 * The headlines in force at a past instant (`as_of` text, checked and named by `path`), or now when absent. Today's
 * date (UTC) means now: its end is still to come, and someone asking for the record "up to today" means the present.
 */
async function inForce(
  ctx: ServiceContext,
  text: string | undefined,
  path: string,
): Promise<{ at: string; headlines: readonly Headline[] }> {
  if (text === undefined || text === ctx.clock.now().toISOString().slice(0, 10)) {
    const at = ctx.clock.now().toISOString();
    return { at, headlines: (await ctx.snapshot.get()).headlines };
  }
  const at = pastInstant(ctx, text, path);
  return { at, headlines: (await ctx.snapshot.asOf(at)).headlines };
}

/**
 * `count / total` rounded half up to 4 decimal places, in integers so that no binary fraction decides a
 * rounding: floor((2 · count · 10⁴ + total) / (2 · total)) / 10⁴. Zero when the total is zero.
 */
export function shareOf(count: number, total: number): number {
  if (total === 0) return 0;
  return Math.floor((2 * count * 10_000 + total) / (2 * total)) / 10_000;
}

const emptyRow = (): Record<TransitionColumn, number> =>
  Object.fromEntries(TRANSITION_COLUMNS.map((c) => [c, 0])) as Record<TransitionColumn, number>;

/**
 * The transition matrix: every provider rated at `from`, by its band then, against its band at `to` or WITHDRAWN
 * when it had no rating in force then. Providers rated at `to` but not at `from` are counted apart (`rated_since`).
 */
export async function transitionMatrix(
  ctx: ServiceContext,
  input: { from: string; to?: string | undefined },
): Promise<TransitionsResponse> {
  const start = await inForce(ctx, input.from, 'query.from');
  const end = await inForce(ctx, input.to, 'query.to');
  const bandAtEnd = new Map(end.headlines.map((h) => [h.id, h.risk_band]));
  const counts = new Map<RiskBand, Record<TransitionColumn, number>>(BANDS.map((b) => [b, emptyRow()]));
  const summary = { upgraded: 0, downgraded: 0, unchanged: 0, withdrawn: 0 };
  const ratedAtStart = new Set<string>();
  for (const h of start.headlines) {
    ratedAtStart.add(h.id);
    const then = bandAtEnd.get(h.id);
    const row = counts.get(h.risk_band) as Record<TransitionColumn, number>;
    row[then ?? 'WITHDRAWN'] += 1;
    if (then === undefined) summary.withdrawn += 1;
    else if (rank(then) < rank(h.risk_band)) summary.upgraded += 1;
    else if (rank(then) > rank(h.risk_band)) summary.downgraded += 1;
    else summary.unchanged += 1;
  }
  const rows = BANDS.map((band) => {
    const row = counts.get(band) as Record<TransitionColumn, number>;
    const total = TRANSITION_COLUMNS.reduce((sum, c) => sum + row[c], 0);
    const shares = Object.fromEntries(TRANSITION_COLUMNS.map((c) => [c, shareOf(row[c], total)])) as Record<
      TransitionColumn,
      number
    >;
    return { band, total, counts: row, shares };
  });
  return {
    from: start.at,
    to: end.at,
    columns: [...TRANSITION_COLUMNS],
    rows,
    summary: {
      rated_at_from: start.headlines.length,
      ...summary,
      rated_since: end.headlines.filter((h) => !ratedAtStart.has(h.id)).length,
    },
  };
}

/** Providers per band at `as_of` (the present when absent). */
export async function bandCounts(ctx: ServiceContext, input: { asOf?: string | undefined }): Promise<BandsResponse> {
  const { at, headlines } = await inForce(ctx, input.asOf, 'query.as_of');
  const count = new Map<RiskBand, number>(BANDS.map((b) => [b, 0]));
  for (const h of headlines) count.set(h.risk_band, (count.get(h.risk_band) ?? 0) + 1);
  const total = headlines.length;
  return {
    as_of: at,
    total,
    bands: BANDS.map((band) => ({ band, count: count.get(band) ?? 0, share: shareOf(count.get(band) ?? 0, total) })),
  };
}

/** The matrix as CSV: one row per band at `from`, its counts then its shares (4 places). */
export function transitionsCsv(matrix: TransitionsResponse): string {
  const head = ['from', 'to', 'band', 'total', ...TRANSITION_COLUMNS, ...TRANSITION_COLUMNS.map((c) => `share_${c}`)];
  return [
    csvRow(head),
    ...matrix.rows.map((r) =>
      csvRow([
        matrix.from,
        matrix.to,
        r.band,
        r.total,
        ...TRANSITION_COLUMNS.map((c) => r.counts[c]),
        ...TRANSITION_COLUMNS.map((c) => r.shares[c].toFixed(4)),
      ]),
    ),
  ].join('');
}

/** The band counts as CSV: one row per band. */
export function bandsCsv(counts: BandsResponse): string {
  return [
    csvRow(['as_of', 'band', 'count', 'share']),
    ...counts.bands.map((b) => csvRow([counts.as_of, b.band, b.count, b.share.toFixed(4)])),
  ].join('');
}
