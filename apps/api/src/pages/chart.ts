import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { curveStepAfter, line } from 'd3-shape';
import { html, type SafeHtml } from './html.js';

/**
 * Charts drawn on the server as SVG (d3-scale and d3-shape: pure functions, no DOM). Each chart is drawn twice, in a
 * narrow layout shown below 48rem and a wide one shown from there, so its text stays 11 to 13 px on a 360 px phone and
 * on a 1280 px screen alike (one drawing scaled to both would shrink to 8 px or swell to 20). Each drawing has a
 * `<title>` and a `<desc>`; the hidden one is `display: none`, so assistive technology reads the chart once. The caller
 * adds a table of the same figures.
 */

/** One point of a score history: when, what happened, the score and band in force after it (null: withdrawn). */
export interface HistoryPoint {
  at: string;
  label: string;
  score: number | null;
  band: string | null;
}

/** A framework's bands, best first, each with the lowest score it takes (the last reaches down to 0). */
export interface BandFloor {
  band: string;
  min: number;
}

/** A drawing's box in SVG units (its text is 12 units) and how many date ticks it has room for. */
interface Layout {
  name: 'narrow' | 'wide';
  width: number;
  height: number;
  ticks: number;
}

const LAYOUTS: readonly Layout[] = [
  { name: 'narrow', width: 340, height: 220, ticks: 3 },
  { name: 'wide', width: 720, height: 300, ticks: 6 },
];

/**
 * The charts' styles, one text for the site (served as /assets/chart.css) and for the self-contained memos (inlined,
 * allowed by its hash): the colours are written out, as a memo has none of the site's variables.
 */
export const CHART_CSS = `/* Charts drawn on the server as SVG: two layouts, one shown at a time. */
.chart { display: block; width: 100%; height: auto; font-size: 12px; font-family: system-ui, sans-serif; }
.chart-narrow { max-width: 420px; }
.chart-wide { display: none; max-width: 720px; }
@media (min-width: 48rem) {
  .chart-narrow { display: none; }
  .chart-wide { display: block; }
}
.chart-bar { fill: #0969da; }
.chart-band-LOW { fill: #dafbe1; }
.chart-band-MEDIUM { fill: #ddf4ff; }
.chart-band-ELEVATED { fill: #fff8c5; }
.chart-band-HIGH { fill: #ffebe9; }
.chart-band-SEVERE { fill: #ffcecb; }
.chart-band-label, .chart-tick, .chart-value { fill: #57606a; }
.chart-axis { stroke: #8c959f; }
.chart-grid { stroke: #d0d7de; stroke-dasharray: 2 3; }
.chart-line { fill: none; stroke: #1b1f24; stroke-width: 2; }
.chart-held { fill: none; stroke: #1b1f24; stroke-width: 2; stroke-dasharray: 4 3; }
.chart-mark { fill: #ffffff; stroke: #1b1f24; stroke-width: 2; }
.chart-withdrawn { stroke: #cf222e; }
.chart-bar-track { fill: #f6f8fa; stroke: #d0d7de; }
.chart-bar-banded { stroke: #57606a; stroke-width: 1; }
`;

/**
 * About how wide a text of the charts (12 units) is drawn, to keep room for it: by DejaVu Sans, the widest common
 * fallback of system-ui (capitals and figures near 7.8 units, other characters near 6.4), so it rarely falls short.
 */
export function textWidth(text: string): number {
  let width = 0;
  for (const c of text) width += /[A-Z0-9%]/.test(c) ? 7.8 : 6.4;
  return Math.ceil(width);
}

const DAY_MS = 86_400_000;
const round = (n: number) => Math.round(n * 100) / 100;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The `<svg>` element of one layout, labelled by its own title and description. */
function drawing(
  layout: Layout,
  id: string,
  text: { title: string; desc: string },
  height: number,
  content: SafeHtml,
): SafeHtml {
  const title = `${id}-${layout.name}-title`;
  const desc = `${id}-${layout.name}-desc`;
  return html`<svg class="chart chart-${layout.name}" viewBox="0 0 ${layout.width} ${height}" role="img" aria-labelledby="${title} ${desc}" xmlns="http://www.w3.org/2000/svg">
<title id="${title}">${text.title}</title>
<desc id="${desc}">${text.desc}</desc>
${content}</svg>
`;
}

/** The room a date label takes on the axis, in SVG units: ten characters of 12-unit text, and a gap. */
const DATE_LABEL_ROOM = 80;

/**
 * Dated ticks for the axis `x`: d3's for about `count`, more when those would leave fewer than two (two months on a
 * narrow axis get one month tick), one per distinct day, each kept only when its label clears the one before.
 */
function dateTicks(x: ReturnType<typeof scaleUtc<number>>, count: number): Date[] {
  let ticks = x.ticks(count);
  if (ticks.length < 2) ticks = x.ticks(count * 3);
  const kept: Date[] = [];
  let last = Number.NEGATIVE_INFINITY;
  let lastDay = '';
  for (const d of ticks) {
    const day = d.toISOString().slice(0, 10);
    if (day === lastDay || x(d) - last < DATE_LABEL_ROOM) continue;
    kept.push(d);
    last = x(d);
    lastDay = day;
  }
  return kept;
}

export interface HistoryChartOptions {
  /** Prefix of the element ids (unique in the document). */
  id: string;
  /** The day the chart ends (now, or the as_of instant): the last score is drawn as holding until then. */
  until: string;
}

/**
 * The least time a history chart spans, ending at its end: a record of minutes spread over the whole width, under
 * one date label, would draw actions taken on one day as if days apart.
 */
const MIN_SPAN_MS = 7 * DAY_MS;
/** The least distance between two marks' centres (their circles are 8 units across, with a stroke). */
const MARK_GAP = 10;

/**
 * A provider's score history: the bands shaded behind, the score as a step line (it holds until the next action; a
 * withdrawal breaks it) drawn on to `until` as a dashed line, each rating action marked. `points` are oldest first.
 * Each mark is at its instant, over at least a week; marks closer than legible (actions on one day) are drawn side by
 * side, centred where they fall, so none moves by more than the few units that separate them.
 */
export function scoreHistoryChart(
  name: string,
  points: readonly HistoryPoint[],
  bands: readonly BandFloor[],
  options: HistoryChartOptions,
): SafeHtml {
  const times = points.map((p) => Date.parse(p.at));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const end = Math.max(last, Date.parse(options.until) || last);
  const from = Math.min(first, end - MIN_SPAN_MS);
  const latest = points.at(-1);
  const text = {
    title: `Score history of ${name}`,
    desc: `Final score (0 to 100, higher means lower risk) after each rating action, over the shaded risk bands, to ${day(end)}. ${historySummary(points, end)}`,
  };
  return html`${LAYOUTS.map((layout) => {
    const margin = { top: 12, right: 70, bottom: 28, left: 30 };
    const x = scaleUtc()
      .domain([new Date(from), new Date(end)])
      .range([margin.left, layout.width - margin.right]);
    const y = scaleLinear()
      .domain([0, 100])
      .range([layout.height - margin.bottom, margin.top]);
    const areas = bands.map((b, i) => {
      const top = i === 0 ? 100 : (bands[i - 1] as BandFloor).min;
      const bottom = i === bands.length - 1 ? 0 : b.min;
      const y0 = round(y(top));
      const y1 = round(y(bottom));
      return html`<rect class="chart-band chart-band-${b.band}" x="${margin.left}" y="${y0}" width="${layout.width - margin.left - margin.right}" height="${round(y1 - y0)}"/>
<text class="chart-band-label" x="${layout.width - margin.right + 6}" y="${round((y0 + y1) / 2 + 4)}">${b.band}</text>
`;
    });
    const yTicks = [0, ...bands.slice(0, -1).map((b) => b.min), 100].map(
      (v) =>
        html`<text class="chart-tick" x="${margin.left - 4}" y="${round(y(v) + 4)}" text-anchor="end">${String(v)}</text>
`,
    );
    const xTicks = dateTicks(x, layout.ticks).map((d) => {
      const at = round(x(d));
      return html`<line class="chart-grid" x1="${at}" x2="${at}" y1="${margin.top}" y2="${layout.height - margin.bottom}"/>
<text class="chart-tick" x="${at}" y="${layout.height - margin.bottom + 16}" text-anchor="middle">${d.toISOString().slice(0, 10)}</text>
`;
    });
    const xs = sideBySide(
      times.map((t) => x(t)),
      margin.left,
      layout.width - margin.right,
    ).map(round);
    const path = line<Drawn>()
      .defined((d) => d.score !== null)
      .x((d) => d.x)
      .y((d) => y(d.score ?? 0))
      .curve(curveStepAfter)
      .digits(2)(holdingToWithdrawals(points, xs));
    const lastX = xs.at(-1) ?? margin.left;
    const endX = round(x(end));
    // The score in force since the last action, held to the chart's end (dashed: no action there).
    const held =
      latest && latest.score !== null && endX > lastX
        ? html`<path class="chart-held" d="M${lastX},${round(y(latest.score))}H${endX}"/>\n`
        : '';
    const marks = points.map((p, i) => {
      const cx = xs[i] ?? margin.left;
      const cy = round(y(p.score ?? 0));
      const what = `${p.at.slice(0, 10)} ${p.label}: ${p.score === null ? 'withdrawn' : `${p.score.toFixed(2)} ${p.band}`}`;
      return p.score === null
        ? html`<path class="chart-mark chart-withdrawn" d="M${round(cx - 5)},${round(cy - 5)}L${round(cx + 5)},${round(cy + 5)}M${round(cx - 5)},${round(cy + 5)}L${round(cx + 5)},${round(cy - 5)}"><title>${what}</title></path>
`
        : html`<circle class="chart-mark" cx="${cx}" cy="${cy}" r="4"><title>${what}</title></circle>
`;
    });
    return drawing(
      layout,
      options.id,
      text,
      layout.height,
      html`${areas}${yTicks}${xTicks}${path === null ? '' : html`<path class="chart-line" d="${path}"/>\n`}${held}${marks}`,
    );
  })}`;
}

/** The history in a sentence: how many actions, over which days, the scores they left and the standing at the end. */
function historySummary(points: readonly HistoryPoint[], end: number): string {
  const scores = points.flatMap((p) => (p.score === null ? [] : [p.score]));
  if (scores.length === 0) return 'No score was published.';
  const days = points.map((p) => p.at.slice(0, 10)).sort();
  const [firstDay, lastDay] = [days[0], days.at(-1)];
  const when = firstDay === lastDay ? `on ${firstDay}` : `from ${firstDay} to ${lastDay}`;
  const [low, high] = [Math.min(...scores), Math.max(...scores)];
  const range =
    low === high
      ? `the score held at ${low.toFixed(2)}`
      : `the score ranged from ${low.toFixed(2)} to ${high.toFixed(2)}`;
  const latest = points.at(-1);
  const now = latest?.score == null ? 'withdrawn' : `${latest.score.toFixed(2)} (${latest.band})`;
  const count = `${points.length} rating action${points.length === 1 ? '' : 's'}`;
  return `${count} ${when}; ${range}, and on ${day(end)} it is ${now}.`;
}

/**
 * What a history chart's caption adds to explain its marks, after a space (empty when nothing needs it): the
 * withdrawal's cross when there is one, and `what` (actions, publications) of one day drawn side by side.
 */
export function historyMarksNote(points: readonly HistoryPoint[], what: 'actions' | 'publications'): string {
  const notes: string[] = [];
  if (points.some((p) => p.score === null)) {
    notes.push('A red cross on the 0 line marks a withdrawal: no score was in force from then until a reinstatement.');
  }
  const days = points.map((p) => p.at.slice(0, 10));
  if (new Set(days).size < days.length) {
    notes.push(
      `${what === 'actions' ? 'Actions taken' : 'Publications'} on the same day are drawn side by side at that date.`,
    );
  }
  return notes.map((n) => ` ${n}`).join('');
}

/**
 * Where the marks are drawn, from where they fall (`xs`, ascending): marks closer than MARK_GAP are spread MARK_GAP
 * apart (less when there are too many for the width), each run of them centred on the mean of where its marks fall,
 * within `left` to `right`.
 */
function sideBySide(xs: readonly number[], left: number, right: number): number[] {
  const gap = xs.length > 1 ? Math.min(MARK_GAP, (right - left) / (xs.length - 1)) : MARK_GAP;
  interface Run {
    count: number;
    centre: number;
  }
  const startOf = (r: Run) => {
    const width = (r.count - 1) * gap;
    return Math.max(left, Math.min(r.centre - width / 2, right - width));
  };
  const runs: Run[] = [];
  for (const at of xs) {
    let run: Run = { count: 1, centre: at };
    // A run that comes too close to the one before joins it (and so on back), centred on all its marks.
    for (let before = runs.at(-1); before !== undefined; before = runs.at(-1)) {
      if (startOf(run) - (startOf(before) + (before.count - 1) * gap) >= gap) break;
      runs.pop();
      const count = before.count + run.count;
      run = { count, centre: (before.centre * before.count + run.centre * run.count) / count };
    }
    runs.push(run);
  }
  return runs.flatMap((r) => Array.from({ length: r.count }, (_, i) => startOf(r) + i * gap));
}

/** A point of the step line as drawn: where, and the score in force from there (null: withdrawn, no line). */
interface Drawn {
  x: number;
  score: number | null;
}

/**
 * The points the step line is drawn through, at the marks' places `xs`: a score holds until the next action, so
 * before a withdrawal the score in force is repeated at the withdrawal's place (the line runs on to it, then breaks).
 */
function holdingToWithdrawals(points: readonly HistoryPoint[], xs: readonly number[]): Drawn[] {
  const drawn: Drawn[] = [];
  points.forEach((p, i) => {
    const x = xs[i] ?? 0;
    const before = drawn.at(-1);
    if (p.score === null && before !== undefined && before.score !== null) drawn.push({ x, score: before.score });
    drawn.push({ x, score: p.score });
  });
  return drawn;
}

/** One bar: its label, its value on the chart's scale and the text written beside it. */
export interface Bar {
  label: string;
  value: number;
  text: string;
  /** The class of the bar (a band's colour), besides chart-bar. */
  className?: string;
}

export interface BarChartOptions {
  id: string;
  title: string;
  desc: string;
  /** The top of the scale (each bar's track reaches it). */
  max: number;
  /** The width in SVG units kept for the labels, per layout. */
  labelWidth: { narrow: number; wide: number };
  /** The width in SVG units kept after the tracks for the values written there (64 unless given). */
  valueWidth?: number;
}

/**
 * Horizontal bars, one per row, each over a track that reaches the scale's top (a module's score of its maximum, a
 * band's share of a portfolio), its value written after it. Its label goes before it, in `labelWidth`; in a layout
 * where that would leave the tracks under half of the width (long labels in the narrow one), above it instead.
 */
export function barChart(bars: readonly Bar[], options: BarChartOptions): SafeHtml {
  const rowHeight = 26;
  const valueWidth = options.valueWidth ?? 64;
  return html`${LAYOUTS.map((layout) => {
    const beside = layout.width - options.labelWidth[layout.name] - valueWidth >= layout.width / 2;
    // A label above its bar takes a line of its own.
    const labelLine = beside ? 0 : 14;
    const margin = { top: 6, right: valueWidth, bottom: 6, left: beside ? options.labelWidth[layout.name] : 8 };
    const height = margin.top + margin.bottom + (rowHeight + labelLine) * bars.length;
    const x = scaleLinear()
      .domain([0, options.max])
      .range([margin.left, layout.width - margin.right])
      .clamp(true);
    const y = scaleBand<number>()
      .domain(bars.map((_, i) => i))
      .range([margin.top, margin.top + rowHeight * bars.length])
      .paddingInner(0.3)
      .paddingOuter(0.15);
    const rows = bars.map((bar, i) => {
      const top = round((y(i) ?? 0) + labelLine * (i + 1));
      const h = round(y.bandwidth());
      const mid = round(top + h / 2 + 4);
      const label = beside
        ? html`<text class="chart-tick" x="${margin.left - 6}" y="${mid}" text-anchor="end">${bar.label}</text>`
        : html`<text class="chart-tick" x="${margin.left}" y="${round(top - 4)}">${bar.label}</text>`;
      return html`${label}
<rect class="chart-bar-track" x="${margin.left}" y="${top}" width="${round(x(options.max) - margin.left)}" height="${h}"/>
<rect class="chart-bar${bar.className ? ` ${bar.className}` : ''}" x="${margin.left}" y="${top}" width="${round(x(Math.max(0, bar.value)) - margin.left)}" height="${h}"><title>${bar.label}: ${bar.text}</title></rect>
<text class="chart-value" x="${round(x(options.max) + 6)}" y="${mid}">${bar.text}</text>
`;
    });
    return drawing(layout, options.id, options, height, html`${rows}`);
  })}`;
}
