import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCors, recordHeaders, securityHeaders, standardHeaders } from '../../src/http/headers.js';

/** The middleware run live by Express on real requests, beside the recorded lists the service sets instead. */
describe('security and CORS headers recorded once', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.disable('x-powered-by');
    app.use(securityHeaders);
    app.use('/api', apiCors);
    app.all('/{*rest}', (_req, res) => {
      res.status(204).end();
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The headers a live answer carries, without the ones Node adds. */
  async function live(path: string, init: RequestInit = {}): Promise<Record<string, string>> {
    const res = await fetch(`${url}${path}`, init);
    const node = new Set(['date', 'connection', 'keep-alive']);
    return Object.fromEntries([...res.headers].filter(([name]) => !node.has(name)));
  }
  const asRecord = (list: readonly (readonly [string, string])[]) =>
    Object.fromEntries(list.map(([name, value]) => [name.toLowerCase(), value]));

  it('on the site, the recorded list is what helmet sets live', async () => {
    const { site } = standardHeaders();
    expect(asRecord(site)).toEqual(await live('/verify/x'));
    expect(asRecord(site)['content-security-policy']).toBe(
      "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
    );
  });

  it('on /api (any case), the recorded list is what helmet and CORS set live, with or without an Origin', async () => {
    const { api } = standardHeaders();
    expect(asRecord(api)).toEqual(await live('/api/v1/scores'));
    expect(asRecord(api)).toEqual(await live('/API/public/scores', { headers: { origin: 'https://example.org' } }));
    expect(asRecord(api)['access-control-allow-origin']).toBe('*');
  });

  it('the recording refuses middleware that does not answer at once or sets a header that is not text', () => {
    expect(() => recordHeaders((_req, _res, _next) => undefined)).toThrow(/did not pass the request on/);
    expect(() =>
      recordHeaders((_req, res, next) => {
        res.setHeader('x-list', ['a', 'b']);
        next();
      }),
    ).toThrow(/x-list is not a string/);
  });
});
