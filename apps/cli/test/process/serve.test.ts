import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  ChangelogResponseSchema,
  IssuancesResponseSchema,
  PublicScoresResponseSchema,
  ScoresListResponseSchema,
  StatusResponseSchema,
} from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptTerms, type Env, embedded, type Served, serve, svcIn, svcJsonIn } from '../operations.js';
import { STACK_FRAME } from '../svc.js';

/**
 * One GET on a connection of its own: a kept-alive connection the server closed meanwhile (its keep-alive timeout is
 * 5 s) would fail the next request.
 */
function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('svc serve on a seeded store', () => {
  let vars: Env;
  let served: Served;

  beforeAll(async () => {
    vars = await embedded();
    expect((await svcIn(vars, 'db', 'seed', '--demo')).status).toBe(0);
    served = await serve(vars, '--port', '0');
  });

  afterAll(() => {
    if (served.child.exitCode === null) served.child.kill('SIGKILL');
  });

  it('prints the URL it listens on, on 127.0.0.1 by default, and ends with the ratings page a browser opens', async () => {
    expect(served.stdout().split('\n')[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.url).not.toMatch(/:0$/);
    // Last, after any warning (the open-mode warning and its log line).
    await waitFor(() => served.stdout().includes('ratings page'));
    expect(served.stdout().trimEnd().split('\n').at(-1)).toBe(`ratings page: open ${served.url}/ in a browser`);
    const page = await fetch(`${served.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<h1>Risk Indicators</h1>');
  });

  it('answers GET /api/v1/status with the seeded data fresh', async () => {
    const { status, body } = await getJson(`${served.url}/api/v1/status`);
    expect(status).toBe(200);
    const parsed = StatusResponseSchema.parse(body);
    expect(parsed.status).toBe('ok');
    expect(parsed.framework_version).toBe('DCRF v1.0');
    expect(parsed.data_freshness.latest_scored_at).toBe('2026-11-10T00:00:00Z');
    expect(parsed.components.store).toBe('ok');
  });

  it('answers GET /api/public/scores with every demo provider and every band', async () => {
    const { status, body } = await getJson(`${served.url}/api/public/scores`);
    expect(status).toBe(200);
    const { data } = PublicScoresResponseSchema.parse(body);
    expect(data).toHaveLength(14);
    expect(data.every((p) => p.name.endsWith('(demo)'))).toBe(true);
    expect(new Set(data.map((p) => p.risk_band))).toEqual(new Set(['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE']));
  });

  it('answers the public change feed with its scoring rounds, the withdrawal and the reinstatement', async () => {
    const { body } = await getJson(`${served.url}/api/public/changelog?limit=500`);
    const { data } = ChangelogResponseSchema.parse(body);
    const types = data.map((c) => c.change_type);
    // Fourteen first publications, and the reinstatement after the withdrawal (a reinstatement is NEW in the feed).
    expect(types.filter((t) => t === 'NEW')).toHaveLength(15);
    expect(types.filter((t) => t === 'WITHDRAWN')).toHaveLength(1);
    expect(types.filter((t) => t === 'SCORE_CHANGE')).toHaveLength(2);
    expect(types.filter((t) => t === 'BAND_CHANGE')).toHaveLength(2);
  });

  it('serves keyed routes to a key made with `svc key create`, and refuses it once revoked', async () => {
    const { workspace_id } = (await svcJsonIn<{ workspace_id: string }>(vars, 'workspace', 'create', 'HTTP')).json;
    await acceptTerms(vars, workspace_id);
    const { key, key_id } = (
      await svcJsonIn<{ key: string; key_id: string }>(
        vars,
        'key',
        'create',
        '--workspace',
        workspace_id,
        '--tier',
        'PROFESSIONAL',
      )
    ).json;
    const scores = await getJson(`${served.url}/api/v1/scores?limit=500`, { 'x-api-key': key });
    expect(scores.status).toBe(200);
    expect(ScoresListResponseSchema.parse(scores.body).data).toHaveLength(14);
    const issuances = await getJson(`${served.url}/api/v1/issuances`, { 'x-api-key': key });
    expect(issuances.status).toBe(200);
    const { data } = IssuancesResponseSchema.parse(issuances.body);
    expect(new Set(data.map((i) => `${i.type} ${i.status}`)).size).toBe(4);
    expect((await svcIn(vars, 'key', 'revoke', key_id)).status).toBe(0);
    expect((await getJson(`${served.url}/api/v1/scores`, { 'x-api-key': key })).status).toBe(401);
  });

  it('stops on SIGTERM with exit 0 within a few seconds', async () => {
    const { code, signal, ms } = await served.stop('SIGTERM');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(ms).toBeLessThan(5000);
    expect(served.stderr()).toContain('SIGTERM: finishing the requests in flight, then stopping\nstopped\n');
    expect(served.stderr()).not.toMatch(STACK_FRAME);
  });
});

describe('svc serve', () => {
  it('--json prints one JSON line {url, ratings_url}; SIGINT stops it with exit 0', async () => {
    const served = await serve(await embedded(), '--port', '0', '--json');
    expect(JSON.parse(served.stdout().split('\n')[0] as string)).toEqual({
      url: served.url,
      ratings_url: `${served.url}/`,
    });
    expect((await fetch(`${served.url}/api/v1/status`)).status).toBe(200);
    const { code, ms } = await served.stop('SIGINT');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
  });

  it('takes PORT and HOST from the environment; --port and --host override them', async () => {
    const port = await freePort();
    const fromEnv = await serve({ ...(await embedded()), PORT: String(port), HOST: '127.0.0.1' });
    expect(fromEnv.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fromEnv.stop()).code).toBe(0);
    const overridden = await serve(
      { ...(await embedded()), PORT: '1', HOST: '0.0.0.0' },
      '--port',
      '0',
      '--host',
      'localhost',
    );
    expect(overridden.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect((await fetch(`${overridden.url}/api/v1/status`)).status).toBe(200);
    expect((await overridden.stop()).code).toBe(0);
  });

  it('with SVC_METRICS_PORT it prints where the metrics are on a second line, and serves them there', async () => {
    const port = await freePort();
    const served = await serve({ ...(await embedded()), SVC_METRICS_PORT: String(port) }, '--port', '0');
    const lines = served.stdout().split('\n');
    expect(lines[0]).toBe(`listening on ${served.url}`);
    await waitFor(() => served.stdout().split('\n').length > 2);
    expect(served.stdout().split('\n')[1]).toBe(`metrics on http://127.0.0.1:${port}/metrics`);
    await waitFor(() => served.stdout().includes('ratings page'));
    expect(served.stdout().trimEnd().split('\n').at(-1)).toBe(`ratings page: open ${served.url}/ in a browser`);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# TYPE svc_http_requests_total counter$/m);
    expect((await fetch(`${served.url}/metrics`)).status).toBe(404);
    expect((await served.stop()).code).toBe(0);
    // Stopped with the server: the port is free again.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('--json adds metrics_url to its line when metrics are on', async () => {
    const port = await freePort();
    const served = await serve({ ...(await embedded()), SVC_METRICS_PORT: String(port) }, '--port', '0', '--json');
    expect(JSON.parse(served.stdout().split('\n')[0] as string)).toEqual({
      url: served.url,
      metrics_url: `http://127.0.0.1:${port}/metrics`,
      ratings_url: `${served.url}/`,
    });
    expect((await served.stop()).code).toBe(0);
  });

  it('SVC_METRICS_PORT=0 (or not a port) stops it before it starts: exit 2, naming the variable', async () => {
    for (const bad of ['0', 'abc', '70000']) {
      const run = await svcIn({ ...(await embedded()), SVC_METRICS_PORT: bad }, 'serve');
      expect(run.status, bad).toBe(2);
      expect(run.stderr).toBe(
        'error: invalid configuration: SVC_METRICS_PORT: must be a port number from 1 to 65535 (leave it unset to serve no metrics)\n',
      );
    }
  });

  it("a metrics port already in use: exit 2, naming the metrics address, not the API's", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const { port } = taken.address() as { port: number };
    try {
      const run = await svcIn({ ...(await embedded()), SVC_METRICS_PORT: String(port) }, 'serve', '--port', '0');
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(
        `error: cannot listen for metrics on 127.0.0.1:${port} (SVC_METRICS_HOST, SVC_METRICS_PORT): the address is already in use\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('PORT=abc stops it before it starts: exit 2, naming the variable', async () => {
    const run = await svcIn({ ...(await embedded()), PORT: 'abc' }, 'serve');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('error: invalid configuration: PORT: must be a port number\n');
  });

  it('a key file that does not hold a key stops it before it starts: exit 2, naming the file, the file left as it is', async () => {
    const vars = await embedded();
    const file = join(vars.SVC_DATA_DIR, 'master.key');
    mkdirSync(vars.SVC_DATA_DIR, { recursive: true });
    writeFileSync(file, 'ab'.repeat(20), { mode: 0o600 });
    const run = await svcIn(vars, 'serve', '--port', '0');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `error: cannot use the master key (${file}): the key file ${file} does not hold a key (64 hex digits; it holds 40 characters): restore it from its backup, or set SVC_MASTER_KEY to the key\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('ab'.repeat(20));
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Polls a condition (the server's output arrives on its own time) for up to 5 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
