import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  type Endpoint,
  endpoints,
  operationsEndpoints,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
} from '@svc/contracts';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { MetricsListenError } from '../../src/metrics/listener.js';
import { startServer } from '../../src/server.js';
import { MemoryRateLimiter } from '../../src/services/shared/rate-limit.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { engineIndicator, example, LOW_BAND_ID, UNKNOWN_PROVIDER_ID, WORKED_ID } from '../support/documents.js';
import { REDIS_URL, redisAvailable } from '../support/environment.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { clientIp, expectJson, expectProblem } from '../support/responses.js';
import {
  type IssuedKey,
  publish,
  startTestServer,
  TEST_MASTER_KEY,
  type TestServer,
  useServer,
} from '../support/server.js';
import { engines } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const WORKED_RI = engineIndicator(example('worked-example')).risk_indicator_id;
const LOW_RI = engineIndicator(example('low-band')).risk_indicator_id;
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** One sample of the exposition: its name (a histogram's with its suffix), its labels, and its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape, parsed: the metric families as typed, and every sample line with all its labels. */
interface Scrape {
  families: PrometheusFamily[];
  samples: Sample[];
}

/**
 * Scrapes the metrics listener and parses the text with a Prometheus text-format parser. The parser folds a
 * histogram's lines into one sample without their labels (it knows only unlabelled histograms), so the samples
 * are read from a second parse with the `# TYPE` lines left out, where every line is a sample of its own.
 */
async function scrape(server: TestServer): Promise<Scrape> {
  const res = await fetch(`${server.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text);
  const untyped = parsePrometheusTextFormat(text.replace(/^# TYPE .*\n/gm, ''));
  const samples = untyped.flatMap((f) =>
    f.metrics.map((m) => ({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) })),
  );
  return { families, samples };
}

const NO_SCRAPE: Scrape = { families: [], samples: [] };

function samplesOf(scraped: Scrape, name: string): Sample[] {
  return scraped.samples.filter((s) => s.name === name);
}

/** A series' samples by their labels (`k=v,…` sorted), for comparing two scrapes. */
function byLabels(scraped: Scrape, name: string): Map<string, number> {
  return new Map(samplesOf(scraped, name).map((s) => [labelKey(s.labels), s.value]));
}

function labelKey(labels: Record<string, string>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** What moved between two scrapes of a counter (or a histogram's `_count`): only the series that changed. */
function moved(before: Scrape, after: Scrape, name: string): Record<string, number> {
  const was = byLabels(before, name);
  const out: Record<string, number> = {};
  for (const [key, value] of byLabels(after, name)) {
    const delta = value - (was.get(key) ?? 0);
    if (delta !== 0) out[key] = delta;
  }
  return out;
}

function value(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(scraped, name).find((s) => labelKey(s.labels) === labelKey(labels));
  if (!found) throw new Error(`no sample ${name}{${labelKey(labels)}}`);
  return found.value;
}

/** Every route template the service has: the contract's, the probes', the site pages' and the static files'. */
const TEMPLATES = new Set([
  ...[...Object.values(endpoints), ...Object.values(operationsEndpoints)].map((e: Endpoint) => e.path),
  '/openapi.json',
  '/verify/{id}',
  '/docs',
  '/docs/errors',
  '/llms.txt',
  '/schemas/approved-inputs.json',
  '/schemas/computation-package.json',
  '/methodology',
  '/assets/{file}',
  '/assets/swagger-ui/{file}',
  'unmatched',
]);

const route = (method: string, template: string, status: number) =>
  `method=${method},route=${template},status=${status}`;

describe.each(engines)('Prometheus metrics on %s', (engine) => {
  let key: IssuedKey;
  const server = useServer(
    engine,
    async (s) => {
      await publish(s, example('worked-example'));
      await publish(s, example('low-band'));
      key = await s.issueKey('PROFESSIONAL');
    },
    { metrics: true, env: { TRUST_PROXY: 'true' } },
  );

  it('serves /metrics on a listener of its own: the metrics port serves nothing else, the API port no metrics', async () => {
    const s = server();
    expect(s.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(s.metricsUrl as string).port).not.toBe(new URL(s.url).port);
    const scraped = await fetch(`${s.metricsUrl}/metrics`);
    expect(scraped.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
    expect(scraped.headers.get('cache-control')).toBe('no-store');
    expect(await scraped.text()).toMatch(/^# HELP svc_/m);
    for (const path of ['/', '/api/v1/status', '/livez', '/readyz', '/api/public/scores', '/metrics/']) {
      const res = await fetch(`${s.metricsUrl}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('svc_');
    }
    expect((await fetch(`${s.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    await expectProblem(await s.get('/metrics'), 'not_found');
  });

  it('counts each request once by method, route template and status: keyed, public, fast path, pages, 404, 405, 429', async () => {
    const s = server();
    const before = await scrape(s);
    const from = (n: number) => ({ headers: { 'x-forwarded-for': clientIp(n) } });
    const expectStatus = async (res: Promise<Response>, status: number) => {
      const answer = await res;
      expect(answer.status, answer.url).toBe(status);
      await answer.arrayBuffer();
    };
    // Keyed: two answers and a 404 for an unknown provider (each spends the key's budget), a 401 with no key.
    for (let i = 0; i < 2; i++) await expectStatus(s.get(`/api/v1/scores/${WORKED_ID}`, { key: key.key }), 200);
    await expectStatus(s.get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key: key.key }), 404);
    await expectStatus(s.get(`/api/v1/scores/${LOW_BAND_ID}`), 401);
    // The public scores, answered before Express (a plain Accept), and through it (an Accept it refuses: 406).
    for (let i = 0; i < 3; i++) await expectStatus(s.get('/api/public/scores', from(1)), 200);
    await expectStatus(s.get('/api/public/scores', { headers: { accept: 'text/csv' } }), 406);
    await expectStatus(s.get('/api/public/changelog', from(2)), 200);
    // Site pages and files by their templates; a path no route has, with an id in it; a method a path refuses.
    await expectStatus(s.get(`/verify/${WORKED_RI}`), 200);
    await expectStatus(s.get(`/verify/${LOW_RI}`), 200);
    await expectStatus(s.get('/assets/site.css'), 200);
    await expectStatus(s.get(`/api/v1/nothing-here/${WORKED_ID}`), 404);
    await expectStatus(s.get('/api/public/scores', { method: 'DELETE' }), 405);
    await expectStatus(s.get('/livez'), 200);
    await expectStatus(s.get('/readyz'), 200);
    // Six coverage requests from one address: five received, the sixth over the limit of five an hour.
    for (let i = 0; i < 6; i++) {
      const res = s.send('POST', '/api/public/score-request', { provider_name: `Metrics Co ${i}` });
      await expectStatus(
        fetch(`${s.url}/api/public/score-request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp(3) },
          body: JSON.stringify({ provider_name: `Metrics Co ${engine} ${i}` }),
        }),
        i < 5 ? 202 : 429,
      );
      // `send` above goes out from the test's own address: another five-an-hour budget, one request each time.
      await expectStatus(res, i < 5 ? 202 : 429);
    }
    const after = await scrape(s);

    const expected = {
      [route('GET', '/api/v1/scores/{providerId}', 200)]: 2,
      [route('GET', '/api/v1/scores/{providerId}', 404)]: 1,
      [route('GET', '/api/v1/scores/{providerId}', 401)]: 1,
      [route('GET', '/api/public/scores', 200)]: 3,
      [route('GET', '/api/public/scores', 406)]: 1,
      [route('DELETE', '/api/public/scores', 405)]: 1,
      [route('GET', '/api/public/changelog', 200)]: 1,
      [route('GET', '/verify/{id}', 200)]: 2,
      [route('GET', '/assets/{file}', 200)]: 1,
      [route('GET', 'unmatched', 404)]: 1,
      [route('GET', '/livez', 200)]: 1,
      [route('GET', '/readyz', 200)]: 1,
      [route('POST', '/api/public/score-request', 202)]: 10,
      [route('POST', '/api/public/score-request', 429)]: 2,
    };
    expect(moved(before, after, 'svc_http_requests_total')).toEqual(expected);
    // The histogram saw the same requests, each with a duration.
    expect(moved(before, after, 'svc_http_request_duration_seconds_count')).toEqual(expected);
    for (const count of samplesOf(after, 'svc_http_request_duration_seconds_count')) {
      expect(value(after, 'svc_http_request_duration_seconds_sum', count.labels)).toBeGreaterThan(0);
      const inf = { ...count.labels, le: '+Inf' };
      expect(value(after, 'svc_http_request_duration_seconds_bucket', inf)).toBe(count.value);
    }
    expect(after.families.find((f) => f.name === 'svc_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    // Limit decisions by limit, never by bucket: the key's three, the fast path's three, the coverage requests'.
    expect(moved(before, after, 'svc_rate_limit_decisions_total')).toEqual({
      'decision=allowed,limit=key': 3,
      'decision=allowed,limit=public_scores': 3,
      'decision=allowed,limit=public_changelog': 1,
      'decision=allowed,limit=score_request': 10,
      'decision=refused,limit=score_request': 2,
    });
    expect(moved(before, after, 'svc_store_errors_total')).toEqual({});
  });

  it('no label of any sample holds an id, a key, a key prefix, an address or a raw path', async () => {
    const s = server();
    // Requests whose paths, keys and addresses are everything a label must not hold.
    for (const [path, init] of [
      [`/api/v1/scores/${WORKED_ID}`, { key: key.key }],
      [`/api/v1/scores/${UNKNOWN_PROVIDER_ID}`, { key: key.key }],
      [`/api/v1/nothing-here/${WORKED_ID}`, {}],
      ['/api/public/scores', { headers: { 'x-forwarded-for': clientIp(1) } }],
      [`/verify/${LOW_RI}`, { headers: { 'x-forwarded-for': clientIp(2) } }],
    ] as const) {
      await (await s.get(path, init)).arrayBuffer();
    }
    const scraped = await scrape(s);
    const forbidden = [
      WORKED_ID,
      LOW_BAND_ID,
      UNKNOWN_PROVIDER_ID,
      WORKED_RI,
      LOW_RI,
      key.key,
      key.key.slice(0, 'svc_live_'.length + 6),
      key.keyId,
      key.workspaceId,
      clientIp(1),
      clientIp(2),
      clientIp(3),
      '127.0.0.1',
      'site.css',
      'nothing-here',
      'Metrics Co',
    ];
    const labels = scraped.samples.flatMap((m) => Object.entries(m.labels));
    expect(labels.length).toBeGreaterThan(50);
    for (const [name, text] of labels) {
      for (const bad of forbidden) expect(text, `${name}="${text}"`).not.toContain(bad);
      expect(text, name).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
      expect(text, name).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
      expect(text, name).not.toMatch(/\b(ri|key|ws|cr|wh|del)_[0-9a-z]{6,}/i);
      expect(text, name).not.toContain('svc_live_');
    }
    const routes = labels.filter(([name]) => name === 'route').map(([, text]) => text);
    expect(routes).toContain('/api/v1/scores/{providerId}');
    for (const r of routes) expect(TEMPLATES.has(r), r).toBe(true);
  });

  it('the limiter state, the publications and the providers rated, read from the store at scrape time', async () => {
    const s = server();
    const families = await scrape(s);
    expect(samplesOf(families, 'svc_rate_limit_store_state')).toEqual(
      expect.arrayContaining([
        { name: 'svc_rate_limit_store_state', labels: { state: 'in_process' }, value: 1 },
        { name: 'svc_rate_limit_store_state', labels: { state: 'ok' }, value: 0 },
        { name: 'svc_rate_limit_store_state', labels: { state: 'degraded' }, value: 0 },
      ]),
    );
    expect(families.families.find((f) => f.name === 'svc_publications_total')?.type).toBe('COUNTER');
    expect(value(families, 'svc_publications_total')).toBe(2);
    expect(value(families, 'svc_providers_rated')).toBe(2);
    // A publication by another process (here: the publishing service on the same store) shows at the next scrape.
    await publish(s, example('multiple-caps'));
    const next = await scrape(s);
    expect(value(next, 'svc_publications_total')).toBe(3);
    expect(value(next, 'svc_providers_rated')).toBe(3);
    // The process's own figures, under the same prefix.
    for (const name of ['svc_process_cpu_user_seconds_total', 'svc_nodejs_heap_size_used_bytes']) {
      expect(samplesOf(next, name), name).toHaveLength(1);
    }
  });
});

describe.each(engines)('webhook metrics on %s', (engine) => {
  describe('the backlog of due deliveries (no dispatcher in this process, the receiver down)', () => {
    const clock = manualClock(AFTER_EXAMPLES);
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
      await receiver.stop();
    });
    afterAll(async () => {
      await receiver.close();
    });
    const server = useServer(engine, async () => {}, { clock, metrics: true, env: { SVC_WEBHOOK_DISPATCH: 'false' } });

    it('queue depth counts the pending deliveries; the oldest due age is how late the oldest is', async () => {
      const s = server();
      const key = await s.key('PROFESSIONAL');
      const created = await s.send(
        'POST',
        '/api/v1/webhooks',
        { url: receiver.url, events: ['risk_indicator.published'] },
        key,
      );
      const hook = await expectJson(created, WebhookEndpointSchema, 201);
      let families = await scrape(s);
      expect(value(families, 'svc_webhook_queue_depth')).toBe(0);
      expect(value(families, 'svc_webhook_oldest_due_age_seconds')).toBe(0);

      const first = await expectJson(
        await s.send('POST', `/api/v1/webhooks/${hook.id}/test`, {}, key),
        WebhookDeliverySchema,
        202,
      );
      expect(first.next_attempt_at).toBe(clock.now().toISOString());
      clock.advance(30_000);
      await expectJson(await s.send('POST', `/api/v1/webhooks/${hook.id}/test`, {}, key), WebhookDeliverySchema, 202);
      clock.advance(60_000);
      families = await scrape(s);
      expect(value(families, 'svc_webhook_queue_depth')).toBe(2);
      // Due since the first was queued, 90 s ago by the server's clock; nothing sends it.
      expect(value(families, 'svc_webhook_oldest_due_age_seconds')).toBe(90);
      expect(moved(NO_SCRAPE, families, 'svc_webhook_deliveries_total')).toEqual({});
    });
  });

  describe("this process's dispatcher's attempts by outcome", () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });
    const server = useServer(engine, async () => {}, {
      metrics: true,
      env: { SVC_WEBHOOK_RETRY_SCHEDULE: '30ms', SVC_WEBHOOK_POLL_INTERVAL: '20ms' },
    });

    /** Scrapes until the outcome counters read `expected` (the dispatcher works on its own time). */
    async function outcomesReach(s: TestServer, expected: Record<string, number>): Promise<Scrape> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const families = await scrape(s);
        const seen = Object.fromEntries(
          samplesOf(families, 'svc_webhook_deliveries_total').map((m) => [m.labels.outcome, m.value]),
        );
        if (isDeepStrictEqual(seen, expected) || Date.now() > deadline) {
          expect(seen).toEqual(expected);
          return families;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }

    it('delivered, retry, failed (retries spent) and gone (410), each counted once', async () => {
      const s = server();
      const key = await s.key('PROFESSIONAL');
      const created = await s.send(
        'POST',
        '/api/v1/webhooks',
        { url: receiver.url, events: ['risk_indicator.published'] },
        key,
      );
      const hook = await expectJson(created, WebhookEndpointSchema, 201);
      const ping = async () =>
        expect((await s.send('POST', `/api/v1/webhooks/${hook.id}/test`, {}, key)).status).toBe(202);

      await ping();
      await outcomesReach(s, { delivered: 1, retry: 0, failed: 0, gone: 0 });

      // The receiver down: the attempt is retried once (the schedule has one delay), then the delivery fails.
      await receiver.stop();
      await ping();
      const families = await outcomesReach(s, { delivered: 1, retry: 1, failed: 1, gone: 0 });
      expect(value(families, 'svc_webhook_queue_depth')).toBe(0);
      expect(value(families, 'svc_webhook_oldest_due_age_seconds')).toBe(0);

      await receiver.restart();
      receiver.answer(() => ({ status: 410 }));
      await ping();
      await outcomesReach(s, { delivered: 1, retry: 1, failed: 1, gone: 1 });
    });
  });
});

describe.skipIf(!redisAvailable)('the rate-limit store state, with Redis behind a proxy', () => {
  const proxy = new TcpProxy(REDIS_URL);
  let server: TestServer;

  beforeAll(async () => {
    await proxy.start();
    server = await startTestServer('sqlite', { metrics: true, env: { REDIS_URL: proxy.url, TRUST_PROXY: 'true' } });
  });

  afterAll(async () => {
    await server?.stop();
    await proxy.stop();
  });

  /** Scrapes until the state gauge names `state` (ioredis notices a lost connection on its own time). */
  async function stateBecomes(state: string): Promise<Scrape> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const scraped = await scrape(server);
      const now = samplesOf(scraped, 'svc_rate_limit_store_state').find((m) => m.value === 1)?.labels.state;
      if (now === state || Date.now() > deadline) {
        expect(now).toBe(state);
        return scraped;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('ok while Redis answers, degraded while it is away (decisions still counted), ok again after', async () => {
    // An address of its own, so its bucket in the shared Redis is nobody else's.
    const from = { headers: { 'x-forwarded-for': `203.0.113.${1 + Math.floor(Math.random() * 250)}` } };
    const before = await stateBecomes('ok');
    expect((await server.get('/api/public/scores', from)).status).toBe(200);
    await proxy.stop();
    expect((await server.get('/api/public/scores', from)).status).toBe(200);
    const away = await stateBecomes('degraded');
    expect(value(away, 'svc_rate_limit_store_state', { state: 'ok' })).toBe(0);
    expect(moved(before, away, 'svc_rate_limit_decisions_total')).toEqual({
      'decision=allowed,limit=public_scores': 2,
    });
    await proxy.start();
    await stateBecomes('ok');
  });
});

describe('metrics off and misconfigured', () => {
  const server = useServer(engines[0] ?? 'sqlite');

  it('off unless SVC_METRICS_PORT is set: no listener, the limiter as it is, nothing counted', () => {
    const s = server();
    expect(s.metricsUrl).toBeNull();
    expect(s.services.metrics).toBeNull();
    expect(s.services.limiter).toBeInstanceOf(MemoryRateLimiter);
  });

  it('SVC_METRICS_PORT must be a port from 1 to 65535; SVC_METRICS_HOST defaults to 127.0.0.1', () => {
    for (const bad of ['0', '65536', 'abc', '1.5', '-1', ' ']) {
      expect(() => loadConfig({ SVC_METRICS_PORT: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ SVC_METRICS_PORT: bad }), bad).toThrow(
        /^invalid configuration: SVC_METRICS_PORT: must be a port number from 1 to 65535 \(leave it unset to serve no metrics\)$/,
      );
    }
    expect(loadConfig({}).metrics).toBeNull();
    expect(loadConfig({ SVC_METRICS_PORT: '' }).metrics).toBeNull();
    expect(loadConfig({ SVC_METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ SVC_METRICS_PORT: '9464', SVC_METRICS_HOST: '0.0.0.0' }).metrics).toEqual({
      port: 9464,
      host: '0.0.0.0',
    });
  });

  it("a metrics port in use stops the start with an error naming that port, not the API's", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const { port } = taken.address() as { port: number };
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-metrics-'));
    try {
      const config = loadConfig({
        PORT: '0',
        LOG_LEVEL: 'silent',
        SVC_DATA_DIR: dataDir,
        SVC_MASTER_KEY: TEST_MASTER_KEY,
        SVC_METRICS_PORT: String(port),
      });
      const error = await startServer(config, { storeLocation: server().location }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MetricsListenError);
      expect(error).toMatchObject({ code: 'EADDRINUSE', host: '127.0.0.1', port });
      expect((error as Error).message).toBe(
        `cannot listen for metrics on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
