import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, WORKED_ID } from '../support/documents.js';
import { expectInvalid } from '../support/responses.js';
import { publish, startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
const UUID = '0f0f0f0f-0000-4000-8000-000000000000';

/**
 * Cursors that decode to JSON of the list's own shape but hold what no row ever has: NUL (PostgreSQL text refuses
 * it, so an unchecked cursor was a 500 there and a 200 on SQLite), escape characters, wrong types and formats.
 */
const BY_LIST: [string, string, unknown[]][] = [
  [
    'the scores list',
    '/api/v1/scores',
    [
      { name: 'a\u0000b', id: UUID },
      { name: 'Credit\u001b[2J', id: UUID },
      { name: 'a', id: '\u0000' },
      { name: 'a', id: 'not-a-uuid' },
      { name: 'a', id: UUID, extra: 1 },
      { name: 7, id: UUID },
    ],
  ],
  [
    'the issuances list',
    '/api/v1/issuances',
    [
      { a: '2026-06-02T10:00:00.000Z\u0000', id: 'iss_1' },
      { a: '2026-06-02T10:00:00.000Z', id: 'iss\u0000' },
      { a: 'yesterday', id: 'iss_1' },
      { a: '2026-06-02T10:00:00.000Z', id: 'x'.repeat(65) },
      { a: null, id: 'iss_1' },
    ],
  ],
  [
    'a score history',
    `/api/v1/scores/${WORKED_ID}/history`,
    [{ n: -1 }, { n: 1.5 }, { n: '1' }, { n: 2 ** 60 }, { n: 2 ** 31 }, { n: 2 ** 31, w: 1 }],
  ],
  // 2^31 is one more than PostgreSQL's integer holds: it was a 500 there ("value out of range") and a 200 on SQLite.
  ['the change feed', '/api/public/changelog', [{ n: -1 }, { n: '\u0000' }, { n: 1, m: 2 }, { n: 2 ** 31 }]],
  ['the rating actions', '/api/public/rating-actions', [{ n: -1 }, { n: 2 ** 31 }, { n: 2 ** 53 }]],
  ["a provider's rating actions", `/api/public/rating-actions?provider_id=${WORKED_ID}`, [{ n: 2 ** 31 }]],
  [
    'the public list',
    '/api/public/scores',
    [
      { name: 'a\u0000b', id: UUID },
      { name: '', id: UUID },
    ],
  ],
];

describe.each(engines)('cursors are checked field by field on %s', (engine) => {
  let server: TestServer;
  let key = '';

  beforeAll(async () => {
    server = await startTestServer(engine);
    await publish(server, example('worked-example'));
    key = await server.key('ENTERPRISE');
  });
  afterAll(() => server?.stop());

  for (const [what, path, positions] of BY_LIST) {
    it.each(positions.map((p) => [JSON.stringify(p), p]))(
      `${what}: a cursor of %s gets 400 naming query.cursor`,
      async (_, position) => {
        const separator = path.includes('?') ? '&' : '?';
        await expectInvalid(await server.get(`${path}${separator}cursor=${cursorOf(position)}`, { key }), [
          'query.cursor',
        ]);
      },
    );
  }

  it.each([
    ['not base64url', '***'],
    ['base64url of no JSON', 'bm90LWpzb24'],
    ['too long', 'A'.repeat(2049)],
  ])('a cursor that is %s gets 400 naming query.cursor', async (_, cursor) => {
    await expectInvalid(await server.get(`/api/v1/scores?cursor=${cursor}`, { key }), ['query.cursor']);
  });

  it.each(['/api/public/changelog', '/api/public/rating-actions', `/api/v1/scores/${WORKED_ID}/history`])(
    '%s: the largest position the store holds (2^31 - 1) is a cursor, answered 200',
    async (path) => {
      const response = await server.get(`${path}?cursor=${cursorOf({ n: 2 ** 31 - 1 })}`, { key });
      expect(response.status).toBe(200);
    },
  );

  it('a cursor the list wrote still reads the next page', async () => {
    await publish(server, example('low-band'));
    const first = (await (await server.get('/api/v1/scores?limit=1', { key })).json()) as { next_cursor: string };
    const next = await server.get(`/api/v1/scores?limit=1&cursor=${first.next_cursor}`, { key });
    expect(next.status).toBe(200);
    const issuances = await server.get('/api/v1/issuances?limit=1', { key });
    expect(issuances.status).toBe(200);
  });
});
