/** The Content Security Policies of the site's pages (the API's own answers carry headers.ts's, which allows nothing). */

const directives = (d: Record<string, string>) =>
  Object.entries(d)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');

const FRAME = { 'base-uri': "'none'", 'form-action': "'none'", 'frame-ancestors': "'none'" };

/** The site's own pages: no script at all, styles and images from this service only. */
export const PAGE_CSP = directives({
  'default-src': "'none'",
  'script-src': "'none'",
  'style-src': "'self'",
  'img-src': "'self'",
  ...FRAME,
});

/** The pages with the as_of form (a GET to the page itself): the site's policy, forms sent to this service only. */
export const FORM_PAGE_CSP = directives({
  'default-src': "'none'",
  'script-src': "'none'",
  'style-src': "'self'",
  'img-src': "'self'",
  ...FRAME,
  'form-action': "'self'",
});

/**
 * The API reference. Scripts stay 'self' only (the bundle and /assets/docs.js are files, nothing inline),
 * but Swagger UI (React) sets `style` attributes on its elements, which CSP counts as inline styles, so
 * style-src needs 'unsafe-inline'; its stylesheet draws icons from data: URIs, hence img-src data:; and it
 * fetches /openapi.json (and "try it out" calls the API) with fetch, hence connect-src.
 */
export function docsCsp(siteUrl: string | null): string {
  const api = siteUrl ? ` ${new URL(siteUrl).origin}` : '';
  return directives({
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data:",
    'connect-src': `'self'${api}`,
    ...FRAME,
  });
}
