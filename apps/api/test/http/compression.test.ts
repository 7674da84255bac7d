import { once } from 'node:events';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedCodings, compressAnswer, rememberedForms } from '../../src/http/compression.js';
import { REMEMBER_FROM_BYTES, RememberedForms } from '../../src/services/shared/encoded.js';
import { manualClock } from '../support/clock.js';
import { example, variantOf } from '../support/documents.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came over the wire (compressed when Content-Encoding says so). */
  wire: Buffer;
  /** The body decoded by its Content-Encoding. */
  body: Buffer;
}

/** One request over loopback with node:http, which neither asks for nor decodes a coding by itself (fetch does both). */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const coding = wire.length > 0 ? res.headers['content-encoding'] : undefined;
        const body = coding === 'br' ? brotliDecompressSync(wire) : coding === 'gzip' ? gunzipSync(wire) : wire;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, wire, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Asks until `ready` holds of the answer (a form compressed in the background is served once built). */
async function until(ask: () => Promise<Raw>, ready: (r: Raw) => boolean): Promise<Raw> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await ask();
    if (ready(answer) || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Each Accept-Encoding the suites send, and the coding the answer must be in (null: the bytes as they are). */
const NEGOTIATIONS: [header: string | undefined, coding: string | null][] = [
  ['br', 'br'],
  ['gzip', 'gzip'],
  ['gzip, deflate, br', 'br'],
  ['gzip;q=1, br;q=0.5', 'gzip'],
  ['x-gzip', 'gzip'],
  ['gzip;q=0, br;q=0', null],
  ['identity', null],
  ['*', 'br'],
  ['*, br;q=0', 'gzip'],
  ['', null],
  [undefined, null],
];

const PROVIDERS = 8;
/** A few per-IP addresses (TRUST_PROXY=true), so no suite spends the public limit of one. */
let nextIp = 1;
const ip = () => ({ 'x-forwarded-for': `198.51.100.${nextIp++ % 250}` });

describe('Accept-Encoding: the codings a header accepts, best first (RFC 9110 12.5.3)', () => {
  it('orders by q-value, then br before gzip; * stands for the codings not named; q=0 refuses', () => {
    expect(acceptedCodings(undefined)).toEqual([]);
    expect(acceptedCodings('')).toEqual([]);
    expect(acceptedCodings('identity')).toEqual([]);
    expect(acceptedCodings('gzip, br')).toEqual(['br', 'gzip']);
    expect(acceptedCodings('gzip;q=0.9, br;q=0.1')).toEqual(['gzip', 'br']);
    expect(acceptedCodings('GZIP ; Q=0.5')).toEqual(['gzip']);
    expect(acceptedCodings('*;q=0.2, gzip')).toEqual(['gzip', 'br']);
    expect(acceptedCodings('*, gzip;q=0')).toEqual(['br']);
    expect(acceptedCodings('br;q=0, gzip;q=0, *')).toEqual([]);
    expect(acceptedCodings('deflate, compress')).toEqual([]);
    expect(acceptedCodings('br;q=nonsense, gzip')).toEqual(['gzip']);
  });
});

describe.each(engines)('compression on %s', (engine) => {
  const clock = manualClock('2026-08-01T09:00:00.000Z');
  let key = '';
  const server = useServer(
    engine,
    async (s) => {
      for (let n = 1; n <= PROVIDERS; n++) await publish(s, variantOf(example('worked-example'), n));
      key = await s.key('ENTERPRISE');
    },
    { clock, env: { TRUST_PROXY: 'true' } },
  );
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    raw(server().url, path, { ...ip(), ...headers }, method);
  const withKey = () => ({ 'x-api-key': key });

  /** The routes whose answers are compressed: built once (the list, its pages) and per request (the rest). */
  const routes = (): [name: string, path: string, headers: Record<string, string>][] => [
    ['the public list (answered before Express)', '/api/public/scores', {}],
    ['a page of the public list', '/api/public/scores?limit=100', {}],
    ['a page of the keyed list', '/api/v1/scores?limit=100', withKey()],
    [
      'the score detail (answered before Express)',
      `/api/v1/scores/${variantOf(example('worked-example'), 1).provider.id}`,
      withKey(),
    ],
    ['the CSV export', '/api/v1/scores/export.csv', withKey()],
    ['the changelog feed (Atom)', '/api/public/changelog.atom', {}],
    ['the ratings page (HTML)', '/', {}],
    ['llms.txt', '/llms.txt', {}],
    ['a JSON Schema', '/schemas/computation-package.json', {}],
  ];

  /** Waits until the forms built once are ready (the list and its page of 100, both codings). */
  const settled = async () => {
    for (const path of ['/api/public/scores', '/api/public/scores?limit=100']) {
      for (const coding of ['br', 'gzip']) {
        const r = await until(
          () => get(path, { 'accept-encoding': coding }),
          (a) => a.headers['content-encoding'] === coding,
        );
        expect(r.headers['content-encoding']).toBe(coding);
      }
    }
  };

  beforeAll(async () => {
    await settled();
  });

  it.each(NEGOTIATIONS)(
    'Accept-Encoding %j gets %s on every compressible route; decoded, the bytes are the identity bytes',
    async (header, coding) => {
      for (const [name, path, headers] of routes()) {
        const identity = await get(path, { ...headers, 'accept-encoding': 'identity' });
        expect(identity.status, name).toBe(200);
        expect(identity.wire.length, name).toBeGreaterThanOrEqual(1024);
        const answer = await get(path, { ...headers, ...(header === undefined ? {} : { 'accept-encoding': header }) });
        expect(answer.status, name).toBe(200);
        expect(answer.headers['content-encoding'], name).toBe(coding ?? undefined);
        expect(answer.headers.vary, name).toMatch(/\bAccept-Encoding\b/);
        expect(Number(answer.headers['content-length']), name).toBe(answer.wire.length);
        if (coding !== null) expect(answer.wire.length, name).toBeLessThan(identity.wire.length / 2);
        // The CSV's file name and the page's request-specific fields aside, the bytes are the same.
        expect(answer.body.toString('utf8'), name).toBe(identity.body.toString('utf8'));
      }
    },
  );

  it('an answer under 1 KiB goes as it is, still with Vary (a problem, a small page)', async () => {
    for (const path of ['/api/public/scores?limit=1', '/api/public/scores?limit=0']) {
      const r = await get(path, { 'accept-encoding': 'br, gzip' });
      expect(r.wire.length).toBeLessThan(1024);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toMatch(/\bAccept-Encoding\b/);
    }
  });

  describe('ETag per coding, and 304 per coding (RFC 9110 8.8.3, 13.1.2)', () => {
    const tagged = (): [string, string][] => [
      ['the public list (answered before Express)', '/api/public/scores'],
      ['a page of the public list', '/api/public/scores?limit=100'],
      ['a framework (the hash as ETag)', '/api/public/frameworks/1.0'],
      ['a JSON Schema', '/schemas/computation-package.json'],
    ];

    it('each coding has its own strong ETag: the bytes’ with the coding inside the quotes', async () => {
      for (const [name, path] of tagged()) {
        const identity = (await get(path, { 'accept-encoding': 'identity' })).headers.etag as string;
        expect(identity, name).toMatch(/^"[^"]+"$/);
        const bare = identity.slice(1, -1);
        expect((await get(path, { 'accept-encoding': 'br' })).headers.etag, name).toBe(`"${bare}-br"`);
        expect((await get(path, { 'accept-encoding': 'gzip' })).headers.etag, name).toBe(`"${bare}-gzip"`);
      }
    });

    it('If-None-Match is 304 only for the ETag of the form this request would get, weak or strong', async () => {
      for (const [name, path] of tagged()) {
        const etags = Object.fromEntries(
          await Promise.all(
            ['identity', 'br', 'gzip'].map(
              async (c) => [c, (await get(path, { 'accept-encoding': c })).headers.etag as string] as const,
            ),
          ),
        );
        for (const asked of ['identity', 'br', 'gzip']) {
          for (const held of ['identity', 'br', 'gzip']) {
            for (const tag of [etags[held], `W/${etags[held]}`]) {
              const r = await get(path, { 'accept-encoding': asked, 'if-none-match': tag ?? '' });
              const label = `${name}: ${asked} with ${tag}`;
              expect(r.status, label).toBe(asked === held ? 304 : 200);
              expect(r.headers.etag, label).toBe(etags[asked]);
              expect(r.headers.vary, label).toMatch(/\bAccept-Encoding\b/);
              if (r.status === 304) {
                expect(r.wire.length, label).toBe(0);
                expect(r.headers['content-encoding'], label).toBeUndefined();
              } else {
                expect(r.headers['content-encoding'], label).toBe(asked === 'identity' ? undefined : asked);
              }
            }
          }
        }
      }
    });

    it('HEAD carries the headers of the GET in the same coding (length, ETag, Content-Encoding), no body', async () => {
      for (const [name, path] of [...tagged(), ['a page of the keyed list', '/api/v1/scores?limit=100'] as const]) {
        const headers = path.startsWith('/api/v1') ? withKey() : {};
        for (const coding of ['br', 'gzip', 'identity']) {
          const got = await get(path, { ...headers, 'accept-encoding': coding });
          const head = await get(path, { ...headers, 'accept-encoding': coding }, 'HEAD');
          const label = `${name}, ${coding}`;
          expect(head.status, label).toBe(200);
          expect(head.wire.length, label).toBe(0);
          for (const field of ['content-encoding', 'content-length', 'etag', 'vary', 'content-type']) {
            expect(head.headers[field], `${label}: ${field}`).toEqual(got.headers[field]);
          }
        }
      }
    });
  });

  describe('the public list and its pages are compressed once per publication version', () => {
    it('many requests in every coding build no form again; a publication builds the new list’s once', async () => {
      const s = server();
      const snapshot = s.services.snapshot;
      await settled();
      const before = snapshot.compressions;
      for (let i = 0; i < 10; i++) {
        for (const coding of ['br', 'gzip', 'identity', '*']) {
          await get('/api/public/scores', { 'accept-encoding': coding });
          await get('/api/public/scores?limit=100', { 'accept-encoding': coding }, i % 2 ? 'HEAD' : 'GET');
        }
      }
      expect(snapshot.compressions).toBe(before);

      await publish(s, variantOf(example('worked-example'), PROVIDERS + 1));
      await get('/api/public/scores'); // the building request (cached: false) is served once and not compressed
      await settled();
      // Two forms (br and gzip) of the new list and of its page of 100, once each.
      expect(snapshot.compressions).toBe(before + 4);
      const list = await get('/api/public/scores', { 'accept-encoding': 'br' });
      const names = (JSON.parse(list.body.toString('utf8')) as { data: unknown[] }).data;
      expect(names).toHaveLength(PROVIDERS + 1);
      expect(snapshot.compressions).toBe(before + 4);
    });

    it('another instance over the same store serves the new list’s compressed bytes after a publication there', async () => {
      const s = server();
      const other = await s.startInstance();
      const fromOther = (headers: Record<string, string>) =>
        raw(other.url, '/api/public/scores', { ...ip(), ...headers });
      const ready = await until(
        () => fromOther({ 'accept-encoding': 'br' }),
        (a) => a.headers['content-encoding'] === 'br',
      );
      const count = (r: Raw) => (JSON.parse(r.body.toString('utf8')) as { data: unknown[] }).data.length;
      const had = count(ready);

      await publish(s, variantOf(example('worked-example'), PROVIDERS + 2));
      // The other instance reads the publication version at most once a second (its clock is this one).
      clock.advance(1_500);
      const fresh = await until(
        () => fromOther({ 'accept-encoding': 'br' }),
        (a) => a.headers['content-encoding'] === 'br' && count(a) === had + 1,
      );
      expect(count(fresh)).toBe(had + 1);
      expect(fresh.headers.etag).not.toBe(ready.headers.etag);
      const identity = await fromOther({ 'accept-encoding': 'identity' });
      expect(fresh.body.equals(identity.body)).toBe(true);
      expect(fresh.headers.etag).toBe(`${(identity.headers.etag as string).slice(0, -1)}-br"`);
      const gzip = await until(
        () => fromOther({ 'accept-encoding': 'gzip' }),
        (a) => a.headers['content-encoding'] === 'gzip',
      );
      expect(gzip.body.equals(identity.body)).toBe(true);
    });
  });
  describe('a large answer built per request is compressed once for the same bytes (decision 0041)', () => {
    it('the keyed page asked again in a coding is served the form built for its bytes; a new publication builds anew', async () => {
      const path = '/api/v1/scores?limit=100';
      const identity = await get(path, { ...withKey(), 'accept-encoding': 'identity' });
      expect(identity.wire.length).toBeGreaterThanOrEqual(REMEMBER_FROM_BYTES);
      for (const coding of ['br', 'gzip']) {
        const first = await get(path, { ...withKey(), 'accept-encoding': coding });
        const built = rememberedForms.compressions;
        const hits = rememberedForms.hits;
        for (let i = 0; i < 3; i++) {
          const again = await get(path, { ...withKey(), 'accept-encoding': coding });
          expect(again.headers['content-encoding']).toBe(coding);
          expect(again.wire.equals(first.wire)).toBe(true);
          expect(again.body.equals(identity.body)).toBe(true);
        }
        expect(rememberedForms.compressions).toBe(built);
        expect(rememberedForms.hits).toBe(hits + 3);
      }

      await publish(server(), variantOf(example('worked-example'), PROVIDERS + 3));
      const built = rememberedForms.compressions;
      const fresh = await get(path, { ...withKey(), 'accept-encoding': 'br' });
      expect(rememberedForms.compressions).toBe(built + 1);
      const now = await get(path, { ...withKey(), 'accept-encoding': 'identity' });
      expect(fresh.body.equals(now.body)).toBe(true);
      expect(now.body.equals(identity.body)).toBe(false);
    });
  });
});

describe('the compression layer on a bare server (answers no route of the service gives today)', () => {
  let bare: Server;
  let base = '';
  const big = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ i, name: `provider ${i}` })) });
  const handlers: Record<string, (res: ServerResponse) => void> = {
    '/no-transform': (res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'public, no-transform');
      res.end(big);
    },
    '/streamed': (res) => {
      res.setHeader('Content-Type', 'text/csv');
      res.write(big.slice(0, 2000));
      setTimeout(() => res.end(big.slice(2000)), 20);
    },
    '/events': (res) => {
      res.setHeader('Content-Type', 'text/event-stream');
      res.end(`data: ${big}\n\n`);
    },
    '/octets': (res) => {
      res.setHeader('Content-Type', 'application/octet-stream');
      res.end(big);
    },
    '/coded': (res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Content-Encoding', 'deflate');
      res.end(Buffer.from(big));
    },
  };

  beforeAll(async () => {
    bare = createServer((req, res) => {
      compressAnswer(req, res);
      handlers[req.url ?? '']?.(res);
    });
    bare.listen(0, '127.0.0.1');
    await once(bare, 'listening');
    base = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    bare.close();
  });

  it('Cache-Control: no-transform is sent as it is', async () => {
    const r = await raw(base, '/no-transform', { 'accept-encoding': 'br, gzip' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.wire.toString('utf8')).toBe(big);
  });

  it('a streamed answer streams on, as it is', async () => {
    const r = await raw(base, '/streamed', { 'accept-encoding': 'br, gzip' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.wire.toString('utf8')).toBe(big);
  });

  it('an event stream, bytes of no text type, and a body already coded are sent as they are, without Vary', async () => {
    for (const path of ['/events', '/octets']) {
      const r = await raw(base, path, { 'accept-encoding': 'br, gzip' });
      expect(r.headers['content-encoding'], path).toBeUndefined();
      expect(r.headers.vary, path).toBeUndefined();
    }
    const coded = await raw(base, '/coded', { 'accept-encoding': 'br' });
    expect(coded.headers['content-encoding']).toBe('deflate');
    expect(coded.wire.toString('utf8')).toBe(big);
  });
});

describe('RememberedForms: the forms of large answers, by their bytes', () => {
  const body = (fill: string, size = 100_000) => Buffer.alloc(size, fill);
  const form = (text: string) => Buffer.from(text);

  it('serves a form only for bytes equal to those it was built from, whatever the fingerprint says', () => {
    const memo = new RememberedForms();
    const a = body('a');
    memo.set(a, 'br', form('A'));
    expect(memo.get(Buffer.from(a), 'br')?.toString()).toBe('A');
    expect(memo.get(a, 'gzip')).toBeUndefined();
    // Same length, same first and last 4 KiB: the same fingerprint, other bytes.
    const b = Buffer.from(a);
    b[50_000] = 0x62;
    expect(memo.get(b, 'br')).toBeUndefined();
    memo.set(b, 'br', form('B'));
    expect(memo.get(b, 'br')?.toString()).toBe('B');
    expect(memo.get(a, 'br')).toBeUndefined();
    expect(memo.hits).toBe(2);
    expect(memo.compressions).toBe(2);
  });

  it('keeps a small form zlib hands as a slice of a larger chunk on its own, so the bound counts what is held', () => {
    const memo = new RememberedForms();
    const chunk = Buffer.alloc(16 * 1024, 0x41);
    memo.set(body('a'), 'br', chunk.subarray(0, 10));
    const kept = memo.get(body('a'), 'br') as Buffer;
    expect(kept.toString()).toBe('AAAAAAAAAA');
    expect(kept.buffer.byteLength).toBe(10);
    expect(memo.size).toBe(100_000 + 10);
  });

  it('keeps a copy of the bytes: a body changed after it was remembered is not served the old form', () => {
    const memo = new RememberedForms();
    const a = body('a');
    const original = Buffer.from(a);
    memo.set(a, 'gzip', form('A'));
    a[10] = 0x7a;
    expect(memo.get(a, 'gzip')).toBeUndefined();
    expect(memo.get(original, 'gzip')?.toString()).toBe('A');
  });

  it('holds at most its capacity, forgetting the least recently served first; a larger form is not kept', () => {
    const size = 100_000 + 1;
    const memo = new RememberedForms(3 * size);
    const [a, b, c, d] = [body('a'), body('b'), body('c'), body('d')];
    memo.set(a, 'br', form('A'));
    memo.set(b, 'br', form('B'));
    memo.set(c, 'br', form('C'));
    expect(memo.size).toBe(3 * size);
    expect(memo.get(a, 'br')?.toString()).toBe('A'); // a is now the most recently served
    memo.set(d, 'br', form('D'));
    expect(memo.size).toBe(3 * size);
    expect(memo.get(b, 'br')).toBeUndefined();
    for (const [bytes, text] of [
      [a, 'A'],
      [c, 'C'],
      [d, 'D'],
    ] as const)
      expect(memo.get(bytes, 'br')?.toString()).toBe(text);
    memo.set(body('e', 4 * size), 'br', form('E'));
    expect(memo.get(body('e', 4 * size), 'br')).toBeUndefined();
    expect(memo.size).toBe(3 * size);
  });
});
