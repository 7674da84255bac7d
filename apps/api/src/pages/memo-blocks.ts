import { createHash } from 'node:crypto';
import { showControls } from '@svc/methodology';
import { CHART_CSS } from './chart.js';
import { html, raw, type SafeHtml } from './html.js';

/**
 * Credit memos: a fixed template filled from a published indicator (or a portfolio score), written
 * once as blocks and rendered as Markdown or as an HTML page, so both forms always say the same. A
 * figure (a chart) is drawn in the HTML page only: the table after it holds the same figures, and is
 * what the Markdown memo carries.
 */
export type Block =
  | { kind: 'heading'; level: 1 | 2; text: string }
  | { kind: 'paragraph'; text: string | Inline[] }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: (string | number)[][] }
  | { kind: 'figure'; svg: SafeHtml; caption: string };

/** A run of text, an identifier shown as code, or a link written out (its address is its text). */
export type Inline = string | { code: string } | { link: string };

export type MemoFormat = 'md' | 'html';

export interface RenderedMemo {
  body: string;
  contentType: string;
}

// ---- rendering ----

/** Text that Markdown would read as markup (a provider named `*Acme*` or `[x](y)`) is escaped. */
function mdText(text: string): string {
  return showControls(text.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>#|~&]/g, (c) => `\\${c}`);
}

/**
 * A link as Markdown: an absolute URL as an autolink (`<https://…/verify/ri_…>`, inside which nothing is
 * escaped, so it reads and copies as it is), anything else (a relative address) as a code span.
 */
function mdLink(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:[^\s<>`]*$/i.test(url)) return `<${url}>`;
  return mdCode(url);
}

/** An identifier as a code span, in which nothing is escaped; text holding a backtick stays escaped text. */
const mdCode = (text: string) => (/[`\r\n]/.test(text) ? mdText(text) : `\`${text}\``);

const inlines = (text: string | Inline[]): Inline[] => (typeof text === 'string' ? [text] : text);

function markdown(blocks: Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'heading') out.push(`${'#'.repeat(b.level)} ${mdText(b.text)}`);
    else if (b.kind === 'paragraph')
      out.push(
        inlines(b.text)
          .map((i) => (typeof i === 'string' ? mdText(i) : 'code' in i ? mdCode(i.code) : mdLink(i.link)))
          .join(''),
      );
    else if (b.kind === 'list') out.push(b.items.map((i) => `- ${mdText(i)}`).join('\n'));
    else if (b.kind === 'table') {
      const row = (cells: (string | number)[]) => `| ${cells.map((c) => mdText(String(c))).join(' | ')} |`;
      out.push([row(b.head), `|${b.head.map(() => ' --- ').join('|')}|`, ...b.rows.map(row)].join('\n'));
    }
  }
  return `${out.join('\n\n')}\n`;
}

/** Every text of the blocks with its control characters shown (`\u001b`), as a store written before the rule may hold them. */
function visible(blocks: Block[]): Block[] {
  const line = (i: Inline): Inline => (typeof i === 'string' ? showControls(i) : i);
  return blocks.map((b): Block => {
    if (b.kind === 'heading') return { ...b, text: showControls(b.text) };
    if (b.kind === 'paragraph')
      return { ...b, text: typeof b.text === 'string' ? showControls(b.text) : b.text.map(line) };
    if (b.kind === 'list') return { ...b, items: b.items.map(showControls) };
    // A chart's texts are shown so when it is drawn (its svg is markup already).
    if (b.kind === 'figure') return { ...b, caption: showControls(b.caption) };
    return { ...b, rows: b.rows.map((r) => r.map((c) => (typeof c === 'string' ? showControls(c) : c))) };
  });
}

function htmlBlocks(blocks: Block[]): SafeHtml {
  return html`${visible(blocks).map((b) => {
    if (b.kind === 'heading') return b.level === 1 ? html`<h1>${b.text}</h1>\n` : html`<h2>${b.text}</h2>\n`;
    if (b.kind === 'paragraph')
      return html`<p>${inlines(b.text).map((i) => (typeof i === 'string' ? i : 'code' in i ? html`<code>${i.code}</code>` : html`<a href="${i.link}">${i.link}</a>`))}</p>\n`;
    if (b.kind === 'list') return html`<ul>${b.items.map((i) => html`<li>${i}</li>`)}</ul>\n`;
    if (b.kind === 'figure') return html`<figure>\n${b.svg}<figcaption>${b.caption}</figcaption>\n</figure>\n`;
    return html`<div class="wide"><table><thead><tr>${b.head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${b.rows.map(
      (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`,
    )}</tbody></table></div>\n`;
  })}`;
}

/**
 * The styles of an HTML memo, inline: a memo is one self-contained document that still reads well
 * when saved and opened from a file or mailed (it links nothing of the site's). The charts' styles
 * come first, as the site serves them; a printed page shows their wide drawing.
 */
const MEMO_STYLE = [
  CHART_CSS.trimEnd(),
  'body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff;max-width:60rem;margin:2rem auto;padding:0 1rem}',
  'h1{font-size:1.6rem;margin:0 0 .5rem}',
  'h2{font-size:1.15rem;margin:2rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid #d0d7de}',
  'table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.9rem}',
  'th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}',
  'th{background:#f6f8fa}',
  // A table wider than a phone scrolls in its own box; the page keeps the window's width.
  '.wide{overflow-x:auto}',
  'a{color:#0550ae;overflow-wrap:anywhere}',
  'figure{margin:1rem 0}',
  'figcaption{color:#57606a;font-size:.85rem}',
  '@media print{body{margin:0;max-width:none;font-size:11pt}a{color:inherit}.wide{overflow:visible}.chart-narrow{display:none}.chart-wide{display:block}}',
].join('\n');

/** The CSP of an HTML memo: its own inline styles, by hash, and nothing else (no script, no fetch). */
const MEMO_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(MEMO_STYLE, 'utf8').digest('base64')}'; base-uri 'none'; form-action 'none'`;
export const MEMO_CSP = `${MEMO_POLICY}; frame-ancestors 'none'`;

/** A whole HTML document: the policy travels with it (a meta element cannot carry frame-ancestors). */
function memoDocument(title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${MEMO_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${raw(MEMO_STYLE)}</style>
</head>
<body>
<article class="memo">
${body}</article>
</body>
</html>
`.text;
}

export function render(title: string, blocks: Block[], format: MemoFormat): RenderedMemo {
  if (format === 'md') return { body: markdown(blocks), contentType: 'text/markdown; charset=utf-8' };
  return { body: memoDocument(showControls(title), htmlBlocks(blocks)), contentType: 'text/html; charset=utf-8' };
}
