import { asOfProblem, PlannerTypeSchema, RiskBandSchema, UuidSchema } from '@svc/contracts';
import { showControls } from '@svc/methodology';
import type { Request } from 'express';
import {
  badRequestPage,
  providerNotFoundPage,
  providerPage,
  type RatingsFilter,
  ratingsPage,
} from '../../../pages/ratings.js';
import { unavailablePage } from '../../../pages/verify.js';
import { frameworkInForce } from '../../../services/frameworks/frameworks.js';
import { servableInstant } from '../../../services/scores/as-of.js';
import { providerView } from '../../../services/scores/provider-page.js';
import { contextFor } from '../../../services/services.js';
import { ageSeconds, newestScoredAt } from '../../../services/shared/public-snapshot.js';
import { definePage, htmlReply, PageRefusal, type PageReply } from '../../page.js';
import { siteUrlOf } from '../../problem.js';
import { FORM_PAGE_CSP, PAGE_CSP } from '../../site-policy.js';

/** The ratings page and a provider's page, now or as of an instant. */

/** What the pages show while the store does not answer: try again shortly. */
export const unavailable = (): PageReply => htmlReply(503, unavailablePage(), PAGE_CSP, 'no-store');

const refused = (problem: string) => new PageRefusal(htmlReply(400, badRequestPage(problem), PAGE_CSP, 'no-store'));

export const ratings = definePage({
  path: '/',
  parse(req, services) {
    const filter = ratingsFilterOf(req.query);
    if (typeof filter === 'string') throw refused(filter);
    return { filter, asOf: asOfOf(req.query, services.clock.now()) };
  },
  async handle({ params: { filter, asOf }, req, services }) {
    const headlines =
      asOf === null ? await services.snapshot.headlines() : (await services.snapshot.asOf(asOf)).headlines;
    const latest = newestScoredAt(headlines);
    const now = services.clock.now();
    const body = ratingsPage({
      headlines,
      filter,
      frameworkVersion: (await frameworkInForce(services, onDayOf(asOf))).definition.framework_version,
      latestScoredAt: latest,
      ageSeconds: ageSeconds(latest, asOf === null ? now : new Date(asOf)),
      siteUrl: siteUrlOf(req),
      asOf,
      now: now.toISOString(),
    });
    // As fresh as the public list's snapshot: a publication shows within a minute.
    return htmlReply(200, body, FORM_PAGE_CSP, 'public, max-age=60');
  },
  unavailable,
});

export const provider = definePage({
  path: '/providers/:id',
  parse(req, services) {
    const id = String(req.params.id ?? '');
    if (!UuidSchema.safeParse(id).success) throw refused(`${shown(id)} is not a provider id (a UUID).`);
    return { id, asOf: asOfOf(req.query, services.clock.now()) };
  },
  async handle({ params: { id, asOf }, req, services }) {
    const view = await providerView(contextFor(services, { kind: 'public', client: req.ip ?? 'unknown' }), {
      providerId: id,
      asOf: asOf ?? undefined,
    });
    if (!view) return htmlReply(404, providerNotFoundPage(id, asOf), PAGE_CSP, 'no-store');
    const bands = (await frameworkInForce(services, onDayOf(asOf))).definition.bands.map((b) => ({
      band: b.band,
      min: Number(b.min),
    }));
    const body = providerPage(view, bands, { asOf, now: services.clock.now().toISOString() });
    return htmlReply(200, body, FORM_PAGE_CSP, 'public, max-age=60');
  },
  unavailable,
});

/** A value echoed on an error page: control characters made visible, cut at 80 characters. */
export function shown(value: string): string {
  const visible = showControls(value);
  return `"${visible.length > 80 ? `${visible.slice(0, 80)}…` : visible}"`;
}

/**
 * The point in time of a page's `as_of` (as the API reads it: a date is the end of that day, UTC): null for now
 * (absent, or empty as the page's form sends an empty date), else the instant as stored; refused with what is wrong.
 */
function asOfOf(query: Request['query'], now: Date): string | null {
  const value = query.as_of;
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw refused('as_of is one date or timestamp; got more than one value.');
  const instant = servableInstant(value, now);
  if (instant !== null) return instant;
  throw refused(`as_of ${asOfProblem(value, now) ?? 'is not a date or timestamp'}; got ${shown(value)}.`);
}

/** The day whose framework in force a page shows: today, or the as_of instant's. */
const onDayOf = (asOf: string | null) => (asOf === null ? {} : { on: asOf.slice(0, 10) });

/**
 * The ratings page's filters from its query, or what is wrong with one (a value outside its set, or given twice).
 * Other parameters are not filters and are let be: links to a page for people carry tracking parameters
 * (`utm_source`, `fbclid`), and refusing them would break a shared link; the API's strict queries are for programs.
 */
function ratingsFilterOf(query: Request['query']): RatingsFilter | string {
  const filter: RatingsFilter = {};
  for (const [name, value] of Object.entries(query)) {
    const schema = name === 'planner_type' ? PlannerTypeSchema : name === 'band' ? RiskBandSchema : null;
    if (schema === null) continue;
    const parsed = typeof value === 'string' ? schema.safeParse(value) : null;
    if (!parsed?.success) {
      const given = typeof value === 'string' ? shown(value) : 'more than one value';
      return `${name} is one of ${schema.options.join(', ')}; got ${given}.`;
    }
    if (name === 'planner_type') filter.planner_type = parsed.data as RatingsFilter['planner_type'];
    else filter.band = parsed.data as RatingsFilter['band'];
  }
  return filter;
}
