import { showControls } from '@svc/methodology';

/**
 * A small Atom 1.0 (RFC 4287) writer. Every text is written as `type="text"` character data, so a
 * name is never markup in a reader; every character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF,
 * lone surrogates), and every other character the free-text rule refuses (C1 controls, bidi
 * overrides, line separators), is shown as a `\u001b`-style escape, so the document is well-formed
 * whatever a store holds (text written before the rule included).
 */

export interface AtomEntry {
  id: string;
  title: string;
  link: string;
  updated: Date;
  summary: string;
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle: string;
  /** The HTML or JSON page the feed mirrors. */
  alternate: string;
  /** The feed's own URL. */
  self: string;
  updated: Date;
  author: string;
  rights: string;
  entries: readonly AtomEntry[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text as XML character data or an attribute value: shown controls, then the five markup characters escaped. */
export function xmlText(value: string): string {
  return showControls(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const text = (name: string, value: string, indent: string) =>
  `${indent}<${name} type="text">${xmlText(value)}</${name}>`;

const link = (rel: string, href: string, indent: string, type?: string) =>
  `${indent}<link rel="${rel}"${type ? ` type="${type}"` : ''} href="${xmlText(href)}"/>`;

/** The feed as an XML document (UTF-8). */
export function atomDocument(feed: AtomFeed): string {
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xmlText(feed.id)}</id>`,
    text('title', feed.title, '  '),
    text('subtitle', feed.subtitle, '  '),
    `  <updated>${feed.updated.toISOString()}</updated>`,
    link('alternate', feed.alternate, '  '),
    link('self', feed.self, '  ', 'application/atom+xml'),
    `  <author><name>${xmlText(feed.author)}</name></author>`,
    text('rights', feed.rights, '  '),
  ];
  for (const e of feed.entries) {
    lines.push(
      '  <entry>',
      `    <id>${xmlText(e.id)}</id>`,
      text('title', e.title, '    '),
      link('alternate', e.link, '    '),
      `    <updated>${e.updated.toISOString()}</updated>`,
      text('summary', e.summary, '    '),
      '  </entry>',
    );
  }
  lines.push('</feed>', '');
  return lines.join('\n');
}
