import { ProblemSchema } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcApiError, SvcClient, SvcError, UNEXPECTED_RESPONSE } from '../src/index.js';
import { example, exampleProviders, type RealApi, startApi, UNKNOWN_PROVIDER_ID } from './support/api.js';
import { startScripted } from './support/scripted-server.js';

// Error answers of the real API become SvcApiError with the problem's status, code and body.

const WORKED = example('worked-example').provider;
const UNKNOWN_KEY = `svc_live_${'A'.repeat(43)}`;

let api: RealApi;
let professional: SvcClient;

beforeAll(async () => {
  api = await startApi();
  await api.publish(exampleProviders());
  professional = new SvcClient({ baseUrl: api.url, apiKey: await api.key('PROFESSIONAL') });
});

afterAll(async () => {
  await api?.stop();
});

/** The error a call rejects with; fails the test when it resolves. */
async function failure(call: Promise<unknown>): Promise<SvcApiError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof SvcApiError)) throw new Error(`expected an SvcApiError, got ${String(error)}`);
  ProblemSchema.parse(error.problem);
  return error;
}

describe('the API answers an error: SvcApiError with the status, the code and the problem body', () => {
  it('401 missing_api_key without a key', async () => {
    const error = await failure(new SvcClient({ baseUrl: api.url }).scores());
    expect(error).toMatchObject({ status: 401, code: 'missing_api_key' });
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('401 missing_api_key');
  });

  it('401 invalid_api_key with a key nobody issued', async () => {
    const error = await failure(new SvcClient({ baseUrl: api.url, apiKey: UNKNOWN_KEY }).score(WORKED.id));
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('403 insufficient_tier for a FREE key on the scores list, naming the tier required', async () => {
    const free = new SvcClient({ baseUrl: api.url, apiKey: await api.key('FREE') });
    const error = await failure(free.scores());
    expect(error).toMatchObject({ status: 403, code: 'insufficient_tier' });
    expect(error.problem?.required_tier).toBe('PROFESSIONAL');
  });

  it('404 not_found for a provider nobody published, with the request id', async () => {
    const error = await failure(professional.score(UNKNOWN_PROVIDER_ID));
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error.requestId).toMatch(/.+/);
    expect(error.requestId).toBe(error.problem?.request_id);
    expect(error.retryAfterSeconds).toBeNull();
  });

  it('400 invalid_request for a query out of range, listing every problem', async () => {
    const error = await failure(professional.scores({ limit: 0 }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error.problem?.errors?.map((e) => e.path)).toEqual(['query.limit']);
  });

  it('400 invalid_request for a body the contract refuses', async () => {
    const error = await failure(professional.createWebhook({ url: 'ftp://example.com', events: [] }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('a path parameter is percent-encoded: "../status" stays one segment and is refused, not routed', async () => {
    const error = await failure(professional.score('../status'));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error.url).toBe(`${api.url}/api/v1/scores/..%2Fstatus`);
    expect((await failure(professional.history('a b?c=d#e'))).problem?.errors?.[0]?.path).toBe('path.providerId');
  });

  it('429 rate_limited once the public score-request limit (5 an hour) is spent: a POST is not retried', async () => {
    const anonymous = new SvcClient({ baseUrl: api.url });
    for (let n = 0; n < 5; n++) await anonymous.requestScore({ provider_name: `Provider ${n}` });
    expect(anonymous.lastRateLimit).toMatchObject({ limit: 5, remaining: 0, windowSeconds: 3600 });
    const started = Date.now();
    const error = await failure(anonymous.requestScore({ provider_name: 'One too many' }, { retry: true }));
    expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
    // Retry-After is about an hour, beyond maxDelayMs: the client gives up at once instead of sleeping.
    expect(error.retryAfterSeconds).toBeGreaterThan(3000);
    expect(error.problem?.retry_after_seconds).toBe(error.retryAfterSeconds);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('answers that are not problem details', () => {
  it('an error without a problem body (a proxy page) is unexpected_response, problem null', async () => {
    const server = await startScripted(() => ({
      status: 502,
      headers: { 'content-type': 'text/html', 'x-request-id': 'req_proxy' },
      body: '<html>Bad gateway</html>',
    }));
    try {
      const error = await new SvcClient({ baseUrl: server.url }).status().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcApiError);
      expect(error).toMatchObject({ status: 502, code: UNEXPECTED_RESPONSE, problem: null, requestId: 'req_proxy' });
    } finally {
      await server.close();
    }
  });

  it('a success whose body is not JSON is unexpected_response too', async () => {
    const server = await startScripted(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<p>' }));
    try {
      const error = await new SvcClient({ baseUrl: server.url }).status().catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'SvcApiError', status: 200, code: UNEXPECTED_RESPONSE, problem: null });
    } finally {
      await server.close();
    }
  });
});

describe('the client reads the rate limit of every answer that has one', () => {
  it('lastRateLimit holds the key budget after a keyed call, and keeps it across an unlimited one', async () => {
    const client = new SvcClient({ baseUrl: api.url, apiKey: await api.key('PROFESSIONAL') });
    expect(client.lastRateLimit).toBeNull();
    await client.scores();
    await client.score(WORKED.id);
    const limit = client.lastRateLimit;
    expect(limit).toMatchObject({ limit: 1000, remaining: 998, windowSeconds: 3600 });
    expect(limit?.resetSeconds).toBeGreaterThan(0);
    expect(limit?.resetSeconds).toBeLessThanOrEqual(3600);
    await client.status();
    expect(client.lastRateLimit).toEqual(limit);
  });
});
