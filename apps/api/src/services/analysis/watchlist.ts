import {
  DecisionObjectSchema,
  EVIDENCE_SCHEDULE_MAX_DAYS,
  type Outlook,
  type RiskIndicatorResponse,
  type Watch,
} from '@svc/contracts';
import { type Framework, frameworkVersionKey } from '@svc/methodology';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { knownFramework } from '../frameworks/frameworks.js';
import { currentIndicator } from '../scores/scores.js';
import { evidenceSchedule } from './evidence-schedule.js';

/**
 * The watchlist: the ratings in force that need the risk team's attention (DESIGN-record sections 4 and 6), read
 * from the record and its evidence schedules; it writes nothing. `svc watchlist` prints it.
 */

/**
 * Why a rating is on the watchlist: a closed set. HELD_AT_CAP is a score just below the band above held there by a
 * binding hard cap: not near the edge as NEAR_BAND_EDGE means it, since no small improvement lifts it.
 */
export type WatchlistCode = 'WATCH_OVERDUE' | 'BAND_CHANGE' | 'NOT_PUBLISHABLE' | 'NEAR_BAND_EDGE' | 'HELD_AT_CAP';

export interface WatchlistReason {
  code: WatchlistCode;
  /** The date it is about (YYYY-MM-DD): the review date passed, the day the band changes or publishability ends. */
  date?: string;
  detail: string;
}

export interface WatchlistEntry {
  provider_id: string;
  name: string;
  risk_band: string;
  final_score: number;
  outlook: Outlook;
  watch: Watch;
  reasons: WatchlistReason[];
}

/** A hard cap that fired, as the decision object of the indicator in force gives it. */
type HardCapFired = RiskIndicatorResponse['svc_decision_object']['hard_caps_fired'][number];

/** How close (in points) a final score must be to an edge of its band to be listed. */
const EDGE_POINTS = 1;
/** The longest look ahead: as far as an evidence schedule goes. */
export const WATCHLIST_MAX_DAYS = EVIDENCE_SCHEDULE_MAX_DAYS;

/**
 * Every provider with an indicator in force that has a reason to be listed within `days` (1 to WATCHLIST_MAX_DAYS)
 * of today: a watch past its review date, a band change or loss of publishability as the evidence ages, a score
 * near an edge of its band or held below the band above by a binding cap. The soonest dated reason first (an
 * overdue watch's date is its review date, in the past), then those with only undated reasons, by name, those only
 * held at a cap last. Each rating's bands are those of the framework it was computed under.
 */
export async function watchlist(ctx: ServiceContext, input: { days: number }): Promise<WatchlistEntry[]> {
  const { days } = input;
  if (!Number.isInteger(days) || days < 1 || days > WATCHLIST_MAX_DAYS) {
    const message = `must be a whole number of days from 1 to ${WATCHLIST_MAX_DAYS}`;
    throw new ServiceError('invalid_value', `days ${message}`, [{ path: 'days', message }]);
  }
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const entries: WatchlistEntry[] = [];
  for (const h of await ctx.snapshot.headlines()) {
    const reasons: WatchlistReason[] = [];
    if (h.watch !== null && h.watch.review_by < today) {
      reasons.push({
        code: 'WATCH_OVERDUE',
        date: h.watch.review_by,
        detail: `${h.watch.direction} watch since ${h.watch.since.slice(0, 10)} was due for review by ${h.watch.review_by}`,
      });
    }
    const schedule = await evidenceSchedule(ctx, { providerId: h.id, days });
    if (schedule.first_band_change) {
      const { date, from, to } = schedule.first_band_change;
      reasons.push({ code: 'BAND_CHANGE', date, detail: `band ${from} -> ${to} as the evidence ages` });
    }
    if (!schedule.current.publishable) {
      reasons.push({
        code: 'NOT_PUBLISHABLE',
        date: schedule.start_date,
        detail: `confidence ${schedule.current.confidence} is below the publication threshold on its evidence already`,
      });
    } else if (schedule.not_publishable_from !== null) {
      reasons.push({
        code: 'NOT_PUBLISHABLE',
        date: schedule.not_publishable_from,
        detail: 'confidence falls below the publication threshold as the evidence ages',
      });
    }
    const indicator = JSON.parse(
      await currentIndicator(ctx, { providerId: h.id, fields: ['svc_decision_object'] }),
    ) as { svc_decision_object: unknown };
    const binding = DecisionObjectSchema.parse(indicator.svc_decision_object).hard_caps_fired.filter((c) => c.binding);
    const framework = frameworkOf(ctx, schedule.framework_version);
    reasons.push(...edgeReasons(framework, h.risk_band, h.final_score, binding));
    if (reasons.length === 0) continue;
    reasons.sort((a, b) => byDate(a.date, b.date));
    entries.push({
      provider_id: h.id,
      name: h.name,
      risk_band: h.risk_band,
      final_score: h.final_score,
      outlook: h.outlook,
      watch: h.watch,
      reasons,
    });
  }
  return entries.sort(
    (a, b) =>
      byDate(a.reasons[0]?.date, b.reasons[0]?.date) ||
      heldOnly(a) - heldOnly(b) ||
      compare(a.name, b.name) ||
      compare(a.provider_id, b.provider_id),
  );
}

/** The framework an indicator was computed under, as its package names it ("DCRF v1.0"): one this process knows. */
function frameworkOf(ctx: ServiceContext, frameworkVersion: string): Framework {
  const framework = knownFramework(ctx, frameworkVersionKey(frameworkVersion));
  // The evidence schedule has scored the indicator's inputs under it already.
  if (!framework) throw new Error(`${frameworkVersion} is not a framework this process knows`);
  return framework;
}

/**
 * A score within 1.00 point of an edge of its band that another band lies beyond (the framework's band minimums,
 * highest first): above its own band's minimum, or below the minimum of the band above. In hundredths, exactly. A
 * score held by binding caps (`binding`) cannot rise by a small improvement, so below the band above it is listed as
 * held at the cap instead; it can still fall, so its lower edge counts as any score's.
 */
function edgeReasons(
  framework: Framework,
  band: string,
  score: number,
  binding: readonly HardCapFired[],
): WatchlistReason[] {
  const { bands } = framework.definition;
  const at = bands.findIndex((b) => b.band === band);
  const own = bands[at];
  if (!own) return [];
  const cents = Math.round(score * 100);
  const reasons: WatchlistReason[] = [];
  const below = bands[at + 1];
  const floor = Math.round(Number(own.min) * 100);
  if (below && cents - floor <= EDGE_POINTS * 100) {
    reasons.push({
      code: 'NEAR_BAND_EDGE',
      detail: `${score.toFixed(2)} is ${points(cents - floor)} above ${own.min}, the lower edge of ${band} (${below.band} below it)`,
    });
  }
  const above = bands[at - 1];
  if (above) {
    const ceiling = Math.round(Number(above.min) * 100);
    if (ceiling - cents <= EDGE_POINTS * 100) {
      const gap = `${points(ceiling - cents)} below ${above.min}, where ${above.band} starts`;
      reasons.push(
        binding.length === 0
          ? { code: 'NEAR_BAND_EDGE', detail: `${score.toFixed(2)} is ${gap}` }
          : { code: 'HELD_AT_CAP', detail: `${heldBy(binding)} at ${score.toFixed(2)}, ${gap}: ${noLift(binding)}` },
      );
    }
  }
  return reasons;
}

/** "held by hard cap HC-05 (Unregulated high yield)", "held by hard caps HC-04 (…) and HC-06 (…)". */
function heldBy(caps: readonly HardCapFired[]): string {
  const named = caps.map((c) => `${c.cap_id} (${c.label})`);
  const list = named.length === 1 ? named.join('') : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return `held by hard cap${caps.length === 1 ? '' : 's'} ${list}`;
}

const noLift = (caps: readonly HardCapFired[]) =>
  `no small improvement lifts it while ${caps.length === 1 ? 'the cap binds' : 'the caps bind'}`;

function points(cents: number): string {
  return `${(cents / 100).toFixed(2)} ${cents === 100 ? 'point' : 'points'}`;
}

/** 1 for an entry listed only as held at a cap (the least to do: after the others of its date), else 0. */
const heldOnly = (e: WatchlistEntry) => (e.reasons.every((r) => r.code === 'HELD_AT_CAP') ? 1 : 0);

/** Dated before undated, then by date (YYYY-MM-DD sorts as text). */
function byDate(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return (a === undefined ? 1 : 0) - (b === undefined ? 1 : 0);
  return compare(a, b);
}

/** Code-unit order, never locale order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
