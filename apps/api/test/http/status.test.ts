import { PublicScoresResponseSchema, StatusResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { example } from '../support/documents.js';
import { expectJson, expectNoLimitHeaders } from '../support/responses.js';
import { publish, UNKNOWN_KEY, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const StatusSchema = StatusResponseSchema.strict();

describe.each(engines)('GET /api/v1/status on %s', (engine) => {
  const server = useServer(engine);

  it('is public: no key needed, no limit headers, not cached', async () => {
    const res = await server().get('/api/v1/status');
    expectNoLimitHeaders(res);
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectJson(res, StatusSchema);
  });

  it('a public route ignores an x-api-key header, even one that is not valid', async () => {
    await expectJson(await server().get('/api/v1/status', { key: UNKNOWN_KEY }), StatusSchema);
  });

  it('reports ok, the framework, its start time and uptime, and the in-process limiter', async () => {
    const before = Date.now();
    const body = await expectJson(await server().get('/api/v1/status'), StatusSchema);
    const after = Date.now();
    expect(body.status).toBe('ok');
    expect(body.framework_version).toBe('DCRF v1.0');
    expect(body.components).toEqual({ store: 'ok', rate_limit_store: 'in_process' });
    expect(body.started_at).toBe(server().services.startedAt.toISOString());
    expect(Date.parse(body.started_at)).toBeLessThanOrEqual(before);
    // Whole seconds since the start, as counted between the request and its answer.
    const started = Date.parse(body.started_at);
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(Math.floor((before - started) / 1000));
    expect(body.uptime_seconds).toBeLessThanOrEqual(Math.floor((after - started) / 1000));
  });

  it('data_freshness is null before anything is published', async () => {
    const body = await expectJson(await server().get('/api/v1/status'), StatusSchema);
    expect(body.data_freshness).toEqual({ latest_scored_at: null, age_seconds: null });
  });

  it('data_freshness follows the latest publication', async () => {
    const s = server();
    await publish(s, example('worked-example'));
    const first = await expectJson(await s.get('/api/v1/status'), StatusSchema);
    expect(first.data_freshness.latest_scored_at).toBe('2026-06-30T00:00:00Z');

    await publish(s, example('low-band'));
    const second = await expectJson(await s.get('/api/v1/status'), StatusSchema);
    expect(second.data_freshness.latest_scored_at).toBe('2026-07-15T00:00:00Z');
    const expectedAge = Math.max(0, Math.floor((Date.now() - Date.parse('2026-07-15T00:00:00Z')) / 1000));
    expect(Math.abs((second.data_freshness.age_seconds ?? -1) - expectedAge)).toBeLessThanOrEqual(2);

    // The newest scored_at among the published indicators, as the public list shows them.
    const publicList = await expectJson(await s.get('/api/public/scores'), PublicScoresResponseSchema);
    const newest = publicList.data
      .map((p) => p.scored_at)
      .sort()
      .at(-1);
    expect(second.data_freshness.latest_scored_at).toBe(newest);
  });
});
