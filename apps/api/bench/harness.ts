// What the HTTP benches share: child processes for servers and for the load generator, the stores on this
// machine, and the markdown tables they print. Imported by http.ts, scale.ts and webhooks.ts.

import { fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { cpus as cpuList, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { StoreLocation } from '@svc/api';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Job, JobResult, Request } from './load.js';

export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const here = (file: string) => new URL(file, import.meta.url);
/** Node's flags for a bench file in a process of its own: TypeScript through tsx, as the parent runs. */
const tsx = ['--import', import.meta.resolve('tsx')];

/** What a server child says over IPC: where it listens, why it could not start, or the CPU it has used. */
export type ChildMessage = { url: string } | { error: string } | { cpu: NodeJS.CpuUsage };

/** A server in a process of its own (see startChild). */
export interface Child {
  url: string;
  /** CPU microseconds (user and system) the process has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A child process that reports `{ url }` over IPC once listening, answers `cpu` with its process.cpuUsage(),
 * and stops on `stop`.
 */
async function startChild(
  script: string,
  args: string[],
  env: Record<string, string>,
  execArgv: string[] = [],
): Promise<Child> {
  const child = fork(here(script), args, {
    env: { ...process.env, ...env },
    execArgv: [...tsx, ...execArgv],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let cpuAsked: ((usage: NodeJS.CpuUsage) => void) | null = null;
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: ChildMessage) => {
      if ('url' in m) resolve(m.url);
      else if ('error' in m) reject(new Error(m.error));
      else cpuAsked?.(m.cpu);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url,
    /** CPU microseconds (user and system) the process has used so far. */
    cpu() {
      return new Promise<number>((resolve) => {
        cpuAsked = (usage) => resolve(usage.user + usage.system);
        child.send('cpu');
      });
    },
    async stop() {
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The servers bare.ts starts. */
export type BareKind = 'node' | 'express' | 'receiver';

/** A bare server answering `bytes` as application/json: `node` (node:http), `express` (Express 5), or `receiver` (204). */
export function startBare(
  kind: BareKind,
  bytesFile = '',
  { profileDir = null }: { profileDir?: string | null } = {},
): Promise<Child> {
  return startChild('bare.ts', [kind, bytesFile], {}, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
}

/**
 * The service from the build, over `location`, with the rate limiter on: in process, or through Redis when
 * `redis` is set. Clients are told apart by X-Forwarded-For (TRUST_PROXY=loopback), as behind a proxy.
 * With `profileDir`, the process writes a V8 CPU profile there when it stops; `dist` runs another build.
 */
export function startService(
  location: StoreLocation,
  { redis = false, profileDir = null, dist = '' }: { redis?: boolean; profileDir?: string | null; dist?: string } = {},
): Promise<Child> {
  const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return startChild(
    'serve.ts',
    [],
    { BENCH_STORE: JSON.stringify(location), BENCH_REDIS_URL: redis ? REDIS_URL : '', BENCH_DIST: dist },
    execArgv,
  );
}

/** The load generator's process (see load.ts): `run(job)` resolves with a job's figures, one job at a time. */
export interface LoadGenerator {
  run(job: Job): Promise<JobResult>;
  close(): void;
}

/** Starts the load generator (see load.ts) in a process of its own. */
export function startLoadGenerator(): LoadGenerator {
  const child = fork(here('load.ts'), [], { execArgv: tsx, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: { resolve: (r: JobResult) => void; reject: (e: Error) => void } | null = null;
  child.on('message', (m: { result: JobResult } | { error: string }) => {
    const p = pending;
    pending = null;
    if ('error' in m) p?.reject(new Error(m.error));
    else p?.resolve(m.result);
  });
  child.on('exit', (code) => pending?.reject(new Error(`the load generator exited with ${code}`)));
  return {
    run(job) {
      return new Promise<JobResult>((resolve, reject) => {
        pending = { resolve, reject };
        child.send(job);
      });
    },
    close() {
      child.kill();
    },
  };
}

/** Whether the PostgreSQL server the benches use answers within a second. */
export async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Whether the Redis server the benches use answers within a second. */
export async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** One statement on the PostgreSQL server, on a connection of its own (to create and drop schemas). */
export async function adminQuery(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** One line naming the machine and how busy it was when the bench started. */
export function machine(): string {
  const cpus = cpuList();
  const load = loadavg().map((l) => l.toFixed(1));
  return `machine: ${cpus.length} CPUs (${cpus[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${load.join(' ')}`;
}

/** A markdown table; `align` holds 'l' or 'r' per column. */
export function table(
  headers: string[],
  rows: string[][],
  align: ('l' | 'r')[] = headers.map((_, i) => (i === 0 ? 'l' : 'r')),
): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

/** A target's verdict as every target table prints it. */
export const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');

/**
 * Records the verdicts of a bench's targets for the run's closing summary (tooling/bench.mjs, `pnpm bench`), one
 * JSON line each, when SVC_BENCH_SUMMARY names a file; rows as the target tables print them: target, figure,
 * verdict ('met', 'NOT MET' or why it was not measured). Returns the rows, to print.
 */
export function recordTargets(bench: string, rows: string[][]): string[][] {
  const file = process.env.SVC_BENCH_SUMMARY;
  if (file) {
    for (const [target, figure, verdict] of rows)
      appendFileSync(file, `${JSON.stringify({ bench, target, figure, verdict })}\n`);
  }
  return rows;
}

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number | null | undefined) =>
  n === null || n === undefined ? 'n/a' : n < 10 ? n.toFixed(2) : n.toFixed(1);
export const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
export const seconds = (msValue: number) => (msValue / 1000).toFixed(2);

/**
 * How many distinct requests (clients, keys, providers) a load cycles through. autocannon builds every request
 * of the list for each connection at the start of a run: more would cost time at every run.
 */
export const ROTATION = 1024;

/** A block of client addresses of its own for each call, so no two measurements share a public budget. */
function clients() {
  const block = Math.floor(Math.random() * 256);
  return (i: number) => `10.${block}.${(i >> 8) & 255}.${i & 255}`;
}

/**
 * GET /api/public/scores from 1,024 clients (X-Forwarded-For), 120 a minute each: a route's passes (about
 * 10 s) stay under 60 a client up to 6,000 req/s. `pathOf` gives the i-th request's path (another query).
 */
export function publicScoresRequests(pathOf: (i: number) => string = () => '/api/public/scores'): Request[] {
  const ip = clients();
  return Array.from({ length: ROTATION }, (_, i) => ({
    method: 'GET',
    path: pathOf(i),
    headers: { 'x-forwarded-for': ip(i) },
  }));
}

/**
 * The keyed routes, each as the requests a load cycles through: over the providers given (ids and names),
 * the keys (ENTERPRISE), and for the list over the cursors given (the first page, then pages through the list).
 */
/** A provider as the routes name it. */
export interface ProviderRef {
  id: string;
  name: string;
}

/** A route and the requests a load cycles through on it. */
export interface Route {
  route: string;
  requests: Request[];
}

export function serviceRoutes({
  providers,
  keys,
  cursors = [],
  publicPages = false,
}: {
  providers: ProviderRef[];
  keys: string[];
  cursors?: string[];
  publicPages?: boolean;
}): Route[] {
  const ip = clients();
  const keyed = (i: number, extra: Record<string, string> = {}) => ({
    'x-api-key': at(keys, i % keys.length),
    'x-forwarded-for': ip(i),
    ...extra,
  });
  const pages = [null, ...cursors];
  const cycle = (make: (i: number, p: ProviderRef) => Request) =>
    Array.from({ length: ROTATION }, (_, i) => make(i, at(providers, i % providers.length)));
  /** Pages of 100 of a list: the first, then one after each cursor given, in turn. */
  const paged = (path: string, headers: (i: number) => Record<string, string>) =>
    cycle((i) => {
      const cursor = pages[i % pages.length];
      return { method: 'GET', path: `${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, headers: headers(i) };
    });
  const routes: Route[] = [
    { route: 'GET /api/public/scores', requests: publicScoresRequests() },
    {
      route: 'GET /api/v1/scores/{id}',
      requests: cycle((i, p) => ({ method: 'GET', path: `/api/v1/scores/${p.id}`, headers: keyed(i) })),
    },
    { route: 'GET /api/v1/scores (100)', requests: paged('/api/v1/scores', keyed) },
    {
      route: 'GET /api/v1/scores (100, 3 fields)',
      requests: paged('/api/v1/scores', keyed).map((r) => ({
        ...r,
        path: r.path.replace('?', '?fields=provider_id,final_score,risk_band&'),
      })),
    },
    {
      route: 'POST /api/mcp get_provider_score',
      requests: cycle((i, p) => ({
        method: 'POST',
        path: '/api/mcp',
        headers: keyed(i, { 'content-type': 'application/json' }),
        body: JSON.stringify({ tool_name: 'get_provider_score', input: { provider_name: p.name } }),
      })),
    },
  ];
  if (publicPages) {
    // The public list in pages, over the same positions as the keyed list (both cursors are a name and an id).
    routes.push({
      route: 'GET /api/public/scores (100)',
      requests: paged('/api/public/scores', (i) => ({ 'x-forwarded-for': ip(i) })),
    });
  }
  return routes;
}

/** How routes are driven: the same connections and times for every server and route of a run. */
export const LOAD = {
  connections: 10,
  warmupS: 1,
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  roundS: Number(process.env.BENCH_ROUND_S ?? 1.25),
  halfS: Number(process.env.BENCH_HALF_S ?? 2),
};

/** How a run drives its routes. */
export interface LoadShape {
  half?: boolean;
  roundS?: number;
  warmupS?: number;
}

export const describeLoad = ({ half = true, roundS = LOAD.roundS, warmupS = LOAD.warmupS }: LoadShape = {}) =>
  `autocannon in a process of its own, ${LOAD.connections} connections, each route warmed for ${warmupS} s, then ${LOAD.rounds} rounds of ${roundS} s taking turns with the other routes (the round with the median rate is shown)${
    half
      ? `; then ${LOAD.rounds} rounds of ${LOAD.halfS} s paced evenly at half that rate (open loop), in turns, the median round's p99 shown as the p99 at half load`
      : ''
  }`;

/** The item at `i` of a list the caller knows is long enough. */
export function at<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no item ${i} of ${items.length}`);
  return item;
}

const median = <T>(items: T[], by: (item: T) => number): T =>
  at(
    [...items].sort((a, b) => by(a) - by(b)),
    Math.floor(items.length / 2),
  );

/** A job to measure: a route's requests against a server. */
export interface MeasureJob {
  server: Child;
  requests: Request[];
}

/** What the server answered to a job's rounds: the median round, its errors and the CPU it took per answer. */
export interface Measured {
  full: JobResult & { cpuUs: number; other: number; cpuPerAnswer: number };
  half: JobResult | null;
}

/**
 * Each job ({ server, url, requests }, `server` as started above) at its maximum: warmed, then `rounds` short
 * passes in turn with the other jobs (every other round in reverse order), so a burst of load from elsewhere on the machine falls on every job alike;
 * the median round is kept, with the server's CPU time per answer (over all rounds: it depends far less on what
 * else the machine runs than the rate does). Then, with `half`, each job paced at half that rate.
 * Returns the jobs with `full` (and `half`) figures.
 */
export async function measureJobs<J extends MeasureJob>(
  load: LoadGenerator,
  jobs: J[],
  { half = true, roundS = LOAD.roundS, warmupS = LOAD.warmupS }: LoadShape = {},
): Promise<(J & Measured)[]> {
  const max = async (job: J, durationS: number) => {
    const before = await job.server.cpu();
    const figures = await load.run({
      mode: 'max',
      url: job.server.url,
      connections: LOAD.connections,
      warmupS: 0,
      durationS,
      requests: job.requests,
    });
    return { ...figures, cpuUs: (await job.server.cpu()) - before };
  };
  for (const job of jobs) await max(job, warmupS);
  const rounds: (JobResult & { cpuUs: number })[][] = jobs.map(() => []);
  for (let r = 0; r < LOAD.rounds; r++) {
    // Every other round backwards, so no job always follows the same one.
    const order = [...jobs.keys()];
    if (r % 2 === 1) order.reverse();
    for (const i of order) at(rounds, i).push(await max(at(jobs, i), roundS));
  }
  const fulls = rounds.map((r) => median(r, (f) => f.rps));
  // At half rate, rounds in turns as well: a few milliseconds of the machine's other work land on one round,
  // and the median round's p99 is reported.
  const halves: JobResult[][] = jobs.map(() => []);
  if (half) {
    for (let r = 0; r < LOAD.rounds; r++) {
      const order = [...jobs.keys()];
      if (r % 2 === 1) order.reverse();
      for (const i of order) {
        at(halves, i).push(
          await load.run({
            mode: 'paced',
            url: at(jobs, i).server.url,
            rate: Math.max(1, at(fulls, i).rps / 2),
            durationS: LOAD.halfS,
            requests: at(jobs, i).requests,
          }),
        );
      }
    }
  }
  return jobs.map((job, i) => {
    const own = at(rounds, i);
    const other = own.reduce((n, f) => n + f.other, 0);
    const answers = own.reduce((n, f) => n + f.ok + f.other, 0);
    const cpuPerAnswer = own.reduce((n, f) => n + f.cpuUs, 0) / Math.max(1, answers);
    const halfFigures = half ? median(at(halves, i), (f) => f.p99 ?? Number.POSITIVE_INFINITY) : null;
    return { ...job, full: { ...at(fulls, i), other, cpuPerAnswer }, half: halfFigures };
  });
}

const startedAt = performance.now();
/** A progress line on stderr (the tables go to stdout): what was done, and when, since the bench started. */
export function progress(text: string): void {
  console.error(`[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${text}`);
}
