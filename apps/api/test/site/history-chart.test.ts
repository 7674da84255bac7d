import { describe, expect, it } from 'vitest';
import { type HistoryPoint, historyMarksNote, scoreHistoryChart } from '../../src/pages/chart.js';

/**
 * The score-history chart's marks (issue 31, 16): each at its instant, over at least a week; actions of one day side
 * by side at that day, never days away from it; all of them inside the plot however many there are.
 */

const BANDS = [
  { band: 'LOW', min: 80 },
  { band: 'MEDIUM', min: 65 },
  { band: 'ELEVATED', min: 50 },
  { band: 'HIGH', min: 35 },
  { band: 'SEVERE', min: 0 },
];
const DAY_MS = 86_400_000;
/** The wide drawing's plot: x from 30 to 650. */
const [LEFT, RIGHT] = [30, 650];

const point = (at: string, score: number | null, label = 'AFFIRM'): HistoryPoint => ({
  at,
  label,
  score,
  band: score === null ? null : 'MEDIUM',
});

/** The wide drawing's marks, in order: where each is drawn and its title. */
function wideMarks(points: HistoryPoint[], until: string): { x: number; title: string }[] {
  const svg = scoreHistoryChart('Example', points, BANDS, { id: 'h', until }).text;
  const wide = svg.slice(svg.indexOf('<svg class="chart chart-wide"'));
  return [
    ...wide.matchAll(
      /<(?:circle class="chart-mark" cx="([\d.]+)"|path class="chart-mark chart-withdrawn" d="M([\d.]+),)[^>]*><title>([^<]+)<\/title>/g,
    ),
  ].map((m) => ({ x: m[1] !== undefined ? Number(m[1]) : Number(m[2]) + 5, title: m[3] ?? '' }));
}

/** Where an instant falls on the wide plot of a chart from `from` to `to`. */
const xOf = (iso: string, from: number, to: number) => LEFT + ((RIGHT - LEFT) * (Date.parse(iso) - from)) / (to - from);

describe('the score-history chart', () => {
  it('draws two actions of one day at that day, side by side, not days apart', () => {
    // Minutes apart, with the chart ending the same day: once spread over the whole width, under one date label.
    const points = [point('2026-11-03T15:00:00.000Z', 49.99, 'NEW'), point('2026-11-03T15:05:00.000Z', 49.99)];
    const until = '2026-11-03T16:00:00.000Z';
    const [a, b] = wideMarks(points, until);
    const to = Date.parse(until);
    const from = to - 7 * DAY_MS;
    const dayStart = xOf('2026-11-03T00:00:00.000Z', from, to);
    for (const [mark, p] of [
      [a, points[0]],
      [b, points[1]],
    ] as const) {
      expect(mark?.x).toBeGreaterThanOrEqual(dayStart - 5);
      expect(Math.abs((mark?.x ?? 0) - xOf(p?.at ?? '', from, to))).toBeLessThanOrEqual(10);
    }
    expect((b?.x ?? 0) - (a?.x ?? 0)).toBeCloseTo(10, 1);
  });

  it('keeps same-day actions within a long history at their date, each legible', () => {
    const points = [
      point('2026-01-05T08:00:00.000Z', 70, 'NEW'),
      point('2026-06-10T09:00:00.000Z', 72),
      point('2026-06-10T09:01:00.000Z', 72, 'WATCH_PLACED'),
      point('2026-06-10T09:02:00.000Z', 72, 'OUTLOOK_CHANGED'),
      point('2026-11-20T08:00:00.000Z', 75),
    ];
    const until = '2026-12-01T00:00:00.000Z';
    const marks = wideMarks(points, until);
    const [from, to] = [Date.parse(points[0]?.at ?? ''), Date.parse(until)];
    const day = xOf('2026-06-11T00:00:00.000Z', from, to) - xOf('2026-06-10T00:00:00.000Z', from, to);
    expect(day).toBeLessThan(2);
    const sameDay = marks.slice(1, 4);
    // Spread 10 units apart around where they fall: the middle one where it falls, none more than 10 units away.
    expect(sameDay.map((m) => m.x)).toEqual(
      [-10, 0, 10].map((d) => Math.round((xOf(points[2]?.at ?? '', from, to) + d) * 100) / 100),
    );
    expect(marks[0]?.x).toBe(LEFT);
    expect(marks[4]?.x).toBeCloseTo(xOf(points[4]?.at ?? '', from, to), 1);
  });

  it('keeps every mark inside the plot, closer than 10 units when there are too many for the width', () => {
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    const points = Array.from({ length: 90 }, (_, i) =>
      point(new Date(start + i * 60_000).toISOString(), 60 + (i % 3), i === 0 ? 'NEW' : 'AFFIRM'),
    );
    const xs = wideMarks(points, '2026-11-01T02:00:00.000Z').map((m) => m.x);
    expect(xs).toHaveLength(90);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(LEFT);
    expect(Math.max(...xs)).toBeLessThanOrEqual(RIGHT);
    expect(xs).toEqual([...xs].sort((p, q) => p - q));
  });

  it('says the score held when it never changed, the day when there was one, and explains the marks', () => {
    const points = [
      point('2026-10-01T08:00:00.000Z', 60.91, 'NEW'),
      point('2026-10-01T09:00:00.000Z', 60.91, 'WATCH_PLACED'),
      point('2026-10-05T10:00:00.000Z', null, 'WITHDRAW'),
    ];
    const svg = scoreHistoryChart('Example', points, BANDS, { id: 'h', until: '2026-10-06T00:00:00.000Z' }).text;
    expect(svg).toContain(
      '3 rating actions from 2026-10-01 to 2026-10-05; the score held at 60.91, and on 2026-10-06 it is withdrawn.',
    );
    expect(svg).not.toContain('ranged from 60.91 to 60.91');
    const one = scoreHistoryChart('Example', points.slice(0, 1), BANDS, { id: 'h', until: '2026-10-06T00:00:00Z' });
    expect(one.text).toContain('1 rating action on 2026-10-01; the score held at 60.91');
    expect(historyMarksNote(points, 'actions')).toBe(
      ' A red cross on the 0 line marks a withdrawal: no score was in force from then until a reinstatement. Actions taken on the same day are drawn side by side at that date.',
    );
    expect(historyMarksNote(points.slice(2), 'actions')).not.toContain('same day');
    expect(historyMarksNote(points.slice(0, 1), 'publications')).toBe('');
  });
});
