import { scaleLinear, scaleUtc } from 'd3-scale';
import { curveStepAfter, line } from 'd3-shape';
import { html, type SafeHtml } from './html.js';

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

/** The chart's box in SVG units; it scales to the width of its container (legible from 360 px up). */
const WIDTH = 480;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 70, bottom: 28, left: 36 };
const DAY_MS = 86_400_000;

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * A provider's score history as an SVG drawn on the server (d3-scale and d3-shape: pure functions, no DOM): the five
 * bands shaded behind, the score as a step line (it holds until the next publication; a withdrawal breaks it), each
 * rating action marked, with a title and a description for assistive technology; the caller adds the table of the
 * same points. `points` are oldest first.
 */
export function scoreHistoryChart(
  name: string,
  points: readonly HistoryPoint[],
  bands: readonly BandFloor[],
  ids: { title: string; desc: string },
): SafeHtml {
  const times = points.map((p) => Date.parse(p.at));
  const first = Math.min(...times);
  const last = Math.max(...times);
  // A single action still gets a width: a day either side.
  const [from, to] = first === last ? [first - DAY_MS, last + DAY_MS] : [first, last];
  const x = scaleUtc()
    .domain([new Date(from), new Date(to)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  const y = scaleLinear()
    .domain([0, 100])
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const areas = bands.map((b, i) => {
    const top = i === 0 ? 100 : (bands[i - 1] as BandFloor).min;
    const bottom = i === bands.length - 1 ? 0 : b.min;
    const y0 = round(y(top));
    const y1 = round(y(bottom));
    return html`<rect class="chart-band chart-band-${b.band}" x="${MARGIN.left}" y="${y0}" width="${WIDTH - MARGIN.left - MARGIN.right}" height="${round(y1 - y0)}"/>
<text class="chart-band-label" x="${WIDTH - MARGIN.right + 6}" y="${round((y0 + y1) / 2 + 4)}">${b.band}</text>
`;
  });
  const yTicks = [0, ...bands.slice(0, -1).map((b) => b.min), 100].map(
    (
      v,
    ) => html`<text class="chart-tick" x="${MARGIN.left - 4}" y="${round(y(v) + 4)}" text-anchor="end">${String(v)}</text>
`,
  );
  const xTicks = x.ticks(4).map((d) => {
    const at = round(x(d));
    return html`<line class="chart-grid" x1="${at}" x2="${at}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}"/>
<text class="chart-tick" x="${at}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${d.toISOString().slice(0, 10)}</text>
`;
  });
  const path = line<HistoryPoint>()
    .defined((p) => p.score !== null)
    .x((p) => x(new Date(p.at)))
    .y((p) => y(p.score ?? 0))
    .curve(curveStepAfter)
    .digits(2)(points);
  const marks = points.map((p) => {
    const cx = round(x(new Date(p.at)));
    const cy = round(y(p.score ?? 0));
    const what = `${p.at.slice(0, 10)} ${p.label}: ${p.score === null ? 'withdrawn' : `${p.score.toFixed(2)} ${p.band}`}`;
    return p.score === null
      ? html`<path class="chart-mark chart-withdrawn" d="M${cx - 5},${cy - 5}L${cx + 5},${cy + 5}M${cx - 5},${cy + 5}L${cx + 5},${cy - 5}"><title>${what}</title></path>
`
      : html`<circle class="chart-mark" cx="${cx}" cy="${cy}" r="4"><title>${what}</title></circle>
`;
  });
  const scores = points.flatMap((p) => (p.score === null ? [] : [p.score]));
  const summary =
    scores.length === 0
      ? 'No score was published.'
      : `${points.length} rating actions from ${new Date(first).toISOString().slice(0, 10)} to ${new Date(last).toISOString().slice(0, 10)}; the score ranged from ${Math.min(...scores).toFixed(2)} to ${Math.max(...scores).toFixed(2)}, and the latest is ${points.at(-1)?.score === null ? 'a withdrawal' : `${(points.at(-1)?.score ?? 0).toFixed(2)}`}.`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${ids.title} ${ids.desc}" xmlns="http://www.w3.org/2000/svg">
<title id="${ids.title}">Score history of ${name}</title>
<desc id="${ids.desc}">Final score (0 to 100, higher means lower risk) after each rating action, over the shaded risk bands. ${summary}</desc>
${areas}${yTicks}${xTicks}${path === null ? '' : html`<path class="chart-line" d="${path}"/>\n`}${marks}</svg>`;
}
