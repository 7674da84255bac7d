import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { ProblemSchema } from '@svc/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const BODY_TIMEOUT_MS = 600;

/** What a raw socket received until the server closed it (or `waitMs` passed). */
function exchange(
  server: TestServer,
  send: (socket: Socket) => void,
  waitMs = 8_000,
): Promise<{ text: string; closed: boolean; ms: number }> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('close', () => done(true));
    socket.on('error', () => {});
    socket.on('connect', () => send(socket));
  });
}

function problemIn(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { head, problem: ProblemSchema.parse(JSON.parse(body)) };
}

describe.each(engines)(
  'the HTTP layer refuses what never arrives and what is too large, as problems, on %s',
  (engine) => {
    let server: TestServer;
    const logLines: { msg: string; level: number }[] = [];

    beforeAll(async () => {
      const sink = new Writable({
        write(chunk, _enc, callback) {
          for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
          callback();
        },
      });
      server = await startTestServer(engine, {
        env: { SVC_BODY_TIMEOUT: `${BODY_TIMEOUT_MS}ms` },
        logger: pino({ level: 'info' }, sink),
      });
    });
    afterAll(() => server?.stop());

    const coverageRequests = async () =>
      Number(
        (
          await server.services.store.db
            .selectFrom('coverage_requests')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('a body that never arrives gets 408 request_timeout problem+json within the body timeout, and the connection closes', async () => {
      const before = await coverageRequests();
      const { text, closed, ms } = await exchange(server, (socket) => {
        socket.write(
          'POST /api/public/score-request HTTP/1.1\r\nHost: scores.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"provider',
        );
      });
      expect(closed).toBe(true);
      expect(ms).toBeLessThan(BODY_TIMEOUT_MS + 3_000);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      const { head, problem } = problemIn(text);
      expect(head).toMatch(/content-type: application\/problem\+json/i);
      expect(problem).toMatchObject({
        status: 408,
        code: 'request_timeout',
        instance: '/api/public/score-request',
        type: 'http://scores.test/docs/errors#request_timeout',
      });
      expect(problem.request_id).not.toBe('');
      expect(await coverageRequests()).toBe(before);
    });

    it('a client that hangs up mid-body is logged as a client abort, not as the store being unavailable', async () => {
      logLines.length = 0;
      await exchange(
        server,
        (socket) => {
          socket.write(
            'POST /api/public/score-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pro',
          );
          setTimeout(() => socket.destroy(), 100);
        },
        1_000,
      );
      await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS + 300));
      const messages = logLines.map((l) => l.msg);
      expect(messages).toContain('client closed the connection before the body arrived');
      expect(messages.join('\n')).not.toMatch(/store unavailable|unexpected error/);
    });

    it('a request head over 16 KiB gets 431 headers_too_large with an absolute type and the path as instance', async () => {
      const { text } = await exchange(server, (socket) => {
        socket.write(
          `GET /api/v1/status?x=1 HTTP/1.1\r\nHost: scores.test:8443\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
        );
      });
      expect(text).toMatch(/^HTTP\/1\.1 431 /);
      const { problem } = problemIn(text);
      expect(problem).toMatchObject({
        status: 431,
        code: 'headers_too_large',
        title: 'Request header fields too large',
        instance: '/api/v1/status',
        type: 'http://scores.test:8443/docs/errors#headers_too_large',
      });
    });

    it('a request head over 16 KiB without a Host header takes its type from the address reached', async () => {
      const { text } = await exchange(server, (socket) => {
        socket.write(`GET /docs?${'x'.repeat(20_000)} HTTP/1.1\r\n\r\n`);
      });
      const { problem } = problemIn(text);
      expect(problem.code).toBe('headers_too_large');
      expect(problem.type).toBe(`${server.url}/docs/errors#headers_too_large`);
      expect(problem.instance).toBe('/docs');
    });

    it('a request that is not HTTP keeps its 400 invalid_request problem', async () => {
      const { text } = await exchange(server, (socket) => {
        socket.write('HELLO\r\n\r\n');
      });
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(problemIn(text).problem.code).toBe('invalid_request');
    });
  },
);
