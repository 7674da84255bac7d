import { createHash } from 'node:crypto';
import { ERROR_CODES, endpoints } from '@svc/contracts';
import { anchorOf, currentFramework, readJson, specificationOf } from '@svc/methodology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_PATHS } from '../../src/http/site.js';
import { escapeHtml, html, inlineCode } from '../../src/pages/html.js';
import { openStore } from '../../src/store/store.js';
import { cspOf, expectStrictCsp } from '../support/csp.js';
import { exampleText, type InputsDoc, WORKED_ID, withInput } from '../support/documents.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';

describe('html escaping', () => {
  it('escapes every interpolated value and keeps nested fragments', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;',
    );
    const evil = '<img src=x onerror=alert(1)>';
    expect(html`<p>${evil}</p>${[html`<b>${evil}</b>`, 'x<y']}`.text).toBe(
      '<p>&lt;img src=x onerror=alert(1)&gt;</p><b>&lt;img src=x onerror=alert(1)&gt;</b>x&lt;y',
    );
    expect(inlineCode('an `x-api-key` <b> and `a<b`').text).toBe(
      'an <code>x-api-key</code> &lt;b&gt; and <code>a&lt;b</code>',
    );
    expect(inlineCode('odd ` tick').text).toBe('odd &#96; tick');
  });
});

describe.each(engines)('site pages (%s)', (engine) => {
  let server: TestServer;
  let example: string;
  let firstId: string;

  beforeAll(async () => {
    server = await startTestServer(engine);
    example = exampleText('worked-example');
    expect(await server.publish(example)).toBe('published');
    const listed = (await (await server.get('/api/public/changelog')).json()) as {
      data: { risk_indicator_id: string }[];
    };
    firstId = listed.data[0]?.risk_indicator_id ?? '';
    expect(firstId).toMatch(/^ri_[0-9a-f]{24}$/);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('shows a published Risk Indicator with its figures, hashes and how to reproduce it', async () => {
    const res = await server.get(`/verify/${firstId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictCsp(res);
    expect(cspOf(res).get('style-src')).toEqual(["'self'"]);
    const text = await res.text();
    expect(text).toContain('Example Sats Lending');
    expect(text).toContain('78.46');
    expect(text).toContain('MEDIUM');
    expect(text).toContain('DCRF v1.0');
    expect(text).toContain('1.0000');
    // The evaluation date is a date: shown as one, not as the midnight timestamp scored_at carries.
    expect(text).toContain('<dt>Scored (evaluation date)</dt><dd><time datetime="2026-06-30">2026-06-30</time></dd>');
    expect(text).not.toContain('2026-06-30T00:00:00Z');
    expect(text).toContain('2026-06-02T10:00:00.000Z');
    // No cap holds it: the gap to the next band, and the single changes that close it.
    expect(text).toContain(
      '1.54 points to LOW (80.00). Any one of these changes alone reaches LOW: collateral_coverage_ratio 1.4778,',
    );
    // Alternatives, each enough alone: "a, b or c", never "a, b and c".
    const reach = /Any one of these changes alone reaches LOW: ([^<]*)\.<\/p>/.exec(text)?.[1] ?? '';
    expect(reach).toMatch(/, redemption_notice_days 0 or duration_gap_days 16$/);
    expect(reach).not.toContain(' and ');
    // The published summary names two criteria both after "anchored by" and after "held back by" (they are among the
    // largest contributions and the largest shortfalls at once); it stays as published, and the page says what it means.
    expect(text).toContain(
      'anchored by Collateral coverage, Custody model and Security incidents (36 months), held back by Collateral coverage, Custody model and Asset-liability duration gap',
    );
    const bothWays =
      '<p class="both-ways">Collateral coverage (9.00 points earned, 3.00 short of its weight) and Custody model (9.00 points earned, 3.00 short of its weight) are named both as anchoring and as holding back the score: each is heavily weighted, so it earns among the most points yet still falls among the furthest short of its full weight.</p>';
    expect(text).toContain(bothWays);
    expect(await (await server.get(`/providers/${WORKED_ID}`)).text()).toContain(bothWays);
    expect(text).toContain('Current.');
    expect(text).not.toContain('Superseded.');
    expect(text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
    expect(text).toContain('/assets/site.css');
    expect(text).toContain(`/api/v1/computation/${firstId}`);
    expect(text).toContain('svc verify package.json');
    // Every check the page asks for is made with public endpoints, but the package itself (Enterprise).
    expect(text).toContain(`curl -sS -o framework.json ${server.url}/api/public/frameworks/1.0`);
    expect([...text.matchAll(/\/api\/v1\/[\w/-]+/g)].map((m) => m[0])).toEqual([`/api/v1/computation/${firstId}`]);
    const framework = await server.get('/api/public/frameworks/1.0');
    expect(framework.status).toBe(200);
    const frameworkSha256 = createHash('sha256')
      .update(Buffer.from(await framework.arrayBuffer()))
      .digest('hex');
    expect(text).toContain(`<dt>framework_sha256</dt><dd class="hash">${frameworkSha256}</dd>`);

    const key = await server.key('ENTERPRISE');
    const pkg = readJson(await (await server.get(`/api/v1/computation/${firstId}`, { key })).text()) as {
      inputs_sha256: string;
      framework: { sha256: string };
      result_sha256: string;
    };
    expect(pkg.framework.sha256).toBe(currentFramework().sha256);
    for (const hash of [pkg.inputs_sha256, pkg.framework.sha256, pkg.result_sha256]) {
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(text).toContain(hash);
    }
  });

  it("says whether the publication's signed statement verifies, and shows the openssl commands that check it", async () => {
    const text = await (await server.get(`/verify/${firstId}`)).text();
    expect(text).toContain('<strong>Signature verifies.</strong>');
    expect(text).toContain(`/api/public/publications/${firstId}`);
    expect(text).toContain('/.well-known/svc-signing-keys.json');
    expect(text).toContain('openssl pkeyutl -verify -pubin -keyform DER -inkey key.der -rawin');
    const signed = (await (await server.get(`/api/public/publications/${firstId}`)).json()) as {
      kid: string;
      statement_sha256: string;
      statement: { package_sha256: string };
    };
    expect(text).toContain(signed.kid);
    expect(text).toContain(signed.statement_sha256);
    expect(text).toContain(signed.statement.package_sha256);
    // A statement changed in the store after it was signed: the page says so rather than vouching for it.
    const store = openStore(server.location);
    try {
      const row = await store.db
        .selectFrom('statements')
        .select(['id', 'statement'])
        .where('risk_indicator_id', '=', firstId)
        .executeTakeFirstOrThrow();
      await store.db
        .updateTable('statements')
        .set({ statement: row.statement.replace('"risk_band":"MEDIUM"', '"risk_band":"LOW"') })
        .where('id', '=', row.id)
        .execute();
      const tampered = await (await server.get(`/verify/${firstId}`)).text();
      expect(tampered).toContain('<strong>Signature does not verify.</strong>');
      expect(tampered).not.toContain('Signature verifies.');
      await store.db.updateTable('statements').set({ statement: row.statement }).where('id', '=', row.id).execute();
    } finally {
      await store.close();
    }
  });

  it('a capped indicator names the cap that holds it below the next band, not "0.01 points to HIGH"', async () => {
    expect(await server.publish(exampleText('multiple-caps'))).toBe('published');
    const listed = (await (await server.get('/api/public/changelog')).json()) as {
      data: { risk_indicator_id: string; provider_name: string }[];
    };
    const capped = listed.data.find((c) => c.provider_name === 'Example Quickyield Earn')?.risk_indicator_id;
    const text = await (await server.get(`/verify/${capped}`)).text();
    expect(text).toContain(
      '<p class="next-band">Hard cap HC-01 (Default or withdrawal freeze, at most 34.99) holds the score at 34.99, below HIGH (35.00): no other input lifts it there while it fires. Any one of these changes alone reaches HIGH: default_or_freeze_36m false.</p>',
    );
    expect(text).not.toContain('0.01 points to HIGH');
  });

  it('says superseded after the provider is re-published with changed inputs', async () => {
    const changed = withInput(readJson(example) as InputsDoc, 'collateral_coverage_ratio', 1.5);
    expect(await server.publish(changed)).toBe('published');
    const listed = (await (await server.get('/api/public/changelog')).json()) as {
      data: { risk_indicator_id: string }[];
    };
    const secondId = listed.data[0]?.risk_indicator_id ?? '';
    expect(secondId).not.toBe(firstId);

    const old = await (await server.get(`/verify/${firstId}`)).text();
    expect(old).toContain('Superseded.');
    expect(old).not.toContain('Current.');
    expect(old).toContain(`href="/verify/${secondId}"`);
    expect(old).toContain('78.46');

    const current = await (await server.get(`/verify/${secondId}`)).text();
    expect(current).toContain('Current.');
  });

  it.each([
    ['an unknown id', 'ri_000000000000000000000000', 'ri_000000000000000000000000'],
    ['a malformed id', 'ri_XYZ', 'ri_XYZ'],
    ['an upper-case id', 'RI_999362CB4DD093D94A9AC28E', 'RI_999362CB4DD093D94A9AC28E'],
    ['markup', '<script>', '&lt;script&gt;'],
    ['an attribute breaker', encodeURIComponent('"><img src=x onerror=alert(1)>'), '&quot;&gt;&lt;img'],
    ['an encoded slash', encodeURIComponent('<script>alert(1)</script>'), '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ])('answers %s with a 404 page that escapes it', async (_name, id, shown) => {
    const res = await server.get(`/verify/${id}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectStrictCsp(res);
    const text = await res.text();
    expect(text).toContain('is not a published Risk Indicator');
    expect(text).toContain(shown);
    expect(text).not.toMatch(/<script|<img/i);
  });

  it('serves the whole generated specification at /methodology, the same blocks as the committed page', async () => {
    const res = await server.get('/methodology');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictCsp(res);
    const text = await res.text();
    expect(text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
    const blocks = specificationOf(currentFramework());
    const headings = blocks.filter((b) => b.kind === 'heading');
    expect(headings.map((h) => h.text)).toContain('12. Texts');
    for (const h of headings) expect(text).toContain(`id="${anchorOf(h.text)}">${inlineCode(h.text).text}</h`);
    // A table of contents before the first section: a link to every section and subsection, each to its anchor.
    const nav = /<nav class="toc" aria-labelledby="contents">[\s\S]*?<\/nav>/.exec(text)?.[0] ?? '';
    expect(text.indexOf(nav)).toBeLessThan(text.indexOf('<h2 id="1-arithmetic-and-determinism">'));
    expect(nav).toContain('<h2 id="contents">Contents</h2>');
    const linked = [...nav.matchAll(/<a href="#([^"]+)">/g)].map((m) => m[1]);
    expect(linked).toEqual(headings.filter((h) => h.level > 1).map((h) => anchorOf(h.text)));
    for (const anchor of linked) expect(text).toContain(`id="${anchor}"`);
    expect(new Set(linked).size).toBe(linked.length);
    for (const b of blocks) {
      if (b.kind === 'code') expect(text).toContain(`<pre><code>${escapeHtml(b.text)}</code></pre>`);
      if (b.kind === 'paragraph') expect(text).toContain(`<p>${inlineCode(b.text).text}</p>`);
    }
  });

  it('serves the interactive reference and every asset it loads from the service itself', async () => {
    const res = await server.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictCsp(res);
    const csp = cspOf(res);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    const text = await res.text();
    expect(text).toContain('id="swagger"');
    expect(text).not.toMatch(/<script(?![^>]*\ssrc=)/i);
    const refs = [...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    const assets = refs.filter((r) => r.startsWith('/assets/'));
    expect(assets).toEqual(
      expect.arrayContaining([
        '/assets/site.css',
        '/assets/swagger-ui/swagger-ui.css',
        '/assets/swagger-ui/swagger-ui-bundle.js',
        '/assets/docs.js',
      ]),
    );
    expect(refs.every((r) => r.startsWith('/') || r.startsWith('#'))).toBe(true);
    for (const asset of assets) {
      const a = await server.get(asset);
      expect(a.status, asset).toBe(200);
      const type = a.headers.get('content-type') ?? '';
      if (asset.endsWith('.css')) expect(type).toMatch(/^text\/css/);
      else if (asset.endsWith('.svg')) expect(type).toBe('image/svg+xml');
      else expect(type).toMatch(/^(text|application)\/javascript/);
      expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await server.get('/assets/docs.js')).text();
    expect(init).toContain('SwaggerUIBundle');
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain("dom_id: '#swagger'");
    expect((await server.get('/openapi.json')).status).toBe(200);
  });

  it('every link on /docs resolves on the service, and what it renders names no file of the repository', async () => {
    const page = await (await server.get('/docs')).text();
    const openapi = await (await server.get('/openapi.json')).text();
    // The page's own links, and those of the document it renders: Markdown links, URLs, externalDocs.
    const texts: string[] = [];
    JSON.parse(openapi, (name, value) => {
      if (typeof value === 'string' && ['description', 'summary', 'url'].includes(name)) texts.push(value);
      return value;
    });
    const links = [
      ...[...page.matchAll(/(?:src|href)="([^"#][^"]*)"/g)].map((m) => m[1] ?? ''),
      ...texts.flatMap((t) => [...t.matchAll(/\]\(([^)\s]+)\)|\bhttps?:\/\/[^\s)"'<>`]+/g)].map((m) => m[1] ?? m[0])),
    ];
    const sameOrigin = [
      ...new Set(
        links.filter((l) => l.startsWith('/') || l.startsWith(server.url)).map((l) => l.replace(server.url, '')),
      ),
    ].map((l) => l || '/');
    expect(sameOrigin).toEqual(
      expect.arrayContaining(['/', '/docs/errors', '/llms.txt', '/methodology', '/openapi.json']),
    );
    const answers: Record<string, number> = {};
    for (const link of sameOrigin) answers[link] = (await server.get(link)).status;
    expect(Object.entries(answers).filter(([, status]) => status < 200 || status > 299)).toEqual([]);
    // A reader of the service cannot open a path of the repository (docs/…, a Markdown file).
    expect(texts.filter((t) => /\b[\w./-]+\.md\b|\bdocs\/(?!errors\b)/.test(t))).toEqual([]);
  });

  it('serves only the Swagger UI files the page needs', async () => {
    for (const path of [
      '/assets/swagger-ui/index.html',
      '/assets/swagger-ui/swagger-initializer.js',
      '/assets/x.css',
    ]) {
      const res = await server.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('lists every error code with its status, title, meaning and anchor', async () => {
    const res = await server.get('/docs/errors');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictCsp(res);
    const text = await res.text();
    for (const [code, e] of Object.entries(ERROR_CODES)) {
      expect(text).toContain(`id="${code}"`);
      expect(text).toContain(`href="#${code}"`);
      expect(text).toContain(`<td>${e.status}</td>`);
      expect(text).toContain(e.title);
    }
    expect(text).toContain('<code>x-api-key</code>');
    expect(text).toContain('application/problem+json');
  });

  it('points problem bodies at an anchor of the errors page', async () => {
    const res = await server.get('/api/v1/scores');
    const problem = (await res.json()) as { type: string; code: string };
    expect(problem.type).toBe(`${server.url}/docs/errors#${problem.code}`);
    expect(await (await server.get('/docs/errors')).text()).toContain(`id="${problem.code}"`);
  });

  it('serves llms.txt with every endpoint, the limits, the errors and the methodology', async () => {
    const res = await server.get('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Risk Indicator Scoring Service');
    expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> /);
    expect(text).toMatch(/^## /m);
    for (const e of Object.values(endpoints)) {
      expect(text).toContain(`[${e.method.toUpperCase()} ${e.path}](${server.url}/docs#/`);
    }
    // as_of, where it is taken, what it means and what is refused.
    expect(text).toMatch(/As of a past instant: `as_of` on `GET \/api\/public\/scores`, `GET \/api\/v1\/scores`/);
    expect(text).toContain('before 2026-04-01 or in the future');
    const fw = currentFramework().definition;
    expect(text).toContain(fw.framework_version);
    for (const m of fw.modules) expect(text).toContain(`${m.id} ${m.label}: weight ${m.weight}`);
    for (const b of fw.bands) expect(text).toContain(b.band);
    for (const c of fw.hard_caps) expect(text).toContain(c.id);
    for (const code of Object.keys(ERROR_CODES)) expect(text).toContain(`[${code}](${server.url}/docs/errors#${code})`);
    expect(text).toContain('x-api-key');
    expect(text).toContain('PROFESSIONAL 1000');
    expect(text).toContain('ENTERPRISE 50000');
    expect(text).toContain('holds no control characters, bidirectional overrides or line separators');
    expect(text).toContain('port 0 or another port below 1024 other than 443');
    for (const path of ['/openapi.json', '/docs', '/docs/errors']) expect(text).toContain(`(${server.url}${path})`);
    // Every link is absolute and well formed.
    for (const m of text.matchAll(/\]\(([^)]+)\)/g)) expect(m[1]).toMatch(/^https?:\/\//);
  });

  it('answers 405 with Allow to other methods on every page', async () => {
    const paths = SITE_PATHS.map((p) => p.replace('/providers/:id', `/providers/${WORKED_ID}`).replace(':id', firstId));
    expect(paths).toEqual(
      expect.arrayContaining([
        '/',
        `/providers/${WORKED_ID}`,
        '/docs',
        '/docs/errors',
        '/llms.txt',
        '/openapi.json',
        `/verify/${firstId}`,
      ]),
    );
    for (const path of paths) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await server.get(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
      }
      const head = await server.get(path, { method: 'HEAD' });
      expect(head.status, `HEAD ${path}`).toBe(200);
    }
  });
});

describe.each(engines)('site pages behind SITE_URL (%s)', (engine) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(engine, { env: { SITE_URL: 'https://scores.example.com/' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('writes absolute links with the configured site and lets the reference call it', async () => {
    const text = await (await server.get('/llms.txt')).text();
    expect(text).toContain('(https://scores.example.com/openapi.json)');
    expect(text).not.toContain(server.url);
    const docs = await server.get('/docs');
    expect(cspOf(docs).get('connect-src')).toEqual(["'self'", 'https://scores.example.com']);
  });
});
