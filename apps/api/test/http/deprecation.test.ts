import { Validator } from '@seriousme/openapi-schema-validator';
import type { Deprecation } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example, LOW_BAND_ID, UNKNOWN_PROVIDER_ID, WORKED_ID } from '../support/documents.js';
import { expectProblem } from '../support/responses.js';
import { publish, startTestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/** Deprecated in these tests only: no route is deprecated in the contract. */
const SCORE: Deprecation = {
  announced: '2026-11-26',
  sunset: '2027-05-26',
  link: 'https://scores.example.com/docs/api-changelog#2026-11-26-deprecations',
  replacement: 'GET /api/v1/scores?provider_id=…',
};
const FEED: Deprecation = { announced: '2026-12-31', sunset: '2027-07-01', link: '/docs/api-changelog' };
const PUBLIC: Deprecation = { announced: '2026-08-31', sunset: '2027-03-01', link: '/docs/api-changelog' };

/** RFC 9651 section 3.3.7 sf-date: "@" and an integer of at most 15 digits; its Unix seconds. */
function sfDate(value: string | null): number {
  const match = /^@(-?\d{1,15})$/.exec(value ?? '');
  if (!match?.[1]) throw new Error(`not a structured-field date: ${value}`);
  return Number(match[1]);
}

const DAYS = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const IMF_FIXDATE = new RegExp(`^(${DAYS}), (\\d{2}) (${MONTHS}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);

/** RFC 9110 section 5.6.7 HTTP-date in its preferred form (IMF-fixdate); its Unix seconds, checked against the day. */
function httpDate(value: string | null): number {
  const match = IMF_FIXDATE.exec(value ?? '');
  if (!match) throw new Error(`not an IMF-fixdate: ${value}`);
  const [, day, dd, mon, yyyy, hh, mm, ss] = match;
  const at = Date.UTC(
    Number(yyyy),
    MONTHS.split('|').indexOf(mon ?? ''),
    Number(dd),
    Number(hh),
    Number(mm),
    Number(ss),
  );
  expect(DAYS.split('|')[(new Date(at).getUTCDay() + 6) % 7]).toBe(day);
  return at / 1000;
}

/** RFC 8288 link-values of a Link header: each target with its parameters (quoted or not). */
function links(value: string | null): { target: string; params: Record<string, string> }[] {
  const found: { target: string; params: Record<string, string> }[] = [];
  const linkValue = /\s*<([^>]*)>((?:\s*;\s*[A-Za-z0-9!#$&+.^_`|~-]+\s*=\s*(?:"[^"]*"|[^",;\s]+))*)\s*(?:,|$)/y;
  const source = value ?? '';
  while (linkValue.lastIndex < source.length) {
    const start = linkValue.lastIndex;
    const match = linkValue.exec(source);
    if (!match) throw new Error(`not a Link header at ${start}: ${source}`);
    const params: Record<string, string> = {};
    for (const p of (match[2] ?? '').matchAll(/;\s*([^=\s]+)\s*=\s*(?:"([^"]*)"|([^",;\s]+))/g)) {
      params[(p[1] ?? '').toLowerCase()] = p[2] ?? p[3] ?? '';
    }
    found.push({ target: match[1] ?? '', params });
  }
  return found;
}

/** Asserts the three headers of `d`, exactly, and returns the Link header's link-values. */
function expectNotice(res: Response, d: Deprecation) {
  const deprecation = res.headers.get('deprecation');
  const sunset = res.headers.get('sunset');
  expect(sfDate(deprecation)).toBe(Date.parse(`${d.announced}T00:00:00Z`) / 1000);
  expect(httpDate(sunset)).toBe(Date.parse(`${d.sunset}T00:00:00Z`) / 1000);
  // RFC 9745 section 4: the sunset is never before the deprecation.
  expect(httpDate(sunset)).toBeGreaterThan(sfDate(deprecation));
  const found = links(res.headers.get('link'));
  expect(found.filter((l) => l.params.rel === 'deprecation')).toEqual([
    { target: d.link, params: { rel: 'deprecation' } },
  ]);
  return found;
}

function expectNoNotice(res: Response): void {
  expect(res.headers.get('deprecation')).toBeNull();
  expect(res.headers.get('sunset')).toBeNull();
  expect(links(res.headers.get('link')).filter((l) => l.params.rel === 'deprecation')).toEqual([]);
}

describe('the header parsers of this test', () => {
  it('read the examples of RFC 9745 and RFC 8288', () => {
    expect(sfDate('@1688169599')).toBe(1688169599);
    expect(httpDate('Sun, 30 Jun 2024 23:59:59 GMT')).toBe(1719791999);
    expect(() => sfDate('1688169599')).toThrow();
    expect(() => sfDate('@1688169599.5')).toThrow();
    expect(() => httpDate('Sunday, 30-Jun-24 23:59:59 GMT')).toThrow();
    expect(links('<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html"')).toEqual([
      { target: 'https://developer.example.com/deprecation', params: { rel: 'deprecation', type: 'text/html' } },
    ]);
    expect(links('</a?x=1,2>; rel=next, </b>; rel="deprecation"').map((l) => l.target)).toEqual(['/a?x=1,2', '/b']);
    expect(() => links('<a> rel=next')).toThrow();
  });
});

describe.each(engines)('a route deprecated by the server, over HTTP on %s', (engine) => {
  const server = useServer(
    engine,
    async (s) => {
      await publish(s, example('worked-example'));
      await publish(s, example('low-band'));
    },
    { deprecations: { getScore: SCORE, getChangelog: FEED, listPublicScores: PUBLIC } },
  );

  it('answers as before, with Deprecation (RFC 9745), Sunset (RFC 8594) and Link rel="deprecation"', async () => {
    const key = await server().key('PROFESSIONAL');
    const res = await server().get(`/api/v1/scores/${WORKED_ID}`, { key });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { provider_id: string }).provider_id).toBe(WORKED_ID);
    expect(res.headers.get('deprecation')).toBe('@1795651200');
    expect(res.headers.get('sunset')).toBe('Wed, 26 May 2027 00:00:00 GMT');
    expect(res.headers.get('link')).toBe(
      '<https://scores.example.com/docs/api-changelog#2026-11-26-deprecations>; rel="deprecation"',
    );
    expectNotice(res, SCORE);
    const head = await server().get(`/api/v1/scores/${LOW_BAND_ID}`, { key, method: 'HEAD' });
    expect(head.status).toBe(200);
    expectNotice(head, SCORE);
  });

  it("carries them on the route's refusals too: 400, 401, 403, 404, 406", async () => {
    const key = await server().key('PROFESSIONAL');
    const cases: [Response, Parameters<typeof expectProblem>[1]][] = [
      [await server().get('/api/v1/scores/not-a-uuid', { key }), 'invalid_request'],
      [await server().get(`/api/v1/scores/${WORKED_ID}`), 'missing_api_key'],
      [await server().get(`/api/v1/scores/${WORKED_ID}`, { key: await server().key('FREE') }), 'insufficient_tier'],
      [await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key }), 'not_found'],
      [await server().get(`/api/v1/scores/${WORKED_ID}`, { key, headers: { accept: 'text/html' } }), 'not_acceptable'],
    ];
    for (const [res, code] of cases) {
      expectNotice(res, SCORE);
      await expectProblem(res, code);
    }
  });

  it("keeps a list's next link beside the deprecation link", async () => {
    const res = await server().get('/api/public/changelog?limit=1');
    expect(res.status).toBe(200);
    const found = expectNotice(res, FEED);
    const next = found.filter((l) => l.params.rel === 'next');
    expect(next).toHaveLength(1);
    expect(next[0]?.target).toMatch(/^\/api\/public\/changelog\?limit=1&cursor=/);
    const following = await server().get(next[0]?.target ?? '');
    expect(following.status).toBe(200);
    expectNotice(following, FEED);
  });

  it('the public list answered before Express carries them too, on 200 and 304', async () => {
    const first = await server().get('/api/public/scores');
    expect(first.status).toBe(200);
    expectNotice(first, PUBLIC);
    // The first answer builds the snapshot (`cached: false`); the ETag to send back is of the next ones.
    const res = await server().get('/api/public/scores');
    expectNotice(res, PUBLIC);
    const etag = res.headers.get('etag') ?? '';
    const unchanged = await server().get('/api/public/scores', { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expectNotice(unchanged, PUBLIC);
    // The same answer through Express (a query string leaves the fast path).
    const page = await server().get('/api/public/scores?limit=1');
    expect(page.status).toBe(200);
    expectNotice(page, PUBLIC);
  });

  it('lets scripts in other origins read them (CORS)', async () => {
    const res = await server().get('/api/public/changelog', { headers: { origin: 'https://example.org' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim());
    expect(exposed).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
  });

  it('leaves every other route without them', async () => {
    const key = await server().key('ENTERPRISE');
    for (const path of [
      '/api/v1/status',
      '/api/v1/scores',
      `/api/v1/scores/${WORKED_ID}/history`,
      '/api/v1/methodology',
      '/api/public/changelog.atom',
      '/api/public/frameworks',
      '/api/v1/no-such-route',
      '/openapi.json',
    ]) {
      const res = await server().get(path, { key });
      expect(res.status, path).toBeLessThan(500);
      expectNoNotice(res);
    }
  });

  it('the OpenAPI document of this server marks them deprecated, with the headers, and no other', async () => {
    const doc = (await (await server().get('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { deprecated?: boolean; responses: Record<string, { headers?: object }> }>>;
    };
    const deprecated = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.deprecated === true)
        .map(([method]) => `${method} ${path}`),
    );
    expect(deprecated.sort()).toEqual([
      'get /api/public/changelog',
      'get /api/public/scores',
      'get /api/v1/scores/{providerId}',
    ]);
    const op = doc.paths['/api/v1/scores/{providerId}']?.get;
    for (const status of ['200', '400', '401', '403', '404', '406']) {
      expect(Object.keys(op?.responses[status]?.headers ?? {}), status).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
    }
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
  });

  it('llms.txt says which endpoints are deprecated and until when', async () => {
    const text = await (await server().get('/llms.txt')).text();
    const line = text.split('\n').find((l) => l.startsWith('- [GET /api/v1/scores/{providerId}]'));
    expect(line).toContain('Deprecated since 2026-11-26, sunset 2027-05-26: use GET /api/v1/scores?provider_id=….');
    expect(text.split('\n').filter((l) => l.includes('Deprecated since'))).toHaveLength(3);
  });
});

describe('a deprecation on short notice', () => {
  it('stops the server from starting, naming the route and the earliest sunset', async () => {
    const short = { ...SCORE, sunset: '2027-05-25' };
    await expect(startTestServer(engines[0] ?? 'sqlite', { deprecations: { getScore: short } })).rejects.toThrow(
      'the deprecation of getScore cannot be announced: sunset 2027-05-25 is less than 6 months after the announcement on 2026-11-26: the earliest sunset is 2027-05-26',
    );
  });
});
