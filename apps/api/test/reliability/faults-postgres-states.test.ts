import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isStoreUnavailable, StoreUnavailableError } from '../../src/store/store.js';
import { example, WORKED_ID } from '../support/documents.js';

const WORKED_NAME = example('worked-example').provider.name;

import { ctxOf } from '../support/context.js';
import { POSTGRES_URL } from '../support/environment.js';
import { clientIp, expectProblem } from '../support/responses.js';
import { publish, startTestServer, type TestServer } from '../support/server.js';
import { adminQuery, engines } from '../support/stores.js';
import { enableAgentTools } from '../support/terms.js';

/**
 * The states a real PostgreSQL server can be in that are outages without being a refused TCP connection: the
 * database refusing new connections (SQLSTATE 55000 at connect), the service's sessions terminated under it (57P01),
 * its connection allowance spent (53300), and a read-only database for a write (25006). Every one is a 503
 * `unavailable` with Retry-After, never a 500; and every one ends when the state does, without a restart.
 */
describe.skipIf(!engines.includes('postgres'))('store outage states of a real PostgreSQL server', () => {
  const suffix = randomBytes(6).toString('hex');
  const database = `svc_outage_${suffix}`;
  const role = `svc_outage_${suffix}`;
  const adminUrl = POSTGRES_URL;
  const serviceUrl = (() => {
    const url = new URL(POSTGRES_URL);
    url.username = role;
    url.password = '';
    url.pathname = `/${database}`;
    return url.toString();
  })();
  let server: TestServer;
  let key = '';
  let riId = '';
  let requestId = '';
  let ips = 0;

  const admin = (text: string) => adminQuery(text, adminUrl);
  /**
   * Ends every session the service holds; the pool opens new ones on its next request. Returns once no session that
   * was open when the sessions were terminated is left: pg_terminate_backend only signals, and a session still closing
   * under load would otherwise be an idle pooled connection handed to the next request, dead, before the pool heard of
   * it. Sessions opened since (the server's own background work reconnects at any time) are not waited for: they
   * started after the change to the role or database this is called for, so they already see it.
   */
  const terminateSessions = async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows: marks } = await client.query(
        `select statement_timestamp()::text as at, count(pg_terminate_backend(pid))::int as n
           from pg_stat_activity where usename = $1 and pid <> pg_backend_pid()`,
        [role],
      );
      const at = marks[0].at as string;
      for (let attempt = 0; attempt < 250; attempt++) {
        const { rows } = await client.query(
          'select count(*)::int as n from pg_stat_activity where usename = $1 and backend_start <= $2::timestamptz',
          [role, at],
        );
        if (rows[0].n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the sessions of ${role} open at ${at} did not end within 5 s`);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`create role ${role} login`);
    await admin(`create database ${database} owner ${role}`);
    server = await startTestServer('postgres', {
      postgresDatabaseUrl: serviceUrl,
      env: { SVC_STORE_TIMEOUT_MS: '1000', TRUST_PROXY: 'true', SVC_MCP_ENABLED: 'true' },
    });
    await publish(server, example('worked-example'));
    const issued = await server.issueKey('ENTERPRISE');
    await enableAgentTools(ctxOf(server.services.store), issued.workspaceId);
    key = issued.key;
    const detail = (await (await server.get(`/api/v1/scores/${WORKED_ID}`, { key })).json()) as {
      risk_indicator_id: string;
    };
    riId = detail.risk_indicator_id;
    const received = await fetch(`${server.url}/api/public/score-request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp(900) },
      body: JSON.stringify({ provider_name: 'Followed Lending' }),
    });
    requestId = ((await received.json()) as { request_id: string }).request_id;
  });

  afterAll(async () => {
    await server?.stop().catch(() => {});
    await admin(`drop database if exists ${database} with (force)`);
    await admin(`drop role if exists ${role}`);
  });

  beforeEach(async () => {
    await admin(`alter database ${database} allow_connections true`);
    await admin(`alter role ${role} connection limit -1`);
    await admin(`alter role ${role} reset default_transaction_read_only`);
    await terminateSessions();
  });

  const signal = () => AbortSignal.timeout(15_000);
  const get = (path: string, keyed = true) => server.get(path, { ...(keyed ? { key } : {}), signal: signal() });
  const post = (path: string, body: unknown, keyed: boolean) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': clientIp(++ips),
        ...(keyed ? { 'x-api-key': key } : {}),
      },
      body: JSON.stringify(body),
      signal: signal(),
    });

  /** The requests outside testing saw answer 500, each needing the store. */
  const reads: [string, () => Promise<Response>][] = [
    ['the issuances list', () => get('/api/v1/issuances')],
    ['the scores list', () => get('/api/v1/scores')],
    ['the change feed', () => get('/api/public/changelog', false)],
    ['the verification page', () => get(`/verify/${riId}`, false)],
    ['a score history', () => get(`/api/v1/scores/${WORKED_ID}/history`)],
    ['a coverage request followed by its requester', () => get(`/api/public/score-request/${requestId}`, false)],
    [
      'an agent tool call',
      () => post('/api/mcp', { tool_name: 'get_score_history', input: { provider_name: WORKED_NAME } }, true),
    ],
  ];
  const write: [string, () => Promise<Response>] = [
    'a coverage request',
    () => post('/api/public/score-request', { provider_name: `Outage ${++ips}` }, false),
  ];

  async function expectUnavailable(what: string, res: Response): Promise<void> {
    expect(res.status, what).toBe(503);
    expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
    if (res.headers.get('content-type')?.includes('text/html')) {
      await res.body?.cancel();
      return;
    }
    const problem = await expectProblem(res, 'unavailable');
    expect(problem.detail).not.toMatch(/55000|53300|25006|postgres|accepting|read-only/i);
  }

  async function expectServed(list: [string, () => Promise<Response>][]): Promise<void> {
    for (const [what, send] of list) {
      const res = await send();
      expect(res.status, what).toBeLessThan(300);
      await res.body?.cancel();
    }
  }

  /** The public list is served from the snapshot while the store is away (200) or, with none, is a 503: never 500. */
  async function expectPublicListNot500(): Promise<void> {
    const res = await get('/api/public/scores', false);
    if (res.status === 200) await res.body?.cancel();
    else await expectUnavailable('the public list', res);
  }

  it('while the database accepts connections every request is served', async () => {
    // The sessions were just ended (beforeEach): the first request reconnects, which on a loaded machine can take
    // longer than the 1 s store timeout (a 503 by design). Reconnected, every request must be served.
    for (let attempt = 0; attempt < 5; attempt++) {
      const warm = await get('/api/v1/status', false);
      await warm.body?.cancel();
      if (warm.status === 200) break;
    }
    await expectServed([...reads, write]);
  });

  it('a database that does not accept connections (55000 at connect): 503 unavailable, then served again', async () => {
    await admin(`alter database ${database} allow_connections false`);
    await terminateSessions();
    for (const [what, send] of [...reads, write]) await expectUnavailable(what, await send());
    await expectPublicListNot500();
    await admin(`alter database ${database} allow_connections true`);
    await expectServed([...reads, write]);
  });

  it('the connection allowance spent (53300 too many connections): 503 unavailable, then served again', async () => {
    await admin(`alter role ${role} connection limit 0`);
    await terminateSessions();
    for (const [what, send] of [...reads, write]) await expectUnavailable(what, await send());
    await expectPublicListNot500();
    await admin(`alter role ${role} connection limit -1`);
    await expectServed([...reads, write]);
  });

  it('sessions terminated while requests wait on the store (57P01): 503 unavailable, then served again', async () => {
    // An administrator holds every table of the service's schema; the requests' queries queue behind the lock.
    const holder = new pg.Client({ connectionString: serviceUrl });
    await holder.connect();
    try {
      const schema = (server.location as { schema: string }).schema;
      await holder.query('begin');
      await holder.query(
        `lock table ${['api_keys', 'providers', 'risk_indicators', 'indicator_history', 'changelog', 'issuances', 'coverage_requests'].map((t) => `${schema}.${t}`).join(', ')} in access exclusive mode`,
      );
      const pending = [...reads, write].map(async ([what, send]) => [what, await send()] as const);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await admin(
        `select pg_terminate_backend(pid) from pg_stat_activity where usename = '${role}' and pid <> ${(await holder.query('select pg_backend_pid() as pid')).rows[0].pid}`,
      );
      for (const [what, res] of await Promise.all(pending)) {
        if (res.status < 300) await res.body?.cancel();
        else await expectUnavailable(what, res);
      }
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
    await expectServed([...reads, write]);
  });

  it('a read-only database (25006 for a write): the write is 503 unavailable, reads are served, then writes again', async () => {
    await admin(`alter role ${role} set default_transaction_read_only = on`);
    await terminateSessions();
    await expectUnavailable(write[0], await write[1]());
    await expectServed(reads.filter(([what]) => what !== 'an agent tool call'));
    await admin(`alter role ${role} reset default_transaction_read_only`);
    await terminateSessions();
    await expectServed([...reads, write]);
  });
});

describe('isStoreUnavailable decides by SQLSTATE class and by where the failure happened', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });
  it.each(['08006', '08001', '53300', '53100', '57P01', '57P03', '57014', '58030', '25006'])(
    'SQLSTATE %s is an outage',
    (code) => {
      expect(isStoreUnavailable(withCode(code))).toBe(true);
    },
  );
  it.each(['23505', '42P01', '22021', '55000', '42703', '40001'])('SQLSTATE %s in a statement is not', (code) => {
    expect(isStoreUnavailable(withCode(code))).toBe(false);
  });
  it('any failure to open a connection is an outage, whatever its code (55000 included)', () => {
    expect(isStoreUnavailable(new StoreUnavailableError('could not connect', { cause: withCode('55000') }))).toBe(true);
  });
  it('an outage wrapped as the cause of another error is still one', () => {
    expect(isStoreUnavailable(new Error('wrapped', { cause: withCode('57P01') }))).toBe(true);
  });
});
