import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { elementsNamed, parseXml, type XmlElement } from './xml.js';

/** One drawing of a chart (pages/chart.ts): its layout, its markup, where it starts in the page, and it parsed. */
export interface Drawing {
  layout: 'narrow' | 'wide';
  markup: string;
  at: number;
  svg: XmlElement;
}

/**
 * The drawings of the chart whose ids start with `id`, in page order, each parsed as XML (saxes: it refuses any
 * well-formedness error, so markup a name broke out of fails here), with its title and description checked to be the
 * ones it is labelled by.
 */
export function drawingsOf(page: string, id: string): Drawing[] {
  const found = [...page.matchAll(/<svg class="chart chart-(narrow|wide)"[\s\S]*?<\/svg>/g)].filter((m) =>
    m[0].includes(`aria-labelledby="${id}-${m[1]}-title ${id}-${m[1]}-desc"`),
  );
  return found.map((m) => {
    const layout = m[1] as 'narrow' | 'wide';
    const svg = parseXml(m[0]);
    expect(svg.attributes.role).toBe('img');
    expect(svg.children[0]?.name).toBe('title');
    expect(svg.children[0]?.attributes.id).toBe(`${id}-${layout}-title`);
    expect(svg.children[1]?.name).toBe('desc');
    expect(svg.children[1]?.attributes.id).toBe(`${id}-${layout}-desc`);
    return { layout, markup: m[0], at: m.index, svg };
  });
}

/** A drawing's title and description as read (entities decoded). */
export function labelsOf(drawing: Drawing): { title: string; desc: string } {
  return { title: drawing.svg.children[0]?.text ?? '', desc: drawing.svg.children[1]?.text ?? '' };
}

/** The `<rect>` elements of a drawing whose class is exactly `className`. */
export function rectsOf(drawing: Drawing, className: string): XmlElement[] {
  return elementsNamed(drawing.svg, 'rect').filter((r) => r.attributes.class === className);
}

/** One bar of a bar chart as drawn: label, the bar's classes, the bar's and its track's widths, the value's text. */
export interface DrawnBar {
  label: string;
  className: string;
  width: number;
  track: number;
  trackX: number;
  trackY: number;
  value: string;
  /** Where the label is written: its x and baseline, and whether it ends there (before the bar) or starts there. */
  labelAt: { x: number; y: number; anchor: 'end' | 'start' };
}

/** The bars of a bar-chart drawing, top to bottom: each row is a label, a track, the bar and the value. */
export function barsOf(drawing: Drawing): DrawnBar[] {
  const parts = drawing.svg.children.slice(2);
  const bars: DrawnBar[] = [];
  for (let i = 0; i < parts.length; i += 4) {
    const [label, track, bar, value] = parts.slice(i, i + 4) as [XmlElement, XmlElement, XmlElement, XmlElement];
    expect([label.name, track.name, bar.name, value.name]).toEqual(['text', 'rect', 'rect', 'text']);
    expect(track.attributes.class).toBe('chart-bar-track');
    expect(bar.attributes.x).toBe(track.attributes.x);
    bars.push({
      label: label.text,
      className: bar.attributes.class ?? '',
      width: Number(bar.attributes.width),
      track: Number(track.attributes.width),
      trackX: Number(track.attributes.x),
      trackY: Number(track.attributes.y),
      value: value.text,
      labelAt: {
        x: Number(label.attributes.x),
        y: Number(label.attributes.y),
        anchor: label.attributes['text-anchor'] === 'end' ? 'end' : 'start',
      },
    });
  }
  expect(bars.length * 4).toBe(parts.length);
  return bars;
}

/** The Content-Security-Policy header as directive → sources. */
export function cspOf(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name as string, sources]),
  );
}

/** The texts of the page's `<style>` elements. */
export function stylesOf(page: string): string[] {
  return [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
}

/** The CSP source that allows an inline style of this text. */
export const styleSource = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
