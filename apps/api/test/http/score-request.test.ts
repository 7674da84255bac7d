import { gzipSync } from 'node:zlib';
import { CoverageRequestResponseSchema, CoverageRequestStatusResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { setRequestStatus } from '../../src/services/coverage-requests/coverage-requests.js';
import { ctxOf } from '../support/context.js';
import { clientIp, expectInvalid, expectJson, expectProblem, limitHeadersOf } from '../support/responses.js';
import { type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const ReceiptSchema = CoverageRequestResponseSchema.strict();
const StatusSchema = CoverageRequestStatusResponseSchema.strict();
const PATH = '/api/public/score-request';

interface PostOptions {
  ip: string;
  contentType?: string | null;
}

/** POSTs a body (an object is sent as JSON) as the client at `ip` (the server trusts X-Forwarded-For). */
function post(s: TestServer, body: unknown, { ip, contentType = 'application/json' }: PostOptions): Promise<Response> {
  const raw = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  return fetch(`${s.url}${PATH}`, {
    method: 'POST',
    headers: { 'x-forwarded-for': ip, ...(contentType === null ? {} : { 'content-type': contentType }) },
    body: raw,
  });
}

let ips = 0;
/** A client address no other test of this file uses, so each test has its own 5-per-hour budget. */
const newIp = () => clientIp(++ips);

describe.each(engines)('POST /api/public/score-request on %s', (engine) => {
  const server = useServer(engine, async () => {}, { env: { TRUST_PROXY: 'true' } });

  describe('happy path', () => {
    it('answers 202 with a request_id, status RECEIVED and received_at, and stores the request', async () => {
      const before = Date.now();
      const body = {
        provider_name: 'Moonlight Lending',
        website: 'https://moonlight.example',
        contact_email: 'ops@moonlight.example',
        planner_type: 'stablecoin',
        message: 'Please cover us.',
      };
      const receipt = await expectJson(await post(server(), body, { ip: newIp() }), ReceiptSchema, 202);
      expect(receipt.request_id).toMatch(/^cr_[0-9a-f]{24}$/);
      expect(receipt.status).toBe('RECEIVED');
      expect(Date.parse(receipt.received_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(receipt.received_at)).toBeLessThanOrEqual(Date.now());
      const stored = await server()
        .services.store.db.selectFrom('coverage_requests')
        .selectAll()
        .where('id', '=', receipt.request_id)
        .executeTakeFirst();
      expect(stored).toMatchObject({ ...body, status: 'RECEIVED', received_at: receipt.received_at });
    });

    it('only provider_name is required', async () => {
      await expectJson(await post(server(), { provider_name: 'Ab' }, { ip: newIp() }), ReceiptSchema, 202);
    });

    it('the same body again from the same client returns the same request_id, whatever the key order', async () => {
      const ip = newIp();
      const a = await expectJson(
        await post(server(), { provider_name: 'Repeat Co', website: 'http://repeat.example' }, { ip }),
        ReceiptSchema,
        202,
      );
      const b = await expectJson(
        await post(server(), { provider_name: 'Repeat Co', website: 'http://repeat.example' }, { ip }),
        ReceiptSchema,
        202,
      );
      const c = await expectJson(
        await post(server(), '{"website":"http://repeat.example","provider_name":"Repeat Co"}', { ip }),
        ReceiptSchema,
        202,
      );
      expect(b).toEqual(a);
      expect(c).toEqual(a);
    });

    it('a different body gets a new request_id', async () => {
      const ip = newIp();
      const a = await expectJson(await post(server(), { provider_name: 'First Co' }, { ip }), ReceiptSchema, 202);
      const b = await expectJson(await post(server(), { provider_name: 'Second Co' }, { ip }), ReceiptSchema, 202);
      const c = await expectJson(
        await post(server(), { provider_name: 'First Co', message: 'more' }, { ip }),
        ReceiptSchema,
        202,
      );
      expect(new Set([a.request_id, b.request_id, c.request_id]).size).toBe(3);
    });

    it('the same body from another client gets its own request_id', async () => {
      const body = { provider_name: 'Shared Co' };
      const a = await expectJson(await post(server(), body, { ip: newIp() }), ReceiptSchema, 202);
      const b = await expectJson(await post(server(), body, { ip: newIp() }), ReceiptSchema, 202);
      expect(b.request_id).not.toBe(a.request_id);
    });
  });

  describe('errors', () => {
    const cases: [string, unknown, string[]][] = [
      ['a missing provider_name', { website: 'https://x.example' }, ['body.provider_name']],
      ['a 1-character provider_name', { provider_name: 'x' }, ['body.provider_name']],
      ['a provider_name of one character among spaces', { provider_name: '   x   ' }, ['body.provider_name']],
      ['a 201-character provider_name', { provider_name: 'x'.repeat(201) }, ['body.provider_name']],
      ['a provider_name that is not a string', { provider_name: 42 }, ['body.provider_name']],
      ['an ftp:// website', { provider_name: 'Ok Co', website: 'ftp://ok.example' }, ['body.website']],
      ['a javascript: website', { provider_name: 'Ok Co', website: 'javascript:alert(1)' }, ['body.website']],
      ['a website that is not a URL', { provider_name: 'Ok Co', website: 'ok dot example' }, ['body.website']],
      ['a bad contact_email', { provider_name: 'Ok Co', contact_email: 'not-an-email' }, ['body.contact_email']],
      ['a message over 2000 characters', { provider_name: 'Ok Co', message: 'm'.repeat(2001) }, ['body.message']],
      ['an unknown planner_type', { provider_name: 'Ok Co', planner_type: 'gold' }, ['body.planner_type']],
      ['an unknown field', { provider_name: 'Ok Co', phone: '123' }, ['body.phone']],
      ['a provider_name with a NUL', { provider_name: 'Moon\u0000Lending' }, ['body.provider_name']],
      ['a provider_name with a terminal escape', { provider_name: 'Moon\u001b[2J' }, ['body.provider_name']],
      ['a provider_name with a line break', { provider_name: 'Moon\nLending' }, ['body.provider_name']],
      ['a provider_name with a trailing line break', { provider_name: 'Moon Lending\r\n' }, ['body.provider_name']],
      ['a provider_name with a C1 control', { provider_name: 'Moon\u009bLending' }, ['body.provider_name']],
      ['a provider_name with a bidi override', { provider_name: 'Moon\u202eLending' }, ['body.provider_name']],
      ['a provider_name with a bidi isolate', { provider_name: 'Moon\u2067Lending' }, ['body.provider_name']],
      ['a message with a terminal escape', { provider_name: 'Ok Co', message: 'hi\u001b[31m' }, ['body.message']],
      ['a message with a bidi override', { provider_name: 'Ok Co', message: 'hi \u202e' }, ['body.message']],
    ];
    for (const [what, body, paths] of cases) {
      it(`${what} gets 400 naming ${paths.join(', ')}`, async () => {
        await expectInvalid(await post(server(), body, { ip: newIp() }), paths);
      });
    }

    it('a body with every problem at once gets 400 listing every one', async () => {
      const body = {
        provider_name: 'x',
        website: 'javascript:alert(1)',
        contact_email: '@',
        planner_type: 'gold',
        message: 'm'.repeat(2001),
        extra: true,
      };
      const problem = await expectInvalid(await post(server(), body, { ip: newIp() }), [
        'body.provider_name',
        'body.website',
        'body.contact_email',
        'body.planner_type',
        'body.message',
        'body.extra',
      ]);
      for (const field of ['provider_name', 'website', 'contact_email', 'planner_type', 'message', 'extra']) {
        expect(problem.detail).toContain(`body.${field}`);
      }
    });

    it('the bounds themselves are accepted: a 200-character name and a 2000-character message', async () => {
      const body = { provider_name: 'n'.repeat(200), message: 'm'.repeat(2000) };
      await expectJson(await post(server(), body, { ip: newIp() }), ReceiptSchema, 202);
    });

    for (const [what, raw] of [
      ['a JSON array', '[]'],
      ['JSON null', 'null'],
      ['a JSON string', '"Moonlight"'],
    ] as const) {
      it(`${what} as the body gets 400 naming body`, async () => {
        await expectInvalid(await post(server(), raw, { ip: newIp() }), ['body']);
      });
    }

    it('invalid JSON gets 400 naming body', async () => {
      const problem = await expectInvalid(await post(server(), '{"provider_name": "x",', { ip: newIp() }), ['body']);
      expect(problem.errors?.[0]?.message).toMatch(/JSON/);
    });

    it('invalid UTF-8 bytes get 400 naming body', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"provider_name":"'),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}'),
      ]);
      const problem = await expectInvalid(await post(server(), new Uint8Array(bytes), { ip: newIp() }), ['body']);
      expect(problem.errors?.[0]?.message).toMatch(/UTF-8/);
    });

    it('a string with a lone surrogate escape (\\ud800) gets 400, not a 500', async () => {
      const res = await post(server(), '{"provider_name":"Moon \\ud800 Lending"}', { ip: newIp() });
      await expectInvalid(res, ['body.provider_name']);
    });

    it('a NUL character (\\u0000) in a text field is a 400 naming the field, never a 500', async () => {
      const res = await post(server(), '{"provider_name":"Moon\\u0000Lending"}', { ip: newIp() });
      const problem = await expectInvalid(res, ['body.provider_name']);
      expect(problem.errors?.[0]?.message).toBe('must not contain NUL characters');
    });

    it('a terminal escape in provider_name is a 400 naming the field and the character, and nothing is stored', async () => {
      const res = await post(server(), { provider_name: 'Quasar\u001b[2JLending' }, { ip: newIp() });
      const problem = await expectInvalid(res, ['body.provider_name']);
      expect(problem.errors?.[0]?.message).toBe(
        'must not hold control characters, bidirectional overrides or line separators; found U+001B at character 7',
      );
      const stored = await server()
        .services.store.db.selectFrom('coverage_requests')
        .select('provider_name')
        .where('provider_name', 'like', 'Quasar%')
        .execute();
      expect(stored).toEqual([]);
    });

    it('a message may run over several lines (tab, CR and LF), and is stored as sent', async () => {
      const body = { provider_name: 'Multi Line Co', message: 'Dear team,\r\n\tplease cover us.\nThanks' };
      await expectJson(await post(server(), body, { ip: newIp() }), ReceiptSchema, 202);
    });

    it('an empty body gets 400 naming body', async () => {
      await expectInvalid(await post(server(), '', { ip: newIp() }), ['body']);
    });

    it('a text/plain body gets 415 unsupported_media_type', async () => {
      await expectProblem(
        await post(server(), { provider_name: 'Ok Co' }, { ip: newIp(), contentType: 'text/plain' }),
        'unsupported_media_type',
      );
    });

    it('a body without a content type gets 415', async () => {
      await expectProblem(
        await post(server(), new Uint8Array(Buffer.from('{"provider_name":"Ok Co"}')), {
          ip: newIp(),
          contentType: null,
        }),
        'unsupported_media_type',
      );
    });

    it('a JSON body in another charset gets 415', async () => {
      await expectProblem(
        await post(
          server(),
          { provider_name: 'Ok Co' },
          { ip: newIp(), contentType: 'application/json; charset=latin1' },
        ),
        'unsupported_media_type',
      );
    });

    it('a gzip-coded body gets 415 naming Content-Encoding, not a complaint about UTF-8; nothing is stored', async () => {
      for (const coding of ['gzip', 'br', 'x-unknown']) {
        const body =
          coding === 'gzip' ? gzipSync('{"provider_name":"Zipped Co"}') : Buffer.from('{"provider_name":"Zipped Co"}');
        const res = await fetch(`${server().url}${PATH}`, {
          method: 'POST',
          headers: { 'x-forwarded-for': newIp(), 'content-type': 'application/json', 'content-encoding': coding },
          body: new Uint8Array(body),
        });
        const problem = await expectProblem(res, 'unsupported_media_type');
        expect(problem.detail).toContain(`Content-Encoding: "${coding}"`);
      }
      const stored = await server().services.store.db.selectFrom('coverage_requests').select('provider_name').execute();
      expect(stored.map((r) => r.provider_name)).not.toContain('Zipped Co');
      // identity is no coding at all.
      const plain = await fetch(`${server().url}${PATH}`, {
        method: 'POST',
        headers: { 'x-forwarded-for': newIp(), 'content-type': 'application/json', 'content-encoding': 'identity' },
        body: '{"provider_name":"Plain Co"}',
      });
      expect(plain.status).toBe(202);
    });

    it('a 70 KiB body gets 413 payload_too_large', async () => {
      const body = { provider_name: 'Big Co', message: 'm'.repeat(70 * 1024) };
      await expectProblem(await post(server(), body, { ip: newIp() }), 'payload_too_large');
    });

    it('a 70 KiB body sent in chunks without a length gets 413 too', async () => {
      const chunk = new TextEncoder().encode(`"${'m'.repeat(1024)}",`);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 70) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await fetch(`${server().url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': newIp() },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      await expectProblem(res, 'payload_too_large');
    });

    it('GET on the score-request route gets 405 with Allow: POST, OPTIONS', async () => {
      const res = await server().get(PATH);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      await expectProblem(res, 'method_not_allowed');
    });
  });

  describe('resubmissions and the requester following a request', () => {
    it('an identical resubmission within 24 h answers the same request_id and does not spend the 5-an-hour budget', async () => {
      const ip = newIp();
      const body = { provider_name: 'Patient Lending', message: 'still waiting' };
      const first = await post(server(), body, { ip });
      expect(limitHeadersOf(first).remaining).toBe(4);
      const { request_id } = await expectJson(first, ReceiptSchema, 202);
      for (let i = 0; i < 8; i++) {
        const again = await post(server(), { message: 'still waiting', provider_name: 'Patient Lending' }, { ip });
        expect(await expectJson(again, ReceiptSchema, 202)).toMatchObject({ request_id, status: 'RECEIVED' });
        // Counted with the status lookups, not the budget of new requests.
        expect(limitHeadersOf(again).policy).toBe('"minute";q=120;w=60');
      }
      for (let i = 2; i <= 5; i++) {
        const res = await post(server(), { provider_name: `Patient Lending ${i}` }, { ip });
        await expectJson(res, ReceiptSchema, 202);
        expect(limitHeadersOf(res).remaining).toBe(5 - i);
      }
      await expectProblem(await post(server(), { provider_name: 'Patient Lending 6' }, { ip }), 'rate_limited');
      // The budget spent, a resubmission is still answered.
      await expectJson(await post(server(), body, { ip }), ReceiptSchema, 202);
    });

    it('GET /api/public/score-request/{id} answers the status and the note only; a resubmission the status now', async () => {
      const ip = newIp();
      const body = {
        provider_name: 'Curious Lending',
        website: 'https://curious.example',
        contact_email: 'ops@curious.example',
        message: 'private message',
      };
      const { request_id } = await expectJson(await post(server(), body, { ip }), ReceiptSchema, 202);
      const path = `${PATH}/${request_id}`;
      const received = await server().get(path);
      expect(await expectJson(received, StatusSchema)).toEqual({
        request_id,
        status: 'RECEIVED',
        resolution_note: null,
      });
      expect(limitHeadersOf(received).policy).toBe('"minute";q=120;w=60');

      const { store, clock } = server().services;
      await setRequestStatus(ctxOf(store, { clock }), { requestId: request_id, status: 'IN_REVIEW' });
      expect(await expectJson(await server().get(path), StatusSchema)).toMatchObject({ status: 'IN_REVIEW' });
      await setRequestStatus(ctxOf(store, { clock }), {
        requestId: request_id,
        status: 'DECLINED',
        note: 'Outside our coverage universe.',
      });
      const declined = await server().get(path);
      const text = await declined.clone().text();
      expect(await expectJson(declined, StatusSchema)).toEqual({
        request_id,
        status: 'DECLINED',
        resolution_note: 'Outside our coverage universe.',
      });
      for (const sent of [body.provider_name, body.website, body.contact_email, body.message]) {
        expect(text).not.toContain(sent);
      }
      expect(await expectJson(await post(server(), body, { ip }), ReceiptSchema, 202)).toMatchObject({
        request_id,
        status: 'DECLINED',
      });
    });

    it('an unknown request id is 404 not_found; a malformed one 400 naming path.requestId', async () => {
      await expectProblem(await server().get(`${PATH}/cr_${'0'.repeat(24)}`), 'not_found');
      await expectInvalid(await server().get(`${PATH}/cr_XYZ`), ['path.requestId']);
      await expectInvalid(await server().get(`${PATH}/${'a'.repeat(300)}`), ['path.requestId']);
    });
  });

  describe('limit per client IP', () => {
    it('a 6th request in an hour from one client IP gets 429 with Retry-After; another IP is still served', async () => {
      const ip = newIp();
      for (let i = 1; i <= 5; i++) {
        const res = await post(server(), { provider_name: `Budget Co ${i}` }, { ip });
        const h = limitHeadersOf(res);
        expect(h.policy).toBe('"hour";q=5;w=3600');
        expect(h.remaining).toBe(5 - i);
        await expectJson(res, ReceiptSchema, 202);
      }
      const refused = await post(server(), { provider_name: 'Budget Co 6' }, { ip });
      const problem = await expectProblem(refused, 'rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(problem.retry_after_seconds).toBe(retryAfter);
      await expectJson(await post(server(), { provider_name: 'Budget Co 6' }, { ip: newIp() }), ReceiptSchema, 202);
    });
  });
});
