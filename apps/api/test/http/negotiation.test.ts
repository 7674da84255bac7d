import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../support/documents.js';
import { expectProblem } from '../support/responses.js';
import { publish, startTestServer, type TestServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/** RFC 9110 12.5.1: an Accept header that excludes every media type a route serves gets 406, as documented. */
describe.each(engines.slice(0, 1))('content negotiation on %s', (engine) => {
  let server: TestServer;
  let key = '';
  beforeAll(async () => {
    server = await startTestServer(engine);
    await publish(server, example('worked-example'));
    key = await server.key('ENTERPRISE');
  });
  afterAll(() => server?.stop());

  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const get = (path: string, accept: string | undefined, keyed = true) =>
    server.get(path, { ...(keyed ? { key } : {}), headers: accept === undefined ? {} : { accept } });

  it.each([
    ['/api/public/scores', 'application/xml', false],
    ['/api/public/scores', 'text/html', false],
    ['/api/public/scores', 'application/json;q=0', false],
    ['/api/public/scores?limit=2', 'application/xml', false],
    ['/api/v1/scores', 'application/xml', true],
    ['/api/v1/status', 'image/png', false],
    ['/api/public/changelog.atom', 'application/json', false],
    ['/api/v1/scores/export.csv', 'application/json', true],
  ])('GET %s with Accept %s gets 406 not_acceptable naming what it serves', async (path, accept, keyed) => {
    const problem = await expectProblem(await get(path, accept, keyed), 'not_acceptable');
    expect(problem.detail).toMatch(/serves (application\/json|application\/atom\+xml|text\/csv)/);
  });

  it.each([
    ['/api/public/scores', undefined, false],
    ['/api/public/scores', '*/*', false],
    ['/api/public/scores', BROWSER, false],
    ['/api/public/scores', 'application/json, text/plain, */*', false],
    ['/api/public/scores?limit=2', 'application/*', false],
    ['/api/v1/scores', 'application/json, application/problem+json', true],
    ['/api/public/changelog.atom', 'application/atom+xml', false],
    ['/api/public/changelog.atom', BROWSER, false],
    ['/api/v1/scores/export.csv', 'text/csv, application/problem+json', true],
  ])('GET %s with Accept %s is served', async (path, accept, keyed) => {
    const res = await get(path, accept, keyed);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});
