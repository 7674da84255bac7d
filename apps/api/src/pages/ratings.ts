import {
  AS_OF_EARLIEST,
  type Outlook,
  type PlannerType,
  PlannerTypeSchema,
  type RatingAction,
  type RiskBand,
  RiskBandSchema,
} from '@svc/contracts';
import { showControls } from '@svc/methodology';
import { bothWaysWords } from '../services/analysis/factor-words.js';
import type { ProviderView } from '../services/scores/provider-page.js';
import type { Headline } from '../services/shared/public-snapshot.js';
import { type BandFloor, type HistoryPoint, historyMarksNote, scoreHistoryChart } from './chart.js';
import { html, page, type SafeHtml } from './html.js';

/** The filters of the ratings page: a planner type and a band, each optional. */
export interface RatingsFilter {
  planner_type?: PlannerType | undefined;
  band?: RiskBand | undefined;
}

export const PLANNER_TYPES = PlannerTypeSchema.options;
export const BANDS = RiskBandSchema.options;

/** What the ratings page shows besides the headlines: the framework in force and the data freshness (as /status). */
export interface RatingsView {
  headlines: readonly Headline[];
  filter: RatingsFilter;
  frameworkVersion: string;
  latestScoredAt: string | null;
  ageSeconds: number | null;
  siteUrl: string;
  /** The page's point in time: null for now, else the as_of instant (ISO 8601 UTC) the page shows the record at. */
  asOf: string | null;
  /** Now by the service's clock (the as_of form offers dates up to the day before). */
  now: string;
}

const when = (iso: string) => html`<time datetime="${iso}">${iso}</time>`;
/** An instant to the minute (UTC): the date and the time each kept whole, the time under the date when room is short. */
const atMinute = (iso: string) =>
  html`<time datetime="${iso}"><span class="nowrap">${iso.slice(0, 10)}</span> <span class="nowrap">${iso.slice(11, 16)}</span></time>`;
const onDay = (iso: string) => html`<time datetime="${iso.slice(0, 10)}">${iso.slice(0, 10)}</time>`;
const badge = (band: string) => html`<span class="band band-${band}">${band}</span>`;

/** An age in whole days, or hours under a day. */
function ageWords(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  if (days >= 1) return `${days} day${days === 1 ? '' : 's'}`;
  const hours = Math.floor(seconds / 3600);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

const outlookMark = (outlook: Outlook) =>
  outlook === 'STABLE' ? html`<span class="muted">STABLE</span>` : html`<strong>${outlook}</strong>`;

/** A watch, or `none` (under a heading that says Watch; in a table's cell, `no watch`, which a phone's card shows alone). */
function watchMark(watch: Headline['watch'], none = 'none'): SafeHtml {
  if (watch === null) return html`<span class="muted">${none}</span>`;
  return html`<strong>On watch ${watch.direction}</strong> <span class="muted">(review by ${watch.review_by})</span>`;
}

/** An address with its query: the parameters given a value, in this order. */
function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** An instant as a link's as_of: the end of a day (UTC) as that date, which means the same and reads better. */
const asOfParam = (asOf: string | null) => (asOf?.endsWith('T23:59:59.999Z') ? asOf.slice(0, 10) : asOf);

/** The ratings page's address with this filter (the other parameter and the point in time kept). */
function filterHref(filter: RatingsFilter, asOf: string | null): string {
  return withQuery('/', { planner_type: filter.planner_type, band: filter.band, as_of: asOfParam(asOf) });
}

/** A provider page's address at the same point in time. */
const providerHref = (id: string, asOf: string | null) => withQuery(`/providers/${id}`, { as_of: asOfParam(asOf) });

const dayBefore = (iso: string) => new Date(Date.parse(iso) - 86_400_000).toISOString().slice(0, 10);

/**
 * The point in time a page shows, and a form to choose another: a date (the record at the end of that day, UTC, as the
 * API reads `as_of`), from the day the record starts to yesterday; `hidden` are the page's other parameters, kept.
 * Without JavaScript, the browser sends `?as_of=YYYY-MM-DD`; an empty date means now.
 */
function asOfSection(
  action: string,
  asOf: string | null,
  now: string,
  hidden: Record<string, string | undefined>,
): SafeHtml {
  const banner =
    asOf === null
      ? ''
      : html`<p class="note as-of"><strong>As of ${when(asOf)}.</strong> The record as it stood then: the indicators,
outlooks and watches in force at that instant, and the actions taken by it. <a href="${withQuery(action, hidden)}">See it now</a>.</p>
`;
  return html`${banner}<form class="as-of-form" method="get" action="${action}">
${Object.entries(hidden).map(([name, value]) =>
  value
    ? html`<input type="hidden" name="${name}" value="${value}">
`
    : '',
)}<label>The record as it stood at the end of
<input type="date" name="as_of" min="${AS_OF_EARLIEST.slice(0, 10)}" max="${dayBefore(now)}" value="${asOf === null ? '' : asOf.slice(0, 10)}"></label>
<button type="submit">Show</button>
</form>
`;
}

function filterLinks<K extends keyof RatingsFilter>(
  label: string,
  key: K,
  values: readonly NonNullable<RatingsFilter[K]>[],
  filter: RatingsFilter,
  asOf: string | null,
): SafeHtml {
  const link = (value: RatingsFilter[K], text: string) =>
    filter[key] === value
      ? html`<strong aria-current="page">${text}</strong>`
      : html`<a href="${filterHref({ ...filter, [key]: value }, asOf)}">${text}</a>`;
  return html`<p class="filters">${label}: ${link(undefined, 'all')}${values.map(
    (v) => html` · ${link(v, String(v))}`,
  )}</p>\n`;
}

/**
 * The ratings page: every current public indicator (or those of the filter), with links to each provider's page; with
 * `asOf`, those in force at that instant, the links keeping it.
 */
export function ratingsPage(view: RatingsView): string {
  const { filter, asOf } = view;
  const rows = view.headlines.filter(
    (h) =>
      (filter.planner_type === undefined || h.planner_type === filter.planner_type) &&
      (filter.band === undefined || h.risk_band === filter.band),
  );
  const freshness =
    view.latestScoredAt === null || view.ageSeconds === null
      ? ''
      : html` Newest evaluation: ${onDay(view.latestScoredAt)} (${ageWords(view.ageSeconds)} ${asOf === null ? 'ago' : 'before'}).`;
  const count =
    view.headlines.length === 0
      ? ''
      : html`<p class="muted">${rows.length} of ${view.headlines.length} providers.</p>\n`;
  // Nothing in force at all is said where the table would be, whatever the filter: no filter could match then. The
  // figures come first, after the name; on a phone each row wraps into a card (site.css), so nothing is cut.
  const table =
    view.headlines.length === 0
      ? html`<p class="note">${asOf === null ? 'No Risk Indicator is published yet.' : 'No Risk Indicator was in force then.'}</p>\n`
      : rows.length === 0
        ? html`<p class="note">No ${asOf === null ? 'current ' : ''}Risk Indicator matches this filter. <a href="${filterHref({}, asOf)}">Show all</a>.</p>\n`
        : html`<div class="wide"><table class="ratings"><thead><tr><th>Provider</th><th>Score</th><th>Band</th><th>Outlook</th><th>Watch</th><th>Planner type</th><th>Subtype</th></tr></thead><tbody>
${rows.map(
  (h) =>
    html`<tr><td><a href="${providerHref(h.id, asOf)}">${showControls(h.name)}</a></td><td>${h.final_score.toFixed(2)}</td><td>${badge(h.risk_band)}</td><td>${outlookMark(h.outlook)}</td><td>${watchMark(h.watch, 'no watch')}</td><td>${h.planner_type}</td><td>${showControls(h.provider_subtype)}</td></tr>\n`,
)}</tbody></table></div>\n`;
  const body = html`<h1>Risk Indicators${asOf === null ? '' : html` as of ${onDay(asOf)}`}</h1>
${asOfSection('/', asOf, view.now, { planner_type: filter.planner_type, band: filter.band })}<p>${asOf === null ? 'Current' : 'The'} Risk Indicators of the covered digital-credit providers, by provider name. The
score runs from 0 to 100, higher meaning lower risk; the bands run from LOW (lowest risk) to SEVERE (highest).
Framework in force${asOf === null ? '' : ' then'}: <a href="/methodology">${view.frameworkVersion}</a>.${freshness}</p>
${filterLinks('Planner type', 'planner_type', PLANNER_TYPES, filter, asOf)}${filterLinks('Band', 'band', BANDS, filter, asOf)}${count}${table}<h2>Use the data</h2>
<ul>
<li>The <a href="/docs">API reference</a>: the public list is <code>GET ${view.siteUrl}/api/public/scores</code>, no key needed; <a href="/llms.txt">llms.txt</a> describes the service in short.</li>
<li>The <a href="/methodology">methodology</a>: how every score and band is computed, in full.</li>
<li>Ask for a provider to be covered: <code>POST ${view.siteUrl}/api/public/score-request</code> with the provider's name and
website (see <a href="/docs#/Public/requestScore">requestScore</a>), then follow your request at
<code>GET /api/public/score-request/{request_id}</code>.</li>
</ul>
`;
  const suffix =
    filter.planner_type || filter.band ? ` (${[filter.planner_type, filter.band].filter(Boolean).join(', ')})` : '';
  const at = asOf === null ? '' : ` as of ${asOf.slice(0, 10)}`;
  return page({ title: `Risk Indicators${at}${suffix}: Risk Indicator Scoring Service` }, body);
}

const scoreOf = (n: number | null) => (n === null ? '' : n.toFixed(2));

function change(previous: string | null, next: string | null, show: (v: string) => SafeHtml | string): SafeHtml {
  if (previous === null && next === null) return html`<span class="muted">none</span>`;
  if (previous === null) return html`${show(next ?? '')}`;
  if (next === null) return html`${show(previous)} → <span class="muted">withdrawn</span>`;
  return previous === next ? html`${show(next)}` : html`${show(previous)} → ${show(next)}`;
}

/** A score's move; the arrow kept with the score it leaves, so a narrow column breaks after it, not around it. */
function scoreChange(previous: number | null, next: number | null): SafeHtml {
  if (previous === null || next === null || previous === next) {
    return change(previous === null ? null : scoreOf(previous), next === null ? null : scoreOf(next), (s) => s);
  }
  return html`<span class="nowrap">${scoreOf(previous)} →</span> ${scoreOf(next)}`;
}

function actionRow(a: RatingAction): SafeHtml {
  const rationale = a.rationale === null ? html`<span class="muted">none</span>` : showControls(a.rationale);
  return html`<tr><td>${atMinute(a.effective_at)}</td><td>${a.type}</td><td>${change(a.previous_band, a.new_band, badge)}</td><td>${scoreChange(a.previous_score, a.new_score)}</td><td class="standing">${standingMark(a.outlook, a.watch)}</td><td>${rationale}</td><td><a href="/verify/${a.risk_indicator_id}"><code>${a.risk_indicator_id}</code></a></td></tr>\n`;
}

/** The outlook and the watch an action leaves, one column: each on its line (site.css), side by side on a phone. */
function standingMark(outlook: Outlook, watch: RatingAction['watch']): SafeHtml {
  return html`<span>${outlookMark(outlook)}</span> <span>${watchMark(watch, 'no watch')}</span>`;
}

/** The indicator's summary as published, and what naming a criterion both ways in it means. */
function summaryOf(decision: ProviderCurrentDecision): SafeHtml {
  const bothWays = bothWaysWords(decision);
  return html`<p>${showControls(decision.summary)}</p>
${bothWays === null ? '' : html`<p class="both-ways">${showControls(bothWays)}</p>\n`}`;
}

type ProviderCurrentDecision = NonNullable<ProviderView['current']>['indicator']['svc_decision_object'];

/** When a provider page is read: now, or as of a past instant (then `asOf` is that instant), by the clock's `now`. */
export interface PageTime {
  asOf: string | null;
  now: string;
}

/**
 * A provider's page: its current public indicator, outlook and watch, its rating actions and verification pages; as
 * of a past instant, those in force and taken by then.
 */
export function providerPage(view: ProviderView, bands: readonly BandFloor[], time: PageTime): string {
  const { headline, current, actions } = view;
  const { asOf } = time;
  const name = showControls(headline?.name ?? actions[0]?.provider_name ?? '');
  const id = headline?.id ?? actions[0]?.provider_id ?? '';
  const standing =
    headline === null
      ? html`<p class="note withdrawn"><strong>Withdrawn.</strong> Coverage of ${name} ${asOf === null ? 'is' : 'was'} withdrawn: no Risk Indicator ${asOf === null ? 'is' : 'was'} in force. Its record stays below.</p>\n`
      : html`<div class="headline">
<div><div class="muted">Final score</div><div class="score">${headline.final_score.toFixed(2)}</div></div>
<div><div class="muted">Band</div><div>${badge(headline.risk_band)}</div></div>
${current ? html`<div><div class="muted">Confidence</div><div>${current.indicator.confidence.toFixed(4)}</div></div>\n` : ''}<div><div class="muted">Outlook</div><div>${outlookMark(headline.outlook)}</div></div>
<div><div class="muted">Watch</div><div>${watchMark(headline.watch)}</div></div>
</div>
<dl class="facts">
<dt>Provider</dt><dd>${name} <span class="muted">(${headline.planner_type}, ${showControls(headline.provider_subtype)}; id <code>${headline.id}</code>)</span></dd>
<dt>Scored (evaluation date)</dt><dd>${onDay(headline.scored_at)}</dd>
${
  current
    ? html`<dt>Framework</dt><dd>${current.indicator.framework_version}</dd>
<dt>Published</dt><dd>${when(current.publishedAt)}</dd>
<dt>Verification</dt><dd><a href="/verify/${current.indicator.risk_indicator_id}"><code>${current.indicator.risk_indicator_id}</code></a></dd>
`
    : ''
}</dl>
${current ? summaryOf(current.indicator.svc_decision_object) : ''}`;
  const actionsTable =
    actions.length === 0
      ? html`<p class="muted">No rating action is recorded yet.</p>\n`
      : html`<div class="wide"><table class="actions"><thead><tr><th>Effective (UTC)</th><th>Action</th><th>Band</th><th>Score</th><th>Outlook and watch</th><th class="rationale">Rationale</th><th>Indicator</th></tr></thead><tbody>
${actions.map(actionRow)}</tbody></table></div>\n`;
  const body = html`<p><a href="${filterHref({}, asOf)}">All Risk Indicators${asOf === null ? '' : html` as of ${onDay(asOf)}`}</a></p>
<h1>${name}</h1>
${asOfSection(`/providers/${id}`, asOf, time.now, {})}${standing}${historySection(name, actions, bands, asOf ?? time.now)}<h2>Rating actions</h2>
<p class="muted">Newest first. A publication's reasons are its indicator's decision object, on its verification page;
an analyst action's are its rationale.</p>
${actionsTable}<h2>Verification pages</h2>
<p>Each indicator published for ${name}, newest first, with its figures, hashes and how to reproduce it:</p>
<ul>
${view.publications.map((id) => html`<li><a href="/verify/${id}"><code>${id}</code></a></li>\n`)}</ul>
`;
  const at = asOf === null ? '' : ` as of ${asOf.slice(0, 10)}`;
  return page({ title: `${name}${at}: Risk Indicator Scoring Service`, stylesheets: ['/assets/chart.css'] }, body);
}

/** The score history: the chart, and the same points as a table (for screen readers, and to copy figures from). */
function historySection(
  name: string,
  actions: readonly RatingAction[],
  bands: readonly BandFloor[],
  until: string,
): SafeHtml | string {
  if (actions.length === 0) return '';
  const points: HistoryPoint[] = [...actions]
    .reverse()
    .map((a) => ({ at: a.effective_at, label: a.type, score: a.new_score, band: a.new_band }));
  const rows = points.map(
    (p) =>
      html`<tr><td>${when(p.at)}</td><td>${p.label}</td><td>${scoreOf(p.score)}</td><td>${p.band === null ? html`<span class="muted">withdrawn</span>` : p.band}</td></tr>\n`,
  );
  return html`<h2>Score history</h2>
<figure>
${scoreHistoryChart(name, points, bands, { id: 'history', until })}
<figcaption class="muted">The final score after each rating action (oldest on the left), over the bands of the
framework in force; dashed, the score in force since the last action, to ${until.slice(0, 10)}.${historyMarksNote(points, 'actions')}</figcaption>
</figure>
<details><summary>The chart's data as a table</summary>
<div class="wide"><table class="history"><thead><tr><th>Effective</th><th>Action</th><th>Score</th><th>Band</th></tr></thead><tbody>
${rows}</tbody></table></div>
</details>
`;
}

/** The answer to a page address that cannot be read (bad input): says what was wrong, echoing it escaped. */
export function badRequestPage(message: string): string {
  const body = html`<h1>Bad request</h1>
<p class="note error">${message}</p>
<p>See <a href="/">the Risk Indicators</a> for the filters and the providers covered.</p>
`;
  return page({ title: 'Bad request' }, body);
}

/** The answer for a provider that is not covered (or was not yet, as of `asOf`). */
export function providerNotFoundPage(id: string, asOf: string | null = null): string {
  const body = html`<h1>No such provider</h1>
<p class="note error">${
    asOf === null
      ? html`No Risk Indicator was ever published for provider <code>${id}</code>.`
      : html`No Risk Indicator was published for provider <code>${id}</code> by ${when(asOf)}. <a href="/providers/${id}">See it now</a>.`
  }</p>
<p>See <a href="/">the Risk Indicators</a> for the providers covered, or ask for coverage
(<code>POST /api/public/score-request</code>, in the <a href="/docs">API reference</a>).</p>
`;
  return page({ title: 'No such provider' }, body);
}
