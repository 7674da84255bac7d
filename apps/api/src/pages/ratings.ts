import {
  type Outlook,
  type PlannerType,
  PlannerTypeSchema,
  type RatingAction,
  type RiskBand,
  RiskBandSchema,
} from '@svc/contracts';
import { showControls } from '@svc/methodology';
import type { ProviderView } from '../services/provider-page.js';
import type { Headline } from '../services/public-snapshot.js';
import { type BandFloor, type HistoryPoint, scoreHistoryChart } from './chart.js';
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
}

const when = (iso: string) => html`<time datetime="${iso}">${iso}</time>`;
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

function watchMark(watch: Headline['watch']): SafeHtml {
  if (watch === null) return html`<span class="muted">none</span>`;
  return html`<strong>On watch ${watch.direction}</strong> <span class="muted">(review by ${watch.review_by})</span>`;
}

/** The page's address with this filter (the other parameter kept). */
function filterHref(filter: RatingsFilter): string {
  const params = new URLSearchParams();
  if (filter.planner_type) params.set('planner_type', filter.planner_type);
  if (filter.band) params.set('band', filter.band);
  const query = params.toString();
  return query ? `/?${query}` : '/';
}

function filterLinks<K extends keyof RatingsFilter>(
  label: string,
  key: K,
  values: readonly NonNullable<RatingsFilter[K]>[],
  filter: RatingsFilter,
): SafeHtml {
  const link = (value: RatingsFilter[K], text: string) =>
    filter[key] === value
      ? html`<strong aria-current="page">${text}</strong>`
      : html`<a href="${filterHref({ ...filter, [key]: value })}">${text}</a>`;
  return html`<p class="filters">${label}: ${link(undefined, 'all')}${values.map(
    (v) => html` · ${link(v, String(v))}`,
  )}</p>\n`;
}

/** The ratings page: every current public indicator (or those of the filter), with links to each provider's page. */
export function ratingsPage(view: RatingsView): string {
  const { filter } = view;
  const rows = view.headlines.filter(
    (h) =>
      (filter.planner_type === undefined || h.planner_type === filter.planner_type) &&
      (filter.band === undefined || h.risk_band === filter.band),
  );
  const freshness =
    view.latestScoredAt === null || view.ageSeconds === null
      ? html`No indicator is published yet.`
      : html`Newest evaluation: ${onDay(view.latestScoredAt)} (${ageWords(view.ageSeconds)} ago).`;
  const table =
    rows.length === 0
      ? html`<p class="note">No current Risk Indicator matches this filter. <a href="/">Show all</a>.</p>\n`
      : html`<div class="wide"><table class="ratings"><thead><tr><th>Provider</th><th>Planner type</th><th>Subtype</th><th>Score</th><th>Band</th><th>Outlook</th><th>Watch</th></tr></thead><tbody>
${rows.map(
  (h) =>
    html`<tr><td><a href="/providers/${h.id}">${showControls(h.name)}</a></td><td>${h.planner_type}</td><td>${showControls(h.provider_subtype)}</td><td>${h.final_score.toFixed(2)}</td><td>${badge(h.risk_band)}</td><td>${outlookMark(h.outlook)}</td><td>${watchMark(h.watch)}</td></tr>\n`,
)}</tbody></table></div>\n`;
  const body = html`<h1>Risk Indicators</h1>
<p>Current Risk Indicators of the covered digital-credit providers, from lowest risk (LOW) to highest (SEVERE); the
score runs from 0 to 100, higher meaning lower risk. Framework in force: <a href="/methodology">${view.frameworkVersion}</a>.
${freshness}</p>
${filterLinks('Planner type', 'planner_type', PLANNER_TYPES, filter)}${filterLinks('Band', 'band', BANDS, filter)}<p class="muted">${rows.length} of ${view.headlines.length} providers.</p>
${table}<h2>Use the data</h2>
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
  return page({ title: `Risk Indicators${suffix}: Risk Indicator Scoring Service` }, body);
}

const scoreOf = (n: number | null) => (n === null ? '' : n.toFixed(2));

function change(previous: string | null, next: string | null, show: (v: string) => SafeHtml | string): SafeHtml {
  if (previous === null && next === null) return html`<span class="muted">none</span>`;
  if (previous === null) return html`${show(next ?? '')}`;
  if (next === null) return html`${show(previous)} → <span class="muted">withdrawn</span>`;
  return previous === next ? html`${show(next)}` : html`${show(previous)} → ${show(next)}`;
}

function actionRow(a: RatingAction): SafeHtml {
  const rationale = a.rationale === null ? html`<span class="muted">none</span>` : showControls(a.rationale);
  return html`<tr><td>${when(a.effective_at)}</td><td>${a.type}</td><td>${change(a.previous_band, a.new_band, badge)}</td><td>${change(
    a.previous_score === null ? null : scoreOf(a.previous_score),
    a.new_score === null ? null : scoreOf(a.new_score),
    (s) => s,
  )}</td><td>${outlookMark(a.outlook)}</td><td>${watchMark(a.watch)}</td><td>${rationale}</td><td><a href="/verify/${a.risk_indicator_id}"><code>${a.risk_indicator_id}</code></a></td></tr>\n`;
}

/** A provider's page: its current public indicator, outlook and watch, its rating actions and verification pages. */
export function providerPage(view: ProviderView, bands: readonly BandFloor[], until: string): string {
  const { headline, current, actions } = view;
  const name = showControls(headline?.name ?? actions[0]?.provider_name ?? '');
  const standing =
    headline === null
      ? html`<p class="note withdrawn"><strong>Withdrawn.</strong> Coverage of ${name} is withdrawn: no Risk Indicator is
in force. Its record stays below.</p>\n`
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
${current ? html`<p>${showControls(current.indicator.svc_decision_object.summary)}</p>\n` : ''}`;
  const actionsTable =
    actions.length === 0
      ? html`<p class="muted">No rating action is recorded yet.</p>\n`
      : html`<div class="wide"><table class="actions"><thead><tr><th>Effective</th><th>Action</th><th>Band</th><th>Score</th><th>Outlook</th><th>Watch</th><th>Rationale</th><th>Indicator</th></tr></thead><tbody>
${actions.map(actionRow)}</tbody></table></div>\n`;
  const body = html`<p><a href="/">All Risk Indicators</a></p>
<h1>${name}</h1>
${standing}${historySection(name, actions, bands, until)}<h2>Rating actions</h2>
<p class="muted">Newest first. A publication's reasons are its indicator's decision object, on its verification page;
an analyst action's are its rationale.</p>
${actionsTable}<h2>Verification pages</h2>
<p>Each indicator published for ${name}, newest first, with its figures, hashes and how to reproduce it:</p>
<ul>
${view.publications.map((id) => html`<li><a href="/verify/${id}"><code>${id}</code></a></li>\n`)}</ul>
`;
  return page({ title: `${name}: Risk Indicator Scoring Service`, stylesheets: ['/assets/chart.css'] }, body);
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
framework in force; dashed, the score in force since the last action, to ${until.slice(0, 10)}.</figcaption>
</figure>
<details><summary>The chart's data as a table</summary>
<table class="history"><thead><tr><th>Effective</th><th>Action</th><th>Score</th><th>Band</th></tr></thead><tbody>
${rows}</tbody></table>
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

/** The answer for a provider that is not covered. */
export function providerNotFoundPage(id: string): string {
  const body = html`<h1>No such provider</h1>
<p class="note error">No Risk Indicator was ever published for provider <code>${id}</code>.</p>
<p>See <a href="/">the Risk Indicators</a> for the providers covered, or ask for coverage
(<code>POST /api/public/score-request</code>, in the <a href="/docs">API reference</a>).</p>
`;
  return page({ title: 'No such provider' }, body);
}
