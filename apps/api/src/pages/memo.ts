import type { PortfolioScore, RiskIndicatorResponse } from '@svc/contracts';
import { showControls } from '@svc/methodology';
import { bothWaysItem, bothWaysWords, sortedFactors } from '../services/analysis/factor-words.js';
import { nextBandWords } from '../services/analysis/next-band-words.js';
import {
  type BandFloor,
  barChart,
  type HistoryPoint,
  historyMarksNote,
  scoreHistoryChart,
  textWidth,
} from './chart.js';
import { type Block, type MemoFormat, type RenderedMemo, render } from './memo-blocks.js';

/**
 * Credit memos: a fixed template filled from a published indicator (or a portfolio score), written once as blocks
 * and rendered as Markdown or as an HTML page (memo-blocks.ts), so both forms always say the same.
 */
export { MEMO_CSP, type MemoFormat, type RenderedMemo } from './memo-blocks.js';

const score2 = (n: number) => n.toFixed(2);
const pct = (weight: number) => `${(weight * 100).toFixed(2)}%`;
const day = (iso: string) => iso.slice(0, 10);

// ---- the provider memo ----

export interface HistoryEntry {
  published_at: string;
  final_score: number;
  risk_band: string;
  framework_version: string;
  risk_indicator_id: string;
}

/**
 * A provider's memo. `history` is its latest publications, newest first; `bands` are those of the framework of the
 * indicator in force, shaded behind the score-history chart.
 */
export function providerMemo(
  indicator: RiskIndicatorResponse,
  history: HistoryEntry[],
  context: { preparedAt: string; siteUrl: string | null; bands: readonly BandFloor[] },
  format: MemoFormat,
): RenderedMemo {
  const d = indicator.svc_decision_object;
  const verify = `${context.siteUrl ?? ''}/verify/${indicator.risk_indicator_id}`;
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: `Credit memo: ${indicator.name}` },
    {
      kind: 'paragraph',
      text: [
        `Prepared ${day(context.preparedAt)} under ${indicator.framework_version}. Risk Indicator `,
        { code: indicator.risk_indicator_id },
        '; verify it at ',
        { link: verify },
        '.',
      ],
    },
    { kind: 'heading', level: 2, text: 'Summary' },
    {
      kind: 'table',
      head: ['Final score', 'Risk band', 'Confidence', 'Planner type', 'Scored at', 'Inputs approved', 'Published'],
      rows: [
        [
          score2(indicator.final_score),
          indicator.risk_band,
          indicator.confidence.toFixed(4),
          `${indicator.planner_type} (${indicator.provider_subtype})`,
          day(indicator.scored_at),
          day(indicator.score_verified_at),
          day(indicator.published_at),
        ],
      ],
    },
    { kind: 'paragraph', text: d.summary },
    ...bothWaysParagraph(d),
    ...nextBandParagraph(indicator),
    { kind: 'heading', level: 2, text: 'Decision factors' },
    { kind: 'list', items: factorItems(d) },
    { kind: 'heading', level: 2, text: 'Hard caps' },
    d.hard_caps_fired.length === 0
      ? { kind: 'paragraph', text: 'No hard cap fired.' }
      : {
          kind: 'table',
          head: ['Cap', 'Condition', 'Limit', 'Binding', 'Point impact'],
          rows: d.hard_caps_fired.map((c) => [
            c.cap_id,
            c.label,
            score2(c.cap),
            c.binding ? 'yes' : 'no',
            c.point_impact.toFixed(2),
          ]),
        },
    { kind: 'heading', level: 2, text: 'Modules' },
    { kind: 'paragraph', text: indicator.score_commentary.overview },
    ...moduleFigure(indicator),
    {
      kind: 'table',
      head: ['Module', 'Score', 'Of', 'Commentary'],
      rows: indicator.score_commentary.modules.map((m) => [
        `${m.module_id} ${m.label}`,
        m.score.toFixed(2),
        m.max,
        m.text,
      ]),
    },
    { kind: 'heading', level: 2, text: 'Criteria' },
    {
      kind: 'table',
      head: ['Criterion', 'Input', 'Points', 'Weight', 'Contribution', 'Freshness', 'Evidence as of'],
      rows: indicator.criterion_scores.map((c) => [
        `${c.criterion_id} ${c.criterion_label}`,
        c.missing ? 'missing' : String(c.input_value),
        c.points.toFixed(2),
        c.weight,
        c.contribution.toFixed(4),
        c.freshness.toFixed(4),
        c.as_of ?? '',
      ]),
    },
    { kind: 'heading', level: 2, text: 'History' },
    ...historyFigure(indicator, history, context),
    {
      kind: 'table',
      head: ['Published', 'Final score', 'Risk band', 'Framework', 'Risk Indicator'],
      rows: history.map((h) => [
        day(h.published_at),
        score2(h.final_score),
        h.risk_band,
        h.framework_version,
        h.risk_indicator_id,
      ]),
    },
    { kind: 'heading', level: 2, text: 'Limitations' },
    { kind: 'paragraph', text: indicator.limitations_disclosure },
  ];
  return render(`Credit memo: ${indicator.name}`, blocks, format);
}

/** The score-history chart of the publications listed (the History table after it holds its figures). */
function historyFigure(
  indicator: RiskIndicatorResponse,
  history: readonly HistoryEntry[],
  context: { preparedAt: string; bands: readonly BandFloor[] },
): Block[] {
  if (history.length === 0) return [];
  const points: HistoryPoint[] = [...history]
    .reverse()
    .map((h) => ({ at: h.published_at, label: 'published', score: h.final_score, band: h.risk_band }));
  return [
    {
      kind: 'figure',
      svg: scoreHistoryChart(showControls(indicator.name), points, context.bands, {
        id: 'memo-history',
        until: context.preparedAt,
      }),
      caption: `The final score of each publication listed below (oldest on the left), over the bands of ${indicator.framework_version}; dashed, the score in force since the last publication, to ${day(context.preparedAt)}.${historyMarksNote(points, 'publications')}`,
    },
  ];
}

/**
 * One bar per module, its score as a share of the module's maximum (the modules' maxima differ, so one scale in
 * points would draw a full 15-point module shorter than a half-full 30-point one); the table after it has the figures.
 */
function moduleFigure(indicator: RiskIndicatorResponse): Block[] {
  const modules = indicator.score_commentary.modules;
  if (modules.length === 0) return [];
  const bars = modules.map((m) => ({
    label: showControls(m.label),
    value: (m.score / m.max) * 100,
    text: `${m.score.toFixed(2)} of ${m.max}`,
  }));
  const labels = Math.max(...bars.map((b) => textWidth(b.label))) + 10;
  return [
    {
      kind: 'figure',
      svg: barChart(bars, {
        id: 'memo-modules',
        title: `Module scores of ${showControls(indicator.name)}`,
        desc: `Each module's score as a share of its maximum: ${bars.map((b) => `${b.label} ${b.text}`).join('; ')}.`,
        max: 100,
        // Labels that would leave the bars too little room beside them go above them (barChart).
        labelWidth: { narrow: labels, wide: labels },
        valueWidth: Math.max(...bars.map((b) => textWidth(b.text))) + 12,
      }),
      caption: "Each module's score as a share of its maximum, the module's weight; the table below has the figures.",
    },
  ];
}

/** Each decision factor once: a criterion among both the largest shortfalls and the largest contributions is one item. */
function factorItems(d: RiskIndicatorResponse['svc_decision_object']): string[] {
  const { holding, supporting, both } = sortedFactors(d);
  return [
    ...holding.map((f) => `Holding back: ${f.criterion_label} (${f.point_impact.toFixed(2)}): ${f.detail}`),
    ...both.map((b) => `Supporting and holding back: ${bothWaysItem(b)}: ${b.floor.detail}`),
    ...supporting.map((f) => `Supporting: ${f.criterion_label} (+${f.point_impact.toFixed(2)}): ${f.detail}`),
  ];
}

/** After the summary, when it names a criterion both as anchoring and as holding back: what that means. */
function bothWaysParagraph(d: RiskIndicatorResponse['svc_decision_object']): Block[] {
  const words = bothWaysWords(d);
  return words === null ? [] : [{ kind: 'paragraph', text: words }];
}

/** The next-band sentence (which caps hold the score, which changes reach the band), when there is a next band. */
function nextBandParagraph(indicator: RiskIndicatorResponse): Block[] {
  const words = nextBandWords(
    indicator.final_score,
    indicator.svc_decision_object,
    indicator.path_to_next_band ?? null,
  );
  return words === null ? [] : [{ kind: 'paragraph', text: words }];
}

// ---- the portfolio memo ----

export function portfolioMemo(
  portfolio: PortfolioScore,
  context: { preparedAt: string },
  format: MemoFormat,
): RenderedMemo {
  const c = portfolio.concentration;
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: 'Portfolio credit memo' },
    {
      kind: 'paragraph',
      text: `Prepared ${day(context.preparedAt)} under ${portfolio.framework_version}: ${portfolio.holdings.length} holdings, total ${portfolio.total_amount}.`,
    },
    { kind: 'heading', level: 2, text: 'Summary' },
    {
      kind: 'table',
      head: [
        'Portfolio score',
        'Risk band',
        'Herfindahl index',
        'Effective holdings',
        'Largest weight',
        'Concentration',
      ],
      rows: [
        [
          score2(portfolio.portfolio_score),
          portfolio.risk_band,
          c.herfindahl_index.toFixed(4),
          c.effective_holdings.toFixed(2),
          pct(c.largest_weight),
          c.level,
        ],
      ],
    },
    { kind: 'heading', level: 2, text: 'Weakest holdings' },
    {
      kind: 'list',
      items: portfolio.weakest.map(
        (w) => `${w.name}: ${score2(w.final_score)} ${w.risk_band}, ${pct(w.weight)} of the portfolio`,
      ),
    },
    { kind: 'heading', level: 2, text: 'Exposure by band' },
    ...exposureFigure(portfolio),
    {
      kind: 'table',
      head: ['Risk band', 'Amount', 'Weight', 'Holdings'],
      rows: portfolio.exposure_by_band.map((e) => [e.risk_band, e.amount, pct(e.weight), e.holdings]),
    },
    { kind: 'heading', level: 2, text: 'Holdings' },
    {
      kind: 'table',
      head: ['Provider', 'Amount', 'Weight', 'Final score', 'Risk band', 'Contribution'],
      rows: portfolio.holdings.map((h) => [
        h.name,
        h.amount,
        pct(h.weight),
        score2(h.final_score),
        h.risk_band,
        h.contribution.toFixed(4),
      ]),
    },
    { kind: 'heading', level: 2, text: 'Limitations' },
    { kind: 'paragraph', text: portfolio.limitations_disclosure },
  ];
  return render('Portfolio credit memo', blocks, format);
}

/**
 * One bar per band, the share of the portfolio's amount in it. exposure_by_band lists every band of the framework,
 * best first, empty ones at 0 (the engine's rule): all are drawn, so the chart reads as the distribution over the
 * whole scale, an empty band a gap in it.
 */
function exposureFigure(portfolio: PortfolioScore): Block[] {
  if (portfolio.exposure_by_band.length === 0) return [];
  const bars = portfolio.exposure_by_band.map((e) => ({
    label: e.risk_band,
    value: e.weight * 100,
    text: `${pct(e.weight)} (${e.holdings} holding${e.holdings === 1 ? '' : 's'})`,
    className: `chart-band-${e.risk_band} chart-bar-banded`,
  }));
  const labels = Math.max(...bars.map((b) => textWidth(b.label))) + 10;
  return [
    {
      kind: 'figure',
      svg: barChart(bars, {
        id: 'memo-exposure',
        title: 'Exposure by band',
        desc: `The share of the portfolio's amount in each risk band, lowest risk first: ${bars.map((b) => `${b.label} ${b.text}`).join('; ')}.`,
        max: 100,
        labelWidth: { narrow: labels, wide: labels },
        valueWidth: Math.max(...bars.map((b) => textWidth(b.text))) + 12,
      }),
      caption: "The share of the portfolio's amount in each risk band; the table below has the amounts.",
    },
  ];
}
