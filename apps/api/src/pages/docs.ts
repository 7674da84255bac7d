import { ERROR_CODES, type ErrorCode } from '@svc/contracts';
import { html, inlineCode, page } from './html.js';

/** The interactive reference: Swagger UI (served from /assets/swagger-ui/) started by /assets/docs.js. */
export function apiReferencePage(): string {
  const body = html`<noscript><p class="note">The interactive reference needs JavaScript. The same description is
available as <a href="/openapi.json">OpenAPI 3.1 JSON</a>, with the <a href="/docs/errors">error codes</a> and
<a href="/llms.txt">llms.txt</a>.</p></noscript>
<div id="swagger"></div>
`;
  return page(
    {
      title: 'API reference: Risk Indicator Scoring Service',
      stylesheets: ['/assets/swagger-ui/swagger-ui.css'],
      scripts: ['/assets/swagger-ui/swagger-ui-bundle.js', '/assets/docs.js'],
      bare: true,
    },
    body,
  );
}

/** Every error code with its status, title and meaning; problem bodies link here by `#code`. */
export function errorsPage(siteUrl: string): string {
  const codes = Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][];
  const rows = codes.map(
    ([code, e]) =>
      html`<tr id="${code}"><td><a href="#${code}"><code>${code}</code></a></td><td>${e.status}</td><td>${e.title}</td><td>${inlineCode(e.about)}</td></tr>
`,
  );
  const example = JSON.stringify(
    {
      type: `${siteUrl}/docs/errors#insufficient_tier`,
      title: ERROR_CODES.insufficient_tier.title,
      status: ERROR_CODES.insufficient_tier.status,
      detail: 'this endpoint needs tier ENTERPRISE or above; the key is PROFESSIONAL',
      instance: '/api/v1/computation/ri_999362cb4dd093d94a9ac28e',
      code: 'insufficient_tier',
      request_id: '3f0b6c1e-8a5d-4e57-9a43-2d7f1c9b8e10',
      required_tier: 'ENTERPRISE',
    },
    null,
    2,
  );
  const body = html`<h1>Error codes</h1>
<p>Every error is answered as RFC 9457 problem details (<code>application/problem+json</code>) with a stable
<code>code</code>, the <code>request_id</code> (also in the <code>x-request-id</code> header) and a <code>type</code>
that points at the code's entry on this page. Validation problems list every field in <code>errors</code>
(<code>[{path, message}]</code>); answers to retry carry a <code>Retry-After</code> header and
<code>retry_after_seconds</code>.</p>
<div class="wide"><table>
<thead><tr><th>Code</th><th>Status</th><th>Title</th><th>Meaning</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>
<h2>Example</h2>
<pre><code>${example}</code></pre>
`;
  return page({ title: 'Error codes: Risk Indicator Scoring Service' }, body);
}
