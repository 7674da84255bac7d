/**
 * A small HTML builder: every interpolated value is escaped unless it is
 * already markup built by `html` (or marked with `raw` for constant text).
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** Markup that is safe to insert as is. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`; nested `html` fragments and arrays of them stay markup. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Constant markup written in this code base, never data. */
export function raw(text: string): SafeHtml {
  return new SafeHtml(text);
}

/** Shows `backticked` words of a short description as code, escaping every part. */
export function inlineCode(text: string): SafeHtml {
  const parts = text.split('`');
  // An odd count of backticks leaves the last one as text.
  const closed = parts.length % 2 === 1 ? parts : [...parts.slice(0, -2), `${parts.at(-2)}\`${parts.at(-1)}`];
  return new SafeHtml(
    closed.map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part))).join(''),
  );
}

export interface PageOptions {
  title: string;
  /** Extra stylesheets after the site's own (paths on this service). */
  stylesheets?: string[];
  /** Scripts (paths on this service); never inline. */
  scripts?: string[];
  /** The page brings its own styles for the main content (the API reference). */
  bare?: boolean;
}

/** The site's page shell: header, main content, footer; styles and scripts from /assets only. */
export function page(options: PageOptions, body: SafeHtml): string {
  const styles = ['/assets/site.css', ...(options.stylesheets ?? [])];
  const doc = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title}</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
${styles.map((href) => html`<link rel="stylesheet" href="${href}">\n`)}${(options.scripts ?? []).map(
  (src) => html`<script src="${src}" defer></script>\n`,
)}</head>
<body>
<header class="site"><a class="brand" href="/docs">Risk Indicator Scoring Service</a>
<nav><a href="/">Ratings</a> <a href="/docs">API reference</a> <a href="/methodology">Methodology</a> <a href="/docs/errors">Errors</a> <a href="/llms.txt">llms.txt</a> <a href="/openapi.json">OpenAPI</a></nav></header>
<main${options.bare ? '' : raw(' class="content"')}>
${body}
</main>
<footer class="site"><p>Risk Indicators are deterministic outputs of a published framework applied to approved inputs. They are not credit ratings or investment advice.</p></footer>
</body>
</html>
`;
  return doc.text;
}
