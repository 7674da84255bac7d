import {
  LiveResponseSchema,
  operationsEndpoints,
  type Problem,
  ReadinessChecksSchema,
  ReadyResponseSchema,
} from '@svc/contracts';
import { sql } from 'kysely';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../../src/store/migrate.js';
import { POSTGRES_URL } from '../support/environment.js';
import { freePort } from '../support/ports.js';
import { expectInvalid, expectJson, expectNoLimitHeaders, expectProblem } from '../support/responses.js';
import { startTestServer, type TestServer, useServer } from '../support/server.js';
import { holdSqliteWriteLock, lockSqliteStore } from '../support/sqlite-lock.js';
import { engines } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const LiveSchema = LiveResponseSchema.strict();
const ReadySchema = ReadyResponseSchema.strict();
const LAST_MIGRATION = MIGRATION_NAMES.at(-1) as string;

/** A 503 `unavailable` from /readyz with Retry-After and its `checks`. */
async function expectNotReady(res: Response): Promise<Problem> {
  const retryAfter = res.headers.get('retry-after');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const problem = await expectProblem(res, 'unavailable');
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(problem.retry_after_seconds).toBe(Number(retryAfter));
  expect(problem.instance).toBe('/readyz');
  ReadinessChecksSchema.strict().parse(problem.checks);
  return problem;
}

/** The value of a counter's sample with these labels (0 when the sample is absent). */
async function counter(server: TestServer, name: string, labels: Record<string, string>): Promise<number> {
  const res = await fetch(`${server.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(await res.text()).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample && 'value' in sample ? Number(sample.value) : 0;
}

describe.each(engines)('GET /livez and GET /readyz on %s', (engine) => {
  const server = useServer(engine);

  it('/livez answers 200 {"status":"live"}: public, not limited, not cached', async () => {
    const res = await server().get('/livez');
    expectNoLimitHeaders(res);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await expectJson(res, LiveSchema)).toEqual({ status: 'live' });
  });

  it('/readyz answers 200 with both checks ok: public, not limited, not cached', async () => {
    const res = await server().get('/readyz');
    expectNoLimitHeaders(res);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await expectJson(res, ReadySchema)).toEqual({ status: 'ready', checks: { store: 'ok', migrations: 'ok' } });
  });

  it('HEAD answers both without a body; an unknown query parameter is 400 naming it', async () => {
    for (const path of ['/livez', '/readyz']) {
      const head = await server().get(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      await expectInvalid(await server().get(`${path}?verbose=1`), ['query.verbose']);
    }
  });

  it('/readyz answers 503 naming a migration whose row is gone, and 200 again once it is back', async () => {
    const { db } = server().services.store;
    const row = await sql<{ name: string; timestamp: string }>`
      select name, timestamp from kysely_migration where name = ${LAST_MIGRATION}`.execute(db);
    expect(row.rows).toHaveLength(1);
    const { timestamp } = row.rows[0] as { timestamp: string };
    await sql`delete from kysely_migration where name = ${LAST_MIGRATION}`.execute(db);
    try {
      const problem = await expectNotReady(await server().get('/readyz'));
      expect(problem.checks).toEqual({ store: 'ok', migrations: `pending: ${LAST_MIGRATION}` });
      expect(problem.detail).toContain(LAST_MIGRATION);
      // Liveness never looks at the store's schema: the process is up.
      expect((await server().get('/livez')).status).toBe(200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${LAST_MIGRATION}, ${timestamp})`.execute(db);
    }
    await expectJson(await server().get('/readyz'), ReadySchema);
  });

  it('/readyz names every pending migration, oldest first', async () => {
    const { db } = server().services.store;
    const names = MIGRATION_NAMES.slice(-2);
    const saved = await sql<{ name: string; timestamp: string }>`
      select name, timestamp from kysely_migration where name in (${sql.join(names)}) order by name`.execute(db);
    expect(saved.rows).toHaveLength(2);
    await sql`delete from kysely_migration where name in (${sql.join(names)})`.execute(db);
    try {
      const problem = await expectNotReady(await server().get('/readyz'));
      expect(problem.checks?.migrations).toBe(`pending: ${names.join(', ')}`);
    } finally {
      for (const r of saved.rows) {
        await sql`insert into kysely_migration (name, timestamp) values (${r.name}, ${r.timestamp})`.execute(db);
      }
    }
    await expectJson(await server().get('/readyz'), ReadySchema);
  });

  it('a migration the store has that this code does not know (a newer instance ran it) leaves it ready', async () => {
    const { db } = server().services.store;
    const newer = '9999-from-a-newer-release';
    await sql`insert into kysely_migration (name, timestamp) values (${newer}, ${new Date().toISOString()})`.execute(
      db,
    );
    try {
      await expectJson(await server().get('/readyz'), ReadySchema);
    } finally {
      await sql`delete from kysely_migration where name = ${newer}`.execute(db);
    }
  });

  it('the OpenAPI document lists both under Operations, with no key, and the 503 of /readyz with Retry-After', async () => {
    const doc = (await (await server().get('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            tags: string[];
            security?: unknown;
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    };
    for (const e of Object.values(operationsEndpoints)) {
      const op = doc.paths[e.path]?.get;
      expect(op?.operationId).toBe(e.operationId);
      expect(op?.tags).toEqual(['Operations']);
      expect(op?.security).toBeUndefined();
      expect(Object.keys(op?.responses ?? {})).toContain('200');
    }
    expect(Object.keys(doc.paths['/readyz']?.get?.responses['503']?.headers ?? {})).toContain('Retry-After');
  });
});

/** Store timeout of the outage suites: answers must come within it (and some margin), never hang. */
const TIMEOUT_MS = 500;
const ANSWER_WITHIN_MS = 4 * TIMEOUT_MS + 2500;
/** Lets the pool see connections the proxy dropped before the next requests take them. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** Reads /readyz, insisting on a prompt answer. */
async function readyz(server: TestServer): Promise<Response> {
  const started = Date.now();
  const res = await server.get('/readyz', { signal: AbortSignal.timeout(15_000) });
  expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
  return res;
}

/** While the store is away: /readyz 503 store unavailable, /livez 200, the scrape still answers and counts. */
async function expectStoreAway(server: TestServer): Promise<void> {
  const before = await counter(server, 'svc_store_errors_total', { kind: 'readiness' });
  const problem = await expectNotReady(await readyz(server));
  expect(problem.checks).toEqual({ store: 'unavailable', migrations: 'unknown' });
  expect(problem.detail).not.toMatch(/ECONN|SQLITE|postgres|127\.0\.0\.1/i);
  expect(await expectJson(await server.get('/livez'), LiveSchema)).toEqual({ status: 'live' });
  expect(await counter(server, 'svc_store_errors_total', { kind: 'readiness' })).toBe(before + 1);
  // A request that needs the store answers 503 too (never a 500), and is counted as such.
  const requests = await counter(server, 'svc_store_errors_total', { kind: 'request' });
  await expectProblem(
    await server.get('/api/public/changelog', { signal: AbortSignal.timeout(15_000) }),
    'unavailable',
  );
  expect(await counter(server, 'svc_store_errors_total', { kind: 'request' })).toBe(requests + 1);
  // The scrape itself could not read the store: it answered all the same, and counted that too.
  expect(await counter(server, 'svc_store_errors_total', { kind: 'scrape' })).toBeGreaterThan(0);
}

describe.skipIf(!engines.includes('postgres'))('GET /readyz while PostgreSQL is away (behind a proxy)', () => {
  const proxy = new TcpProxy(POSTGRES_URL);
  let server: TestServer;

  beforeAll(async () => {
    await proxy.start();
    server = await startTestServer('postgres', {
      env: { SVC_STORE_TIMEOUT_MS: String(TIMEOUT_MS), SVC_METRICS_PORT: String(await freePort()) },
      storeUrl: proxy.url,
    });
  });

  afterAll(async () => {
    proxy.forward();
    if (!proxy.listening) await proxy.start();
    await server?.stop();
    await proxy.stop();
  });

  it('is ready while the store answers', async () => {
    await expectJson(await readyz(server), ReadySchema);
    expect(await counter(server, 'svc_store_errors_total', { kind: 'readiness' })).toBe(0);
  });

  it('refusing connections: 503 store unavailable, live all the while; ready again once it is back', async () => {
    await proxy.stop();
    await settle();
    await expectStoreAway(server);
    await proxy.start();
    await expectJson(await readyz(server), ReadySchema);
  });

  it('accepting connections but never answering: 503 within the store timeout; ready again after', async () => {
    proxy.blackhole();
    await settle();
    await expectStoreAway(server);
    proxy.forward();
    await settle();
    await expectJson(await readyz(server), ReadySchema);
  });

  it('stalling on open connections: 503 within the store timeout; ready again after', async () => {
    await expectJson(await readyz(server), ReadySchema);
    proxy.hold();
    await expectStoreAway(server);
    proxy.forward();
    await settle();
    await expectJson(await readyz(server), ReadySchema);
  });
});

describe.skipIf(!engines.includes('sqlite'))('GET /readyz while the SQLite file is locked by another process', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { SVC_STORE_TIMEOUT_MS: String(TIMEOUT_MS), SVC_METRICS_PORT: String(await freePort()) },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('503 store unavailable while locked, live all the while; ready again once released', async () => {
    await expectJson(await readyz(server), ReadySchema);
    if (server.location.kind !== 'sqlite') throw new Error('a SQLite store was expected');
    const lock = await lockSqliteStore(server.location.file);
    try {
      await expectStoreAway(server);
      // The lock really keeps the server's connection out: a read of its own fails as a store outage.
      await expect(server.services.store.ping()).rejects.toMatchObject({ code: 'SQLITE_BUSY_RECOVERY' });
    } finally {
      await lock.release();
    }
    await expectJson(await readyz(server), ReadySchema);
    await server.services.store.ping();
  });
});

describe.skipIf(!engines.includes('sqlite'))('while another process holds the SQLite write lock', () => {
  let server: TestServer;

  beforeAll(async () => {
    // The webhook dispatcher polls every 20 ms: each poll tries to take the lock while another process holds it.
    server = await startTestServer('sqlite', {
      env: { SVC_STORE_TIMEOUT_MS: '1500', SVC_WEBHOOK_POLL_INTERVAL: '20ms' },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('/livez answers at once all the while, the event loop never waits on the lock; a write waits, then succeeds', async () => {
    if (server.location.kind !== 'sqlite') throw new Error('a SQLite store was expected');
    const lock = await holdSqliteWriteLock(server.location.file);
    let released = false;
    try {
      // A write of the server's own (a coverage request) waits for the lock without holding the loop.
      const write = server.send('POST', '/api/public/score-request', { provider_name: 'Locked Lending' });
      const delays: number[] = [];
      for (let n = 0; n < 20; n++) {
        const t = performance.now();
        const res = await server.get('/livez');
        expect(res.status).toBe(200);
        delays.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // Each answer is a loopback round trip; SQLite's own busy wait holds the loop at most a few milliseconds.
      expect(Math.max(...delays), `livez took ${delays.map((d) => d.toFixed(1)).join(', ')} ms`).toBeLessThan(250);
      await lock.release();
      released = true;
      const answered = await write;
      expect(answered.status, await answered.clone().text()).toBe(202);
    } finally {
      if (!released) await lock.release();
    }
  });

  it('a write that cannot have the lock within the store timeout is a 503, and the loop stays free meanwhile', async () => {
    if (server.location.kind !== 'sqlite') throw new Error('a SQLite store was expected');
    const lock = await holdSqliteWriteLock(server.location.file);
    try {
      const started = performance.now();
      const write = server.send('POST', '/api/public/score-request', { provider_name: 'Locked Out Lending' });
      const live = await server.get('/livez');
      expect(live.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(500);
      await expectProblem(await write, 'unavailable');
      expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    } finally {
      await lock.release();
    }
  });
});

describe.skipIf(!engines.includes('postgres'))('GET /api/v1/status while every table is locked (PostgreSQL)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('postgres', { env: { SVC_STORE_TIMEOUT_MS: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers degraded within one store timeout, not one per table it waits on', async () => {
    const schema = (server.location as { schema: string }).schema;
    const holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
    try {
      const { rows } = await holder.query<{ tablename: string }>(
        'select tablename from pg_tables where schemaname = $1',
        [schema],
      );
      await holder.query('begin');
      await holder.query(
        `lock table ${rows.map((r) => `${schema}.${r.tablename}`).join(', ')} in access exclusive mode`,
      );
      // The caches the status reads through have expired: every read must go to the store.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const started = performance.now();
      const res = await server.get('/api/v1/status');
      const took = performance.now() - started;
      const body = (await res.json()) as { status: string; components: { store: string } };
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ status: 'degraded', components: { store: 'unavailable' } });
      expect(took, `status took ${took.toFixed(0)} ms`).toBeLessThan(1600);
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
    const after = (await (await server.get('/api/v1/status')).json()) as { components: { store: string } };
    expect(after.components.store).toBe('ok');
  });
});
