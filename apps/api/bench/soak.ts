// Soak: `tsx bench/soak.ts` from apps/api after the build (`pnpm --filter @svc/api soak`). Five minutes by default.
//
// 1. Starts the built `svc serve` as operators run it (LOG_LEVEL info, logs to /dev/null) on a fresh PostgreSQL schema
//    and Redis when they answer (else SQLite and in-process limits), seeded with providers, ENTERPRISE keys in an
//    MCP-enabled workspace, and a FREE key kept aside.
// 2. Finds the maximum rate of a mixed workload with autocannon (SOAK_PROBE_SECONDS, default 10): the public scores
//    (from 4096 client addresses, TRUST_PROXY=true), a score detail, the scores list and an MCP tool call
//    (get_provider_score), the keyed ones spread over the keys so no budget runs out. SOAK_RATE skips this and sets
//    the rate. Client and server share this machine's cores, so the maximum is the pair's, not the server's alone.
// 3. Runs at 80% of it for SOAK_SECONDS (default 300), reading the server's RSS from /proc/<pid>/status every second.
//    At the end of the warm-up (SOAK_WARMUP_SECONDS, default 20% of the run, at most 60) and at the end it forces two
//    full collections in the server and reads its RSS from /proc and its heap: the server runs with --expose-gc and
//    a probe loaded by --import (PROBE below), which only answers SIGUSR2 with `gc(); gc(); process.memoryUsage()`
//    on stderr.
//    The RSS sampled between collections swings with the garbage collector's cycle (tens of MB); after a full
//    collection it measures what the process keeps.
// 4. Checks: no error (connection errors, timeouts, non-2xx); RSS and heap after a full collection grown by at most
//    SOAK_MAX_GROWTH (default 0.10) from the warm-up to the end; limits exact after all that traffic: a FREE key gets
//    exactly 100 answers 200 then 429, a new client address exactly 120 public reads then 429.
// Progress and a summary go to stderr, the JSON report to stdout; exit 1 when a check fails.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, Socket } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openStore, type StoreLocation } from '@svc/api';
import { currentFramework, validateInputs } from '@svc/methodology';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { benchOver, key, publish, workspace } from './verbs.js';

/**
 * In the server: a forced full collection and the memory figures, on request. Plain JavaScript loaded by
 * `--import` as a data: URL, so the server under test runs the build alone, with no loader of this file's.
 */
const PROBE = `process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.stderr.write('soak-probe ' + JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, external: m.external }) + '\\n');
});`;

type Settings = ReturnType<typeof settings>;

function settings() {
  const number = (name: string, fallback: number): number => {
    const text = process.env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${text}`);
    return value;
  };
  const seconds = number('SOAK_SECONDS', 300);
  return {
    seconds,
    warmupSeconds: number('SOAK_WARMUP_SECONDS', Math.min(60, Math.max(5, Math.round(seconds * 0.2)))),
    probeSeconds: number('SOAK_PROBE_SECONDS', 10),
    fixedRate: process.env.SOAK_RATE ? number('SOAK_RATE', 0) : null,
    share: 0.8,
    maxGrowth: number('SOAK_MAX_GROWTH', 0.1),
    // RSS keeps what the allocator retains: a short run may set a looser bound for it than for the heap.
    maxRssGrowth: number('SOAK_MAX_RSS_GROWTH', number('SOAK_MAX_GROWTH', 0.1)),
    connections: number('SOAK_CONNECTIONS', 64),
    postgresUrl: process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const MASTER_KEY = randomBytes(32).toString('hex');
const PROVIDERS = 40;
const KEYS = 32;
const ADDRESSES = 4096;
const KEY_LIMIT = 100; // FREE, per hour
const PUBLIC_LIMIT = 120; // public scores, per minute and client address

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

type Cleanup = () => Promise<unknown>;

/** The memory figures the probe writes, with the RSS read from /proc and the median sampled before. */
interface Probe {
  rss: number;
  heapUsed: number;
  external: number;
}

async function main(): Promise<number> {
  const s = settings();
  const cleanups: Cleanup[] = [];
  let server: Server | null = null;
  try {
    const place = await storePlace(s, cleanups);
    const redis = (await reachable(s.redisUrl)) ? s.redisUrl : null;
    const seed = await seedStore(place.location);
    const block = 64 + Math.floor(Math.random() * 64);
    const addresses = Array.from({ length: ADDRESSES }, (_, i) => `100.${block}.${i >> 8}.${i & 255}`);
    const spareAddress = `100.${block}.255.1`;
    if (redis) cleanups.push(() => forgetRedisKeys(redis, seed, [...addresses, spareAddress]));
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));

    server = await startServer({
      SVC_DATA_DIR: dataDir,
      SVC_MASTER_KEY: MASTER_KEY,
      TRUST_PROXY: 'true',
      SVC_MCP_ENABLED: 'true',
      LOG_LEVEL: 'info',
      ...(place.databaseUrl ? { DATABASE_URL: place.databaseUrl } : {}),
      ...(redis ? { REDIS_URL: redis } : {}),
    });
    log(
      `soak: svc serve (pid ${server.pid}) on ${place.kind}${redis ? ' with Redis limits' : ' with in-process limits'}, ` +
        `${cpus().length} CPUs, Node ${process.version}`,
    );
    const workload = mixedWorkload(seed, addresses);

    let maxRate: number | null = null;
    if (s.fixedRate === null) {
      log(`soak: finding the maximum rate (${s.probeSeconds} s, ${s.connections} connections)`);
      const probe = await fire(server.url, workload, { duration: s.probeSeconds, connections: s.connections });
      maxRate = Math.round(probe.requests.average);
      log(`soak: maximum ${maxRate} requests/s (p99 ${probe.latency.p99} ms, ${errorsOf(probe).total} errors)`);
    }
    const rate = s.fixedRate ?? Math.max(1, Math.floor((maxRate ?? 0) * s.share));
    log(`soak: ${rate} requests/s for ${s.seconds} s, warm-up ${s.warmupSeconds} s`);

    const rss: Sample[] = [];
    const running = server;
    const begun = Date.now();
    const sampler = setInterval(() => {
      const value = rssOf(running.pid);
      if (value !== null) rss.push({ t: (Date.now() - begun) / 1000, rss: value });
    }, 1000);
    const atWarmup = sleep(s.warmupSeconds * 1000).then(async () => ({
      sampled: windowMedian(rss, s.warmupSeconds),
      ...(await running.probe()),
    }));
    const run = await fire(server.url, workload, {
      duration: s.seconds,
      connections: s.connections,
      overallRate: rate,
    });
    const warm = await atWarmup;
    clearInterval(sampler);
    const probes = {
      warm,
      end: { sampled: windowMedian(rss, (Date.now() - begun) / 1000), ...(await server.probe()) },
    };

    const limits = await exactLimits(server.url, seed.freeKey, spareAddress);
    const errors = errorsOf(run);
    const growth = {
      rss: probes.end.rss / probes.warm.rss - 1,
      heap: probes.end.heapUsed / probes.warm.heapUsed - 1,
    };
    const checks = {
      no_errors: errors.total === 0,
      rss_growth: growth.rss <= s.maxRssGrowth,
      heap_growth: growth.heap <= s.maxGrowth,
      limits_exact: limits.exact,
      server_alive: server.alive(),
    };
    const report: Report = {
      store: place.kind,
      limits_store: redis ? 'redis' : 'in_process',
      seconds: s.seconds,
      warmup_seconds: s.warmupSeconds,
      max_rate: maxRate,
      rate,
      achieved_rate: Math.round(run.requests.average),
      requests: run.requests.total,
      errors,
      latency_ms: { p50: run.latency.p50, p99: run.latency.p99, max: run.latency.max },
      memory: {
        rss_after_gc_mb: { warm: mb(probes.warm.rss), end: mb(probes.end.rss), growth: round(growth.rss) },
        heap_after_gc_mb: { warm: mb(probes.warm.heapUsed), end: mb(probes.end.heapUsed), growth: round(growth.heap) },
        external_after_gc_mb: { warm: mb(probes.warm.external), end: mb(probes.end.external) },
        rss_sampled_mb: {
          warm_median: mb(probes.warm.sampled),
          end_median: mb(probes.end.sampled),
          min: mb(Math.min(...rss.map((x) => x.rss))),
          max: mb(Math.max(...rss.map((x) => x.rss))),
        },
        max_growth: s.maxGrowth,
      },
      limits,
      checks,
      ok: Object.values(checks).every(Boolean),
    };
    summarise(report);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return report.ok ? 0 : 1;
  } finally {
    await server?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log(`soak: cleanup: ${error.message}`));
  }
}

/** What the soak reports (stdout, JSON) and summarises (stderr). */
interface Report {
  store: Place['kind'];
  limits_store: 'redis' | 'in_process';
  seconds: number;
  warmup_seconds: number;
  max_rate: number | null;
  rate: number;
  achieved_rate: number;
  requests: number;
  errors: ReturnType<typeof errorsOf>;
  latency_ms: { p50: number; p99: number; max: number };
  memory: {
    rss_after_gc_mb: { warm: number; end: number; growth: number };
    heap_after_gc_mb: { warm: number; end: number; growth: number };
    external_after_gc_mb: { warm: number; end: number };
    rss_sampled_mb: { warm_median: number; end_median: number; min: number; max: number };
    max_growth: number;
  };
  limits: Awaited<ReturnType<typeof exactLimits>>;
  checks: {
    no_errors: boolean;
    rss_growth: boolean;
    heap_growth: boolean;
    limits_exact: boolean;
    server_alive: boolean;
  };
  ok: boolean;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

// ---- the store and its contents ----

interface Place {
  kind: 'postgres' | 'sqlite';
  location: StoreLocation;
  databaseUrl: string | null;
}

async function storePlace(s: Settings, cleanups: Cleanup[]): Promise<Place> {
  if (await reachable(s.postgresUrl)) {
    const schema = `soak_${randomBytes(6).toString('hex')}`;
    const admin = async (text: string) => {
      const client = new pg.Client({ connectionString: s.postgresUrl });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    };
    await admin(`create schema ${schema}`);
    cleanups.push(() => admin(`drop schema if exists ${schema} cascade`));
    const url = new URL(s.postgresUrl);
    url.search = `?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return {
      kind: 'postgres',
      location: { kind: 'postgres', url: s.postgresUrl, schema },
      databaseUrl: url.toString(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-soak-store-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { kind: 'sqlite', location: { kind: 'sqlite', file: join(dir, 'svc.db') }, databaseUrl: null };
}

/** Providers published, ENTERPRISE keys in an MCP-enabled workspace, and a FREE key for the final check. */
interface Seed {
  providers: { id: string; name: string }[];
  keys: string[];
  keyIds: string[];
  freeKey: string;
}

async function seedStore(location: StoreLocation): Promise<Seed> {
  const framework = currentFramework();
  const example: unknown = JSON.parse(
    readFileSync(new URL('../../../examples/dcrf-1.0/worked-example.json', import.meta.url), 'utf8'),
  );
  const store = openStore(location);
  const b = benchOver(store, Buffer.from(MASTER_KEY, 'hex'));
  try {
    await migrate(store);
    const providers = [];
    for (let n = 1; n <= PROVIDERS; n++) {
      const doc = structuredClone(example) as {
        provider: { id: string; name: string };
        inputs: { collateral_coverage_ratio: { value: number } };
      };
      doc.provider.id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      doc.provider.name = `Soak Lender ${String(n).padStart(3, '0')}`;
      doc.inputs.collateral_coverage_ratio.value = (110 + n) / 100;
      const v = validateInputs(doc, framework);
      if (!v.ok) throw new Error(JSON.stringify(v.problems));
      await publish(b, v.document, framework);
      providers.push({ id: doc.provider.id, name: doc.provider.name });
    }
    const ws = await workspace(b, 'soak', true);
    const keys = [];
    for (let i = 0; i < KEYS; i++) keys.push(await key(b, ws, 'ENTERPRISE'));
    const free = await key(b, ws, 'FREE');
    return {
      providers,
      keys: keys.map((k) => k.key),
      keyIds: [...keys.map((k) => k.id), free.id],
      freeKey: free.key,
    };
  } finally {
    await store.close();
  }
}

async function forgetRedisKeys(url: string, seed: Seed, addresses: string[]): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const names = [
      ...seed.keyIds.map((id) => `svc:rl:key:${id}`),
      ...addresses.map((ip) => `svc:rl:ip:public_scores:${ip}`),
    ];
    for (let i = 0; i < names.length; i += 500) await redis.del(...names.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}

// ---- the server ----

/** The server under test. */
interface Server {
  url: string;
  pid: number;
  alive(): boolean;
  probe(): Promise<Probe>;
  stop(): Promise<void>;
}

async function startServer(vars: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(PORT|HOST|DATABASE_URL|REDIS_URL|SITE_URL|TRUST_PROXY|LOG_LEVEL|SVC_.*)$/.test(name)) env[name] = value;
  }
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      `data:text/javascript,${encodeURIComponent(PROBE)}`,
      BIN,
      'serve',
      '--port',
      String(port),
    ],
    { env: { ...env, ...vars }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  void exit.then(() => {
    exited = true;
  });
  let stderr = '';
  const waiting: ((probe: Probe) => void)[] = [];
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    let newline = stderr.indexOf('\n');
    while (newline >= 0) {
      const line = stderr.slice(0, newline);
      stderr = stderr.slice(newline + 1);
      if (line.startsWith('soak-probe ')) waiting.shift()?.(JSON.parse(line.slice('soak-probe '.length)));
      else if (line.trim() !== '') log(`server: ${line}`);
      newline = stderr.indexOf('\n');
    }
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`svc serve exited before answering: ${JSON.stringify(await exit)}`);
    const up = await fetch(`${url}/api/v1/status`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('svc serve did not answer within 30 s');
    }
    await sleep(100);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('svc serve has no process id');
  return {
    url,
    pid,
    alive: () => !exited,
    probe: () =>
      new Promise<Probe>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the memory probe did not answer')), 10_000);
        waiting.push((value) => {
          clearTimeout(timer);
          resolve({ ...value, rss: rssOf(pid) ?? value.rss });
        });
        child.kill('SIGUSR2');
      }),
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** The resident set of a process, in bytes, from /proc (null once it is gone). */
function rssOf(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The median RSS of the samples in the window before `t` seconds: 30 s, or half the time so far if shorter. */
interface Sample {
  t: number;
  rss: number;
}

function windowMedian(samples: Sample[], t: number): number {
  const width = Math.max(3, Math.min(30, t / 2));
  const values = samples
    .filter((x) => x.t > t - width && x.t <= t)
    .map((x) => x.rss)
    .sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)];
  if (median === undefined) throw new Error(`no RSS sample in the ${width} s before ${t} s`);
  return median;
}

// ---- load ----

function mixedWorkload(seed: Seed, addresses: string[]): autocannon.Request[] {
  let turn = 0;
  const next = <T>(list: T[]): T => {
    const item = list[turn++ % list.length];
    if (item === undefined) throw new Error('an empty list');
    return item;
  };
  const keyed =
    (extra: Record<string, string> = {}) =>
    (req: autocannon.Request): autocannon.Request => ({
      ...req,
      headers: { ...req.headers, 'x-api-key': next(seed.keys), ...extra },
    });
  return [
    {
      method: 'GET',
      path: '/api/public/scores',
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        headers: { ...req.headers, 'x-forwarded-for': next(addresses) },
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/scores',
      setupRequest: (req: autocannon.Request) => ({
        ...keyed()(req),
        path: `/api/v1/scores/${next(seed.providers).id}`,
      }),
    },
    { method: 'GET', path: '/api/v1/scores?limit=20', setupRequest: keyed() },
    {
      method: 'POST',
      path: '/api/mcp',
      setupRequest: (req: autocannon.Request) => ({
        ...keyed({ 'content-type': 'application/json' })(req),
        body: JSON.stringify({ tool_name: 'get_provider_score', input: { provider_name: next(seed.providers).name } }),
      }),
    },
  ];
}

function fire(
  url: string,
  requests: autocannon.Request[],
  options: { duration: number; connections: number; overallRate?: number },
): Promise<autocannon.Result> {
  return autocannon({ url, requests, timeout: 10, ...options });
}

function errorsOf(result: autocannon.Result) {
  const statuses: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stats.count ?? 0;
  const total = result.errors + result.non2xx + (result.mismatches ?? 0);
  return { total, connection: result.errors, timeouts: result.timeouts, non2xx: result.non2xx, statuses };
}

/** After the soak: a FREE key's hourly 100 and a new address's 120 public reads a minute, exactly. */
async function exactLimits(url: string, freeKey: string, address: string) {
  const spend = async (n: number, path: string, headers: Record<string, string>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${url}${path}`, { headers });
      await res.arrayBuffer();
      out.push(res.status);
    }
    return out;
  };
  const admitted = (statuses: number[]) => statuses.findIndex((s) => s !== 200);
  const key = await spend(KEY_LIMIT + 1, '/api/v1/issuances', { 'x-api-key': freeKey });
  const pub = await spend(PUBLIC_LIMIT + 1, '/api/public/scores', { 'x-forwarded-for': address });
  const exactly = (statuses: number[], limit: number) =>
    statuses.slice(0, limit).every((s) => s === 200) && statuses[limit] === 429;
  return {
    key: { limit: KEY_LIMIT, admitted: admitted(key), next_status: key[KEY_LIMIT] },
    public: { limit: PUBLIC_LIMIT, admitted: admitted(pub), next_status: pub[PUBLIC_LIMIT] },
    exact: exactly(key, KEY_LIMIT) && exactly(pub, PUBLIC_LIMIT),
  };
}

function summarise(r: Report) {
  const m = r.memory;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  log(
    [
      `soak: ${r.requests} requests in ${r.seconds} s at ${r.achieved_rate}/s (target ${r.rate}${r.max_rate ? `, 80% of ${r.max_rate}` : ''}), ` +
        `p50 ${r.latency_ms.p50} ms, p99 ${r.latency_ms.p99} ms, errors ${r.errors.total} ${JSON.stringify(r.errors.statuses)}`,
      `soak: after a full GC, RSS ${m.rss_after_gc_mb.warm} MB at the end of the warm-up and ${m.rss_after_gc_mb.end} MB ` +
        `at the end (${pct(m.rss_after_gc_mb.growth)}), heap ${m.heap_after_gc_mb.warm} to ${m.heap_after_gc_mb.end} MB ` +
        `(${pct(m.heap_after_gc_mb.growth)}); limit ${pct(m.max_growth)}. RSS sampled every second: ` +
        `${m.rss_sampled_mb.min} to ${m.rss_sampled_mb.max} MB (median ${m.rss_sampled_mb.warm_median} before the ` +
        `warm-up ended, ${m.rss_sampled_mb.end_median} before the end)`,
      `soak: limits: FREE key ${r.limits.key.admitted} admitted then ${r.limits.key.next_status}; ` +
        `new address ${r.limits.public.admitted} public reads then ${r.limits.public.next_status}`,
      `soak: ${
        r.ok
          ? 'PASS'
          : `FAIL: ${Object.keys(r.checks)
              .filter((k) => !r.checks[k as keyof Report['checks']])
              .join(', ')}`
      }`,
    ].join('\n'),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || (protocol === 'redis:' ? 6379 : 5432)), hostname, () => done(true));
  });
}

process.exitCode = await main();
