import { type Endpoint, endpoints, ProblemSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example, WORKED_ID } from '../support/documents.js';
import { expectProblem } from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every route path of the contract with the methods it answers (HEAD with GET, OPTIONS always). */
function allowedByPath(): Map<string, string> {
  const byPath = new Map<string, string[]>();
  for (const e of Object.values(endpoints) as Endpoint[]) {
    const concrete = e.path.replace('{providerId}', WORKED_ID).replace('{id}', 'ri_000000000000000000000000');
    byPath.set(concrete, [...(byPath.get(concrete) ?? []), e.method.toUpperCase()]);
  }
  byPath.set('/openapi.json', ['GET']);
  return new Map(
    [...byPath].map(([path, methods]) => [
      path,
      [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '),
    ]),
  );
}

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** About 200 malformed or odd requests: weird paths, huge and odd query values, unicode, bad bodies and headers. */
function malformedRequests(key: string): Probe[] {
  const probes: Probe[] = [];
  const paths = [
    '/',
    '//',
    '/api',
    '/api/',
    '/api/v1',
    '/api/v1/',
    '/api/v2/scores',
    '/api/v1/scores/',
    '/api/v1/scores//history',
    '/api/v1/scores/../status',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/api/v1/scores/%00',
    '/api/v1/scores/%E2%82%AC',
    '/api/v1/scores/%F0%9F%92%A5',
    '/api/v1/scores/%ZZ',
    '/api/v1/scores/%E0%A4%A/history',
    `/api/v1/scores/${'a'.repeat(5000)}`,
    `/api/v1/scores/${WORKED_ID}/history/extra`,
    '/api/v1/computation/ri_%zz',
    '/api/v1/computation/%',
    `/api/v1/computation/${'ri_'.repeat(1000)}`,
    '/api/public/scores/extra',
    '/api/public/changelog.atom/x',
    '/api/public/changelog.json',
    '/openapi.json/x',
    '/verify/%3Cscript%3E',
    '/api/v1/STATUS',
    '/API/V1/SCORES',
    '/api/v1/scores;jsessionid=1',
    '/api/v1/scores%2F..%2Fstatus',
  ];
  for (const path of paths) {
    probes.push({ method: 'GET', path, headers: { 'x-api-key': key } });
    probes.push({ method: 'GET', path });
  }
  const queries = [
    `limit=${'9'.repeat(400)}`,
    'limit=1e3',
    'limit=0x10',
    'limit=Infinity',
    'limit=NaN',
    'limit=-0',
    'limit= 1',
    'limit[]=1',
    'limit[a]=1',
    '__proto__=1',
    '__proto__[limit]=1',
    'constructor[prototype][x]=1',
    'hasOwnProperty=1',
    `cursor=${'A'.repeat(4000)}`,
    'cursor=%00',
    'cursor=eyJuYW1lIjpudWxsLCJpZCI6bnVsbH0',
    'cursor=eyJuIjoxZTk5OX0',
    'cursor=eyJuIjotMX0',
    'cursor=W10',
    'cursor=bnVsbA',
    'planner_type=%F0%9F%92%A5',
    'planner_type=%FF',
    'planner_type=BTC',
    'planner_type=',
    'planner_type',
    '&&&',
    '=',
    '%',
    '%%%',
    `x=${'%E2%82%AC'.repeat(500)}`,
  ];
  for (const q of queries) probes.push({ method: 'GET', path: `/api/v1/scores?${q}`, headers: { 'x-api-key': key } });
  const otherQueries = [
    'status=%00',
    'type[]=bond',
    'status=ANNOUNCED&status=PRICING',
    `version=${'v'.repeat(9000)}`,
    'version=%00',
    'version=DCRF%20v1.0%00',
    'version=..%2F..%2Fetc',
    `since=${'2026-01-01'.repeat(50)}`,
    'since=2026-01-01T25:61:61Z',
    'since=0000-00-00',
    'since=9999-99-99',
    'since=-271821-04-19',
    'since=2026-01-01T00:00:00.1234567891Z',
  ];
  for (const q of otherQueries) {
    for (const path of [
      '/api/v1/issuances',
      '/api/v1/methodology',
      '/api/public/changelog',
      `/api/v1/scores/${WORKED_ID}/history`,
    ]) {
      probes.push({ method: 'GET', path: `${path}?${q}`, headers: { 'x-api-key': key } });
    }
  }
  const bodies: (string | Uint8Array)[] = [
    '{',
    '{"provider_name":',
    '[1,2',
    '{"provider_name":"\\ud800 lone surrogate"}',
    '{"provider_name":"ab\\u0000cd"}',
    '{"provider_name":1e999}',
    '{"provider_name":"ab","provider_name":"cd"}',
    '{"__proto__":{"polluted":1},"provider_name":"Proto Co"}',
    '{"constructor":{"prototype":{"x":1}},"provider_name":"Ctor Co"}',
    '\ufeff{"provider_name":"Bom Co"}',
    '{"provider_name":"Trailing Co"} x',
    '{"provider_name":"Trailing Co"},',
    "{'provider_name':'Quotes'}",
    '{provider_name:"Bare"}',
    '{"provider_name":"Comment Co"/* c */}',
    '{"provider_name":NaN}',
    '{"provider_name":"Tab\tCo"}',
    `{"provider_name":"${'n'.repeat(60_000)}"}`,
    '['.repeat(20_000),
    `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
    `{"provider_name":"Deep","message":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    '{"provider_name":"ok","website":"http://[::1"}',
    '{"provider_name":"ok","website":"https://example.com:99999"}',
    '{"provider_name":"ok","contact_email":"a@b@c"}',
    '{"provider_name":"\u202e\u0000evil"}',
    '{"provider_name":"💥💥"}',
    'true',
    '1',
    '"',
    '\u0000',
    new Uint8Array([0xef, 0xbb]),
    new Uint8Array([0xfe, 0xff, 0x00, 0x7b]),
    new Uint8Array([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
  ];
  for (const body of bodies) {
    probes.push({
      method: 'POST',
      path: '/api/public/score-request',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }
  for (const type of [
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json, text/plain',
    'application/jsonx',
    'application/problem+json',
  ]) {
    probes.push({ method: 'POST', path: '/api/public/score-request', headers: { 'content-type': type }, body: '{}' });
  }
  for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
    for (const path of [
      '/api/v1/scores',
      `/api/v1/scores/${WORKED_ID}`,
      '/api/public/scores',
      '/api/v1/status',
      '/nowhere',
    ]) {
      probes.push({ method, path, headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
    }
  }
  const oddHeaders: Record<string, string>[] = [
    { 'x-api-key': 'k'.repeat(8000) },
    { 'x-api-key': 'svc_live_\u00ff\u00fe' },
    { 'x-api-key': `${key}, ${key}` },
    { 'x-api-key': ' ' },
    { 'if-none-match': '"'.repeat(2000) },
    { 'x-request-id': 'r'.repeat(5000) },
    { accept: 'application/xml' },
    { 'accept-encoding': 'gzip;q=abc' },
    { range: 'bytes=0-1' },
  ];
  for (const headers of oddHeaders) {
    probes.push({ method: 'GET', path: '/api/v1/scores', headers });
    probes.push({ method: 'GET', path: '/api/public/changelog', headers });
  }
  return probes;
}

async function send(s: TestServer, p: Probe): Promise<Response> {
  return fetch(`${s.url}${p.path}`, {
    method: p.method,
    headers: p.headers ?? {},
    ...(p.body === undefined ? {} : { body: p.body }),
    signal: AbortSignal.timeout(10_000),
  });
}

describe.each(engines)('errors and cross-cutting rules on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    key = await s.key('ENTERPRISE');
  });

  describe('unknown routes and methods', () => {
    for (const path of ['/api/v1/nope', '/nope', '/api/v2/scores', `/api/v1/scores/${WORKED_ID}/extra`]) {
      it(`an unknown route gets a 404 not_found problem (${path})`, async () => {
        const problem = await expectProblem(await server().get(path, { key }), 'not_found');
        expect(problem.instance).toBe(path);
      });
    }

    it('a POST to an unknown route gets 404 too', async () => {
      await expectProblem(await fetch(`${server().url}/api/v1/nope`, { method: 'POST' }), 'not_found');
    });

    for (const [path, allow] of allowedByPath()) {
      const wrong = allow.includes('GET') ? 'DELETE' : 'PUT';
      it(`a wrong method gets 405 with Allow: ${allow} (${wrong} ${path})`, async () => {
        const res = await fetch(`${server().url}${path}`, { method: wrong });
        expect(res.headers.get('allow')).toBe(allow);
        await expectProblem(res, 'method_not_allowed');
      });
    }

    it('405 is answered before authentication: no key is needed to learn the methods', async () => {
      const res = await fetch(`${server().url}/api/v1/scores`, { method: 'POST' });
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      await expectProblem(res, 'method_not_allowed');
    });

    it('OPTIONS on the site document answers 204 with Allow', async () => {
      const res = await fetch(`${server().url}/openapi.json`, { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(await res.text()).toBe('');
    });

    it('OPTIONS on every API route answers 204 with an Allow header listing its methods', async () => {
      const wrong: string[] = [];
      for (const [path, allow] of allowedByPath()) {
        const res = await fetch(`${server().url}${path}`, { method: 'OPTIONS' });
        await res.body?.cancel();
        if (res.status !== 204 || res.headers.get('allow') !== allow) {
          wrong.push(`OPTIONS ${path} -> ${res.status}, Allow: ${res.headers.get('allow')} (expected ${allow})`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('a CORS preflight on an API route is answered for any origin', async () => {
      const res = await fetch(`${server().url}/api/v1/scores`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toContain('x-api-key');
    });
  });

  describe('malformed paths', () => {
    for (const path of [
      '/api/v1/scores/%E0%A4%A',
      '/api/v1/scores/%ZZ/history',
      '/api/v1/computation/%',
      '/api/v1/scores/%C0%AF',
    ]) {
      it(`a malformed percent-encoding in a path parameter gets 400 (${path})`, async () => {
        await expectProblem(await server().get(path, { key }), 'invalid_request');
      });
    }
  });

  /** One answer of every kind: public and keyed, 2xx, 400, 401, 404, 405, a preflight, JSON, Atom and OpenAPI. */
  async function answersOfEveryKind(): Promise<Response[]> {
    const s = server();
    return [
      await s.get('/api/v1/status'),
      await s.get('/api/v1/scores', { key }),
      await s.get('/api/v1/scores'),
      await s.get('/nope'),
      await fetch(`${s.url}/api/v1/scores`, { method: 'DELETE' }),
      await fetch(`${s.url}/api/v1/scores`, { method: 'OPTIONS' }),
      await s.get('/api/public/scores'),
      await s.get('/api/public/changelog.atom'),
      await s.get('/openapi.json'),
      await s.get('/api/v1/scores?limit=0', { key }),
    ];
  }

  describe('request ids', () => {
    it('every response carries an x-request-id, a fresh UUID when the caller sent none', async () => {
      const answers = await answersOfEveryKind();
      const ids = new Set<string>();
      for (const res of answers) {
        const id = res.headers.get('x-request-id') ?? '';
        expect(id, res.url).toMatch(UUID);
        ids.add(id);
        await res.body?.cancel();
      }
      expect(ids.size).toBe(answers.length);
    });

    for (const id of ['abc-123.DEF_4', 'a', 'r'.repeat(64), '0f0f0f0f-0000-4000-8000-000000000000']) {
      it(`a safe incoming x-request-id is echoed, also in problems (${id.slice(0, 20)})`, async () => {
        const ok = await server().get('/api/v1/status', { headers: { 'x-request-id': id } });
        expect(ok.headers.get('x-request-id')).toBe(id);
        await ok.body?.cancel();
        const res = await server().get('/nope', { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id')).toBe(id);
        expect((await expectProblem(res, 'not_found')).request_id).toBe(id);
      });
    }

    for (const id of ['has space', 'r'.repeat(65), 'x<script>', 'a/b', 'line\tbreak', 'semi;colon', '%41']) {
      it(`an unsafe incoming x-request-id is replaced by a fresh one (${JSON.stringify(id.slice(0, 12))})`, async () => {
        const res = await server().get('/api/v1/status', { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id')).toMatch(UUID);
        await res.body?.cancel();
      });
    }
  });

  describe('security headers', () => {
    it('every kind of answer carries the security headers and no x-powered-by', async () => {
      for (const res of await answersOfEveryKind()) {
        const h = res.headers;
        expect(h.get('content-security-policy'), res.url).toContain("default-src 'none'");
        expect(h.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(h.get('x-content-type-options')).toBe('nosniff');
        expect(h.get('x-powered-by')).toBeNull();
        expect(h.get('referrer-policy')).toBe('no-referrer');
        await res.body?.cancel();
      }
    });

    it('problems are not cached', async () => {
      const res = await server().get('/api/v1/scores');
      expect(res.headers.get('cache-control')).toBe('no-store');
      await res.body?.cancel();
    });
  });

  describe('robustness', () => {
    it('no 5xx and no stack trace in any body across ~200 malformed requests', async () => {
      const s = server();
      const probes = malformedRequests(key);
      expect(probes.length).toBeGreaterThanOrEqual(200);
      const faults: string[] = [];
      for (const p of probes) {
        const what = `${p.method} ${p.path.slice(0, 80)} ${typeof p.body === 'string' ? p.body.slice(0, 40) : ''}`;
        let res: Response;
        try {
          res = await send(s, p);
        } catch (error) {
          faults.push(`${what}: no answer (${(error as Error).message})`);
          continue;
        }
        const text = await res.text();
        if (res.status >= 500) faults.push(`${what}: ${res.status} ${text.slice(0, 200)}`);
        if (text.includes('    at ') || /\bat .*\.(ts|js):\d+/.test(text))
          faults.push(`${what}: stack trace in the body`);
        if ((res.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
          const parsed = ProblemSchema.safeParse(JSON.parse(text));
          if (!parsed.success || parsed.data.status !== res.status) faults.push(`${what}: a malformed problem`);
        }
      }
      expect(faults).toEqual([]);
      // And the server still answers normally afterwards.
      expect((await s.get('/api/v1/scores', { key })).status).toBe(200);
    });
  });
});
