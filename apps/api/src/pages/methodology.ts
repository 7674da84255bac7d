import { anchorOf, type Block, type Framework, specificationOf } from '@svc/methodology';
import { html, inlineCode, page, type SafeHtml } from './html.js';

/**
 * The methodology page: the same blocks as docs/methodology/dcrf-<version>.md, from the same generator, so
 * the page served and the page committed are one specification.
 */
export function methodologyPage(framework: Framework): string {
  let text = rendered.get(framework);
  if (text === undefined) {
    const title = `${framework.definition.framework_version} specification: Risk Indicator Scoring Service`;
    const blocks = specificationOf(framework);
    const first = blocks.findIndex((b) => b.kind === 'heading' && b.level === 2);
    // The contents go before the first section, after the title and what the page is.
    const [intro, sections] = first < 0 ? [blocks, []] : [blocks.slice(0, first), blocks.slice(first)];
    text = page({ title }, html`${intro.map(blockHtml)}${contents(blocks)}${sections.map(blockHtml)}`);
    rendered.set(framework, text);
  }
  return text;
}

/** By framework: a framework is frozen, and its page scores the worked example, so it is rendered once. */
const rendered = new WeakMap<Framework, string>();

function blockHtml(block: Block): SafeHtml | string {
  switch (block.kind) {
    case 'heading':
      return heading(block.level, anchorOf(block.text), inlineCode(block.text));
    case 'paragraph':
      return html`<p>${inlineCode(block.text)}</p>\n`;
    case 'list':
      return html`<ul>\n${block.items.map((item) => html`<li>${inlineCode(item)}</li>\n`)}</ul>\n`;
    case 'table':
      return html`<div class="wide"><table>
<thead><tr>${block.head.map((h) => html`<th>${inlineCode(h)}</th>`)}</tr></thead>
<tbody>
${block.rows.map((row) => html`<tr>${row.map((c) => html`<td>${inlineCode(c)}</td>`)}</tr>\n`)}</tbody>
</table></div>\n`;
    case 'code':
      return html`<pre><code>${block.text}</code></pre>\n`;
    case 'note':
      return '';
  }
}

/**
 * A linked list of the page's sections and, under each, its subsections (the page is tens of thousands of pixels
 * tall); each links to the anchor its heading carries.
 */
function contents(blocks: readonly Block[]): SafeHtml | string {
  const sections: { text: string; subsections: string[] }[] = [];
  for (const b of blocks) {
    if (b.kind !== 'heading' || b.level === 1) continue;
    if (b.level === 2) sections.push({ text: b.text, subsections: [] });
    else sections.at(-1)?.subsections.push(b.text);
  }
  if (sections.length === 0) return '';
  const link = (text: string) => html`<a href="#${anchorOf(text)}">${inlineCode(text)}</a>`;
  return html`<nav class="toc" aria-labelledby="contents"><h2 id="contents">Contents</h2>
<ul>
${sections.map(
  (s) =>
    html`<li>${link(s.text)}${
      s.subsections.length === 0 ? '' : html`<ul>${s.subsections.map((sub) => html`<li>${link(sub)}</li>`)}</ul>`
    }</li>\n`,
)}</ul>
</nav>
`;
}

function heading(level: 1 | 2 | 3, id: string, content: SafeHtml): SafeHtml {
  if (level === 1) return html`<h1 id="${id}">${content}</h1>\n`;
  if (level === 2) return html`<h2 id="${id}">${content}</h2>\n`;
  return html`<h3 id="${id}">${content}</h3>\n`;
}
