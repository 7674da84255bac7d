import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import type { Store } from '../../src/store/store.js';
import { deleteKeys } from '../limits/redis-keys.js';
import { ctxOf } from '../support/context.js';
import { POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable } from '../support/environment.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { TEST_MASTER_KEY } from '../support/server.js';
import type { FreshStore } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import {
  approvedProviders,
  box,
  deliveries,
  eventsWithoutDeliveries,
  FULLY_PUBLISHED,
  faultStore,
  halfWritten,
  keyOf,
  ledger,
  subscriber,
} from './faults-ledger.js';
import {
  type ApiProcess,
  dataDir,
  type Env,
  forwardedFor,
  killAll,
  loadLoop,
  removeDataDirs,
  runSvcJson,
  type Sample,
  sleep,
  startApi,
  startSvc,
  tally,
  until,
} from './faults-processes.js';

/**
 * Faults with real processes: `svc serve` and `svc publish` from the built CLI, PostgreSQL and Redis behind TCP
 * proxies that take them away and bring them back, webhook receivers that refuse or hang, and kill -9.
 */

interface PublishReport {
  counts: { published: number; unchanged: number; refused: number };
}

const STORE_TIMEOUT_MS = 500;
/** How long any answer may take while the store is down (as in store-outage.test.ts): never a hang. */
const ANSWER_WITHIN_MS = 4 * STORE_TIMEOUT_MS + 2500;
/** How long PostgreSQL and Redis stay away. */
const OUTAGE_MS = 2500;

const stores: FreshStore[] = [];
const proxies: TcpProxy[] = [];
const receivers: Receiver[] = [];
const redisKeys: string[] = [];

afterEach(async () => {
  await killAll();
  for (const receiver of receivers.splice(0)) await receiver.close().catch(() => {});
  for (const proxy of proxies.splice(0)) await proxy.stop();
});
afterAll(async () => {
  for (const store of stores.splice(0)) await store.dispose();
  for (const id of redisKeys.splice(0)) await deleteKeys(`svc:rl:key:${id}`);
  await removeDataDirs();
});

async function apiEnv(extra: Env): Promise<Env> {
  return {
    SVC_DATA_DIR: await dataDir(),
    SVC_MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: 'warn',
    SVC_WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...extra,
  };
}

async function newStore() {
  const place = await faultStore();
  stores.push(place.store);
  return place;
}

async function proxyOf(url: string): Promise<TcpProxy> {
  const proxy = new TcpProxy(url);
  await proxy.start();
  proxies.push(proxy);
  return proxy;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function rowCount(store: Store, table: 'indicator_history' | 'webhook_events'): Promise<number> {
  const row = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `svc publish --all` again after an interruption: exactly the rest published, every provider fully once. */
async function rerunPublishesTheRest(vars: Env, store: Store, providers: number, publishedBefore: number) {
  const rerun = await runSvcJson<PublishReport>(vars, 'publish', '--all');
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.json.counts).toEqual({
    published: providers - publishedBefore,
    unchanged: publishedBefore,
    refused: 0,
  });
  for (const { id, ...state } of await ledger(store)) expect(state, id).toEqual(FULLY_PUBLISHED);
  return rerun;
}

const during = (samples: readonly Sample[], from: number, to: number) =>
  samples.filter((s) => s.startedAt >= from && s.finishedAt <= to);

describe.skipIf(!postgresAvailable)('faults with real processes', () => {
  it('PostgreSQL stopped under load: 503 with Retry-After, never a 500 or a hang; 200 again from the same process; the interrupted publication run loses and half-writes nothing', async () => {
    const PROVIDERS = 60;
    const pg = await proxyOf(POSTGRES_URL);
    const { store, databaseUrl } = await newStore();
    const ids = await approvedProviders(store, PROVIDERS);
    const watcher = await subscriber(store, 'http://127.0.0.1:65535/hook');
    const [detailId] = ids as [string];
    await publishRun(ctxOf(store, { clock: systemClock, box }), { providers: [detailId] });
    const vars = await apiEnv({
      DATABASE_URL: databaseUrl(pg.url),
      SVC_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
      TRUST_PROXY: 'true',
      SVC_WEBHOOK_DISPATCH: 'false',
    });
    const api = await startApi(vars);
    const load = loadLoop(
      [
        {
          name: 'detail',
          url: () => `${api.url}/api/v1/scores/${detailId}`,
          init: () => ({ headers: { 'x-api-key': watcher.key } }),
        },
        { name: 'public', url: () => `${api.url}/api/public/scores`, init: () => ({ headers: forwardedFor() }) },
      ],
      4,
    );
    await sleep(1000);

    const publisher = startSvc(vars, 'publish', '--all', '--json');
    await until(
      'the publication run is under way',
      async () => !publisher.running() || (await rowCount(store, 'indicator_history')) >= 6,
    );
    expect(publisher.running(), `publish finished before the outage: raise PROVIDERS (${PROVIDERS})`).toBe(true);
    const stopping = Date.now();
    await pg.stop();
    const down = Date.now();
    const publisherExit = await publisher.exited;
    const publisherMs = Date.now() - down;
    await sleep(Math.max(0, down + OUTAGE_MS - Date.now()));
    const back = Date.now();
    await pg.start();
    const recoveryMs = await until(
      'the detail route answers 200 again',
      () => load.samples.some((s) => s.target === 'detail' && s.startedAt >= back && s.status === 200),
      10_000,
    );
    await sleep(1000);
    const samples = await load.stop();

    // The run stopped by the outage failed cleanly: a store_unavailable exit, and every provider whole or untouched.
    expect(publisherExit.code, publisher.stderr()).toBe(2);
    expect(publisher.stdout()).toContain('store_unavailable');
    const afterOutage = await ledger(store);
    expect(halfWritten(afterOutage)).toEqual([]);
    const publishedBefore = afterOutage.filter((p) => p.current).length;
    expect(publishedBefore).toBeGreaterThan(1);
    expect(publishedBefore).toBeLessThan(PROVIDERS);

    // The answers: 200 or a quick 503 problem with Retry-After, nothing else, and no failed connection.
    expect(samples.filter((s) => s.error !== null).map((s) => s.error)).toEqual([]);
    expect(Object.keys(tally(samples, (s) => String(s.status))).sort()).toEqual(['200', '503']);
    for (const s of samples.filter((s) => s.status === 503)) {
      expect({ type: s.contentType?.split(';')[0], code: s.code, retryAfter: s.retryAfter }).toEqual({
        type: 'application/problem+json',
        code: 'unavailable',
        retryAfter: '5',
      });
    }
    const outage = during(samples, stopping, back + 1000);
    expect(Math.max(...outage.map((s) => s.finishedAt - s.startedAt))).toBeLessThan(ANSWER_WITHIN_MS);
    expect(samples.filter((s) => s.finishedAt < stopping).every((s) => s.status === 200)).toBe(true);
    // Keyed reads go to the store on every request: 503 for the whole outage.
    const detailDown = during(samples, down, back).filter((s) => s.target === 'detail');
    expect(detailDown.length).toBeGreaterThan(0);
    expect(tally(detailDown, (s) => String(s.status))).toEqual({ 503: detailDown.length });
    // The public list serves its snapshot until its once-a-second check of the store, then 503 (docs/operations.md).
    const publicDown = during(samples, down, back).filter((s) => s.target === 'public');
    const publicLate = publicDown.filter((s) => s.startedAt >= down + 1200);
    expect(publicLate.length).toBeGreaterThan(0);
    expect(tally(publicLate, (s) => String(s.status))).toEqual({ 503: publicLate.length });
    // Back: the same process answers 200 again, without a restart.
    const firstOk = Math.min(...samples.filter((s) => s.startedAt >= back && s.status === 200).map((s) => s.startedAt));
    expect(
      tally(
        samples.filter((s) => s.startedAt >= firstOk),
        (s) => String(s.status),
      ),
    ).toEqual({
      200: samples.filter((s) => s.startedAt >= firstOk).length,
    });
    expect(api.running()).toBe(true);
    const status = (await (await fetch(`${api.url}/api/v1/status`)).json()) as { components: { store: string } };
    expect(status.components.store).toBe('ok');

    // The run again: it publishes exactly the rest; every provider once, with its one event and delivery.
    const rerun = await rerunPublishesTheRest(vars, store, PROVIDERS, publishedBefore);
    expect(await eventsWithoutDeliveries(store)).toEqual([]);
    console.info(
      `faults/postgres: ${samples.length} requests (${JSON.stringify(tally(samples, (s) => `${s.target} ${s.status}`))}); ` +
        `outage ${back - down} ms; slowest answer during it ${Math.max(...outage.map((s) => s.finishedAt - s.startedAt))} ms; ` +
        `publish stopped ${publisherMs} ms after the outage began with ${publishedBefore}/${PROVIDERS} published, ` +
        `the rerun published ${rerun.json.counts.published}; 200 again ${recoveryMs} ms after the store was back`,
    );
  });

  it.skipIf(!redisAvailable)(
    'Redis stopped under load with two API processes: each admits limit / SVC_INSTANCES = 50 of a FREE key, then both spend the shared Redis budget again',
    async () => {
      const redis = await proxyOf(REDIS_URL);
      const { store, databaseUrl } = await newStore();
      const vars = await apiEnv({
        DATABASE_URL: databaseUrl(),
        REDIS_URL: redis.url,
        SVC_INSTANCES: '2',
        SVC_WEBHOOK_DISPATCH: 'false',
      });
      const [a, b] = (await Promise.all([startApi(vars), startApi(vars)])) as [ApiProcess, ApiProcess];
      const limiterState = async (api: ApiProcess) => {
        const body = (await (await fetch(`${api.url}/api/v1/status`)).json()) as {
          components: { rate_limit_store: string };
        };
        return body.components.rate_limit_store;
      };
      const bothAre = (state: string) => async () =>
        (await limiterState(a)) === state && (await limiterState(b)) === state;
      await until('both limit through Redis', bothAre('ok'));

      const busy = await keyOf(store, 'ENTERPRISE');
      const [shared, outageKey, afterKey] = [
        await keyOf(store, 'FREE'),
        await keyOf(store, 'FREE'),
        await keyOf(store, 'FREE'),
      ];
      redisKeys.push(busy.keyId, shared.keyId, outageKey.keyId, afterKey.keyId);
      const load = loadLoop(
        [a, b].map((api, i) => ({
          name: `api ${i}`,
          url: () => `${api.url}/api/v1/issuances`,
          init: () => ({ headers: { 'x-api-key': busy.key } }),
        })),
        2,
      );
      /**
       * Sends `n` requests with the key to the API (one at a time); returns the statuses and remaining counts. The
       * limit header states the limit in force: the shared 100, or this instance's 50 while Redis is away.
       */
      const spend = async (api: ApiProcess, key: string, n: number, limit = '100') => {
        const out: { status: number; remaining: number | null }[] = [];
        for (let i = 0; i < n; i++) {
          const res = await fetch(`${api.url}/api/v1/issuances`, { headers: { 'x-api-key': key } });
          await res.arrayBuffer();
          const remaining = res.headers.get('x-ratelimit-remaining');
          out.push({ status: res.status, remaining: remaining === null ? null : Number(remaining) });
          expect(res.headers.get('x-ratelimit-limit')).toBe(limit);
        }
        return out;
      };
      const statuses = (answers: { status: number }[]) => answers.map((x) => x.status);
      const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from - i);

      // One budget for both: 30 on A, then 30 on B continue where A stopped.
      expect((await spend(a, shared.key, 30)).map((x) => x.remaining)).toEqual(range(99, 30));
      expect((await spend(b, shared.key, 30)).map((x) => x.remaining)).toEqual(range(69, 30));

      await redis.stop();
      const down = Date.now();
      const degradedMs = await until('both fall back to in-process limits', bothAre('degraded'));
      // The documented fallback: each instance admits floor(100 / 2) = 50 of the key's hourly 100, then 429.
      const onA = await spend(a, outageKey.key, 51, '50');
      const onB = await spend(b, outageKey.key, 51, '50');
      expect(statuses(onA)).toEqual([...Array(50).fill(200), 429]);
      expect(statuses(onB)).toEqual([...Array(50).fill(200), 429]);
      expect(onA.map((x) => x.remaining)).toEqual([...range(49, 50), 0]);
      await sleep(Math.max(0, down + OUTAGE_MS - Date.now()));

      await redis.start();
      const back = Date.now();
      const recoveryMs = await until('both limit through Redis again', bothAre('ok'));
      // The shared window again: what was spent in Redis before the outage still counts, on either instance.
      expect(await spend(a, shared.key, 1)).toEqual([{ status: 200, remaining: 39 }]);
      expect(await spend(b, shared.key, 1)).toEqual([{ status: 200, remaining: 38 }]);
      // Exact across both: a fresh key gets 100 in all, alternating instances, then 429 from each.
      const alternating: { status: number; remaining: number | null }[] = [];
      for (let i = 0; i < 50; i++)
        alternating.push(...(await spend(a, afterKey.key, 1)), ...(await spend(b, afterKey.key, 1)));
      expect(alternating.map((x) => x.remaining)).toEqual(range(99, 100));
      expect(statuses(alternating)).toEqual(Array(100).fill(200));
      expect(statuses([...(await spend(a, afterKey.key, 1)), ...(await spend(b, afterKey.key, 1))])).toEqual([
        429, 429,
      ]);

      const samples = await load.stop();
      expect(samples.filter((s) => s.error !== null || s.status !== 200)).toEqual([]);
      const slowest = Math.max(...samples.map((s) => s.finishedAt - s.startedAt));
      expect(slowest).toBeLessThan(2000);
      expect(a.running() && b.running()).toBe(true);
      console.info(
        `faults/redis: ${samples.length} requests under load, all 200, slowest ${slowest} ms; degraded seen ${degradedMs} ms ` +
          `after the stop; 50 + 50 admitted during it; back on Redis ${recoveryMs} ms after it returned (${back - down} ms away)`,
      );
    },
  );

  it('the webhook receiver down for a while: every event of a `svc publish` run is retried by `svc serve` and delivered exactly once when it is back', async () => {
    const PROVIDERS = 12;
    const hook = await receiver();
    const { store, databaseUrl } = await newStore();
    await subscriber(store, hook.url);
    await approvedProviders(store, PROVIDERS);
    const vars = await apiEnv({
      DATABASE_URL: databaseUrl(),
      SVC_WEBHOOK_RETRY_SCHEDULE: '250ms,500ms,1s,1s,1s,1s,1s,1s,1s,1s',
      SVC_WEBHOOK_POLL_INTERVAL: '100ms',
      SVC_WEBHOOK_TIMEOUT: '2s',
    });
    const api = await startApi(vars);
    await hook.stop();
    const down = Date.now();
    const run = await runSvcJson<PublishReport>(vars, 'publish', '--all');
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.counts.published).toBe(PROVIDERS);
    await until('every delivery has been refused at least once', async () => {
      const all = await deliveries(store);
      return all.length === PROVIDERS && all.every((d) => d.log.some((a) => a.error !== null));
    });
    await sleep(Math.max(0, down + OUTAGE_MS - Date.now()));
    expect(hook.received).toEqual([]);

    await hook.restart();
    const back = Date.now();
    const drainMs = await until('every delivery delivered', async () =>
      (await deliveries(store)).every((d) => d.status === 'delivered'),
    );
    await sleep(500);
    const settled = await deliveries(store);
    const eventIds = settled.map((d) => d.event_id).sort();
    expect(hook.received.map((r) => String(r.headers['webhook-id'])).sort()).toEqual(eventIds);
    for (const d of settled) {
      expect(d.attempts, d.id).toBeGreaterThanOrEqual(2);
      expect(d.log.map((a) => a.status_code)).toEqual([...Array(d.attempts - 1).fill(null), 200]);
    }
    expect(api.running()).toBe(true);
    const attempts = settled.map((d) => d.attempts);
    console.info(
      `faults/receiver: ${PROVIDERS} events, receiver away ${back - down} ms, refused attempts per delivery ` +
        `${Math.min(...attempts) - 1} to ${Math.max(...attempts) - 1}; all delivered once ${drainMs} ms after it was back`,
    );
  });

  it('kill -9 of `svc serve` with deliveries and requests in flight: a restart on the same store drains the outbox after the dead lease, each event delivered once, nothing half-written', async () => {
    const PROVIDERS = 8;
    const hook = await receiver();
    hook.answer(() => 'hang');
    const { store, databaseUrl } = await newStore();
    const watcher = await subscriber(store, hook.url);
    await approvedProviders(store, PROVIDERS);
    // A short lease (2 × 2 s + 1 s), so the takeover is seen within seconds rather than after the default 30 s margin.
    const vars = await apiEnv({
      DATABASE_URL: databaseUrl(),
      SVC_WEBHOOK_TIMEOUT: '2s',
      SVC_WEBHOOK_LEASE_MARGIN: '1s',
      SVC_WEBHOOK_POLL_INTERVAL: '100ms',
      SVC_WEBHOOK_RETRY_SCHEDULE: '500ms,1s,1s,1s,1s,1s',
      SVC_WEBHOOK_CONCURRENCY: '64',
    });
    const first = await startApi(vars);
    const load = loadLoop(
      [
        {
          name: 'ping',
          url: () => `${first.url}/api/v1/webhooks/${watcher.endpointId}/test`,
          init: () => ({ method: 'POST', headers: { 'x-api-key': watcher.key } }),
          keepBody: true,
        },
        {
          name: 'scores',
          url: () => `${first.url}/api/v1/scores`,
          init: () => ({ headers: { 'x-api-key': watcher.key } }),
        },
      ],
      4,
    );
    await publishRun(ctxOf(store, { clock: systemClock, box }), { providers: 'all' });
    const publications = () => hook.received.filter((r) => r.raw.includes('"risk_indicator.published"')).length;
    await until('the dispatcher has the publications in flight', () => publications() >= PROVIDERS);
    await first.kill('SIGKILL');
    const killed = Date.now();
    const samples = await load.stop();
    const settledMs = Date.now() - killed;

    // At the kill: whole publications, every event with its delivery, every accepted ping stored.
    expect(halfWritten(await ledger(store))).toEqual([]);
    expect(await eventsWithoutDeliveries(store)).toEqual([]);
    const accepted = samples.filter((s) => s.target === 'ping' && s.status === 202);
    const stored = new Set((await deliveries(store)).map((d) => d.id));
    for (const s of accepted) expect(stored.has((JSON.parse(s.body ?? '{}') as { id: string }).id)).toBe(true);
    const leased = (await deliveries(store)).filter((d) => d.lease_owner !== null);
    expect(leased.length).toBeGreaterThan(0);
    expect(leased.every((d) => d.status === 'pending' && d.log.length < d.attempts)).toBe(true);
    expect(samples.filter((s) => s.status !== null && s.status >= 500)).toEqual([]);

    hook.answer(() => ({ status: 200, body: 'ok' }));
    const switched = Date.now();
    const second = await startApi(vars);
    const restartMs = Date.now() - killed;
    const drainMs = await until(
      'the restarted process delivers everything',
      async () => (await deliveries(store)).every((d) => d.status === 'delivered'),
      30_000,
    );
    await sleep(300);
    const settled = await deliveries(store);
    // Each event answered 200 exactly once; the ones the dead process held were sent again only after its lease.
    const answered = hook.received.filter((r) => r.at >= switched);
    expect(answered.map((r) => String(r.headers['webhook-id'])).sort()).toEqual(settled.map((d) => d.event_id).sort());
    for (const d of leased) {
      const retry = answered.find((r) => r.headers['webhook-id'] === d.event_id);
      expect(Number(retry?.headers['x-svc-delivery-attempt'])).toBe(d.attempts + 1);
      expect(retry?.at ?? 0).toBeGreaterThanOrEqual(Date.parse(d.lease_until ?? '') - 50);
    }
    for (const { id, ...state } of await ledger(store)) expect(state, id).toEqual(FULLY_PUBLISHED);
    expect(second.running()).toBe(true);
    console.info(
      `faults/kill-api: ${leased.length} deliveries leased by the killed process, ${accepted.length} pings accepted, ` +
        `${samples.filter((s) => s.error !== null).length} requests cut by the kill (all settled within ${settledMs} ms); ` +
        `the restart listened ${restartMs} ms after the kill and drained all ${settled.length} deliveries ${drainMs} ms later ` +
        `(leases of 2 × 2 s + 1 s)`,
    );
  });

  it('kill -9 of `svc publish --all` mid-run: every provider whole or untouched with exactly its outbox events; the rerun publishes the rest once and the outbox drains', async () => {
    const PROVIDERS = 60;
    const hook = await receiver();
    const { store, databaseUrl } = await newStore();
    await subscriber(store, hook.url);
    await approvedProviders(store, PROVIDERS);
    const vars = await apiEnv({ DATABASE_URL: databaseUrl(), SVC_WEBHOOK_TIMEOUT: '2s' });

    const run = startSvc(vars, 'publish', '--all', '--json');
    await until(
      'the run has published some',
      async () => !run.running() || (await rowCount(store, 'indicator_history')) >= 5,
    );
    expect(run.running(), `publish finished before it could be killed: raise PROVIDERS (${PROVIDERS})`).toBe(true);
    expect((await run.kill('SIGKILL')).signal).toBe('SIGKILL');

    const afterKill = await ledger(store);
    expect(halfWritten(afterKill)).toEqual([]);
    expect(await eventsWithoutDeliveries(store)).toEqual([]);
    const publishedBefore = afterKill.filter((p) => p.current).length;
    expect(publishedBefore).toBeGreaterThan(0);
    expect(publishedBefore).toBeLessThan(PROVIDERS);
    expect(await rowCount(store, 'webhook_events')).toBe(publishedBefore);

    const rerun = await rerunPublishesTheRest(vars, store, PROVIDERS, publishedBefore);

    const drain = await runSvcJson<{ attempts: number }>(vars, 'webhooks', 'dispatch', '--once');
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.json.attempts).toBe(PROVIDERS);
    const settled = await deliveries(store);
    expect(settled.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    expect(hook.received.map((r) => String(r.headers['webhook-id'])).sort()).toEqual(
      settled.map((d) => d.event_id).sort(),
    );
    console.info(
      `faults/kill-publish: ${publishedBefore}/${PROVIDERS} published at the kill, none half-written; ` +
        `the rerun published ${rerun.json.counts.published}; ${drain.json.attempts} events delivered once each`,
    );
  });
});
