// Scale and publication: `tsx bench/scale.ts` from apps/api, after the build. On SQLite, and on PostgreSQL with
// Redis when both answer, two stores each:
// - small: 100 providers published through the publishing service, one earlier publication each;
// - large, built in steps: providers published one transaction each up to PUBLISHED (500; BENCH_FULL=1: all
//   10,000), timed; the rest up to 10,000 added as publishing stores them, in batches (see Dataset.fillTo), so
//   the default run fits its time; the 10,000 webhook events delivered to a receiver in its own process, timed;
//   keys up to 100,000 and history up to 1,000,000 rows, in batches through Kysely.
// Then a service over each, both running, and the same routes on both, taking turns, so the machine's noise
// falls on both alike: as bench/http.ts, plus a provider's newest history entry; the list pages through.

import { encodeCursor } from '@svc/api/bench';
import { Dataset, type Engine, providerId, providerName, startReceiver } from './dataset.js';
import {
  at,
  type Child,
  describeLoad,
  int,
  type LoadGenerator,
  type Measured,
  machine,
  measureJobs,
  type ProviderRef,
  postgresAnswers,
  progress,
  ROTATION,
  type Route,
  redisAnswers,
  seconds,
  serviceRoutes,
  startLoadGenerator,
  startService,
  table,
} from './harness.js';

const FULL = process.env.BENCH_FULL === '1';
const SMALL = 100;
const LARGE = 10_000;
const PUBLISHED = FULL ? LARGE : 500;
const HISTORY = 1_000_000;
const KEYS = 100_000;
const TARGET_RATIO = 1.5;
/** Shorter rounds and warm-up than bench/http.ts: twice as many routes to measure, and no half-rate pass. */
const ROUND_S = Number(process.env.BENCH_SCALE_ROUND_S ?? 1);
const WARMUP_S = 0.5;

/** Providers spread over the first `count` (as many as a load cycles through), as { id, name }. */
function spread(count: number): ProviderRef[] {
  const step = Math.max(1, Math.floor(count / ROTATION));
  const out: ProviderRef[] = [];
  for (let n = 1; n <= count && out.length < ROTATION; n += step)
    out.push({ id: providerId(n), name: providerName(n) });
  return out;
}

/** Positions through the list by name (next_cursor values, as the list hands them out), `count` of them. */
function cursors(total: number, count: number): string[] {
  const byName = Array.from({ length: total }, (_, i) => ({ name: providerName(i + 1), id: providerId(i + 1) })).sort(
    (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1),
  );
  const out: string[] = [];
  for (let i = 1; i < count; i++) {
    const at = byName[Math.floor((i * (total - 100)) / count)];
    if (at) out.push(encodeCursor(at));
  }
  return out;
}

function routesFor(dataset: Dataset, providers: number): Route[] {
  const routes = serviceRoutes({
    providers: spread(providers),
    keys: dataset.keys,
    cursors: cursors(providers, 16),
    publicPages: true,
  });
  const keys = dataset.keys;
  const sample = spread(providers);
  routes.push({
    route: 'GET /api/v1/scores/{id}/history (newest)',
    requests: Array.from({ length: ROTATION }, (_, i) => ({
      method: 'GET',
      path: `/api/v1/scores/${at(sample, i % sample.length).id}/history?limit=1`,
      headers: { 'x-api-key': at(keys, i % keys.length) },
    })),
  });
  return routes;
}

interface ScaleJob extends Route {
  size: 'small' | 'large';
  server: Child;
}

interface Run {
  engine: Engine;
  small: (ScaleJob & Measured)[];
  large: (ScaleJob & Measured)[];
  publishMs: number;
  fillMs: number;
  deliverMs: number;
  historyMs: number;
  keysMs: number;
}

async function grow(engine: Engine, redis: boolean, load: LoadGenerator): Promise<Run> {
  const small = await Dataset.create(engine);
  const large = await Dataset.create(engine);
  const receiver = await startReceiver();
  const services: Child[] = [];
  try {
    await small.publishTo(SMALL);
    // Two publications each, as the large store has a hundred: the newest entry and a next page, both times.
    await small.addHistoryTo(2 * SMALL);
    await large.subscribe(receiver.url);
    const publishMs = await large.publishTo(PUBLISHED);
    progress(`${engine}: ${int(PUBLISHED)} providers published`);
    const fillMs = await large.fillTo(LARGE);
    progress(`${engine}: providers added up to ${int(LARGE)}`);
    const delivery = await large.deliver();
    if (delivery.attempts !== LARGE) throw new Error(`${delivery.attempts} attempts for ${LARGE} events`);
    progress(`${engine}: ${int(LARGE)} webhook events delivered`);
    const keysMs = await large.addKeysTo(KEYS);
    progress(`${engine}: keys added up to ${int(KEYS)}`);
    const historyMs = await large.addHistoryTo(HISTORY);
    progress(`${engine}: history added up to ${int(HISTORY)} rows`);
    const jobs: ScaleJob[] = [];
    for (const [size, dataset, providers] of [
      ['small', small, SMALL],
      ['large', large, LARGE],
    ] as const) {
      const service = await startService(dataset.location, { redis });
      services.push(service);
      for (const { route, requests } of routesFor(dataset, providers))
        jobs.push({ size, route, server: service, requests });
    }
    progress(`${engine}: services started; measuring ${jobs.length} routes`);
    const measured = await measureJobs(load, jobs, { half: false, roundS: ROUND_S, warmupS: WARMUP_S });
    progress(`${engine}: measured`);
    return {
      engine,
      small: measured.filter((m) => m.size === 'small'),
      large: measured.filter((m) => m.size === 'large'),
      publishMs,
      fillMs,
      deliverMs: delivery.ms,
      historyMs,
      keysMs,
    };
  } finally {
    for (const service of services) await service.stop();
    await receiver.stop();
    await small.close();
    await large.close();
  }
}

console.log(machine());
const load = startLoadGenerator();
const runs: Run[] = [];
try {
  runs.push(await grow('sqlite', false, load));
  if ((await postgresAnswers()) && (await redisAnswers())) runs.push(await grow('postgres', true, load));
  else console.log('PostgreSQL or Redis does not answer: SQLite only');
} finally {
  load.close();
}

const ENGINE = { sqlite: 'SQLite', postgres: 'PostgreSQL + Redis' };
console.log(
  `\nScale: the same routes over ${SMALL} providers and over ${int(LARGE)} providers with ${int(HISTORY)} history rows and ${int(KEYS)} keys, both services running: ${describeLoad({ half: false, roundS: ROUND_S, warmupS: WARMUP_S })}.\n`,
);
const rows: string[][] = [];
for (const run of runs) {
  for (const small of run.small) {
    const large = run.large.find((r) => r.route === small.route);
    if (!large) throw new Error(`${small.route} was not measured on the large store`);
    const slower = small.full.rps / large.full.rps;
    rows.push([
      ENGINE[run.engine],
      small.route,
      int(small.full.rps),
      int(large.full.rps),
      slower.toFixed(2),
      int(small.full.cpuPerAnswer),
      int(large.full.cpuPerAnswer),
      slower <= TARGET_RATIO ? 'met' : 'NOT MET',
    ]);
  }
}
console.log(
  table(
    [
      'store',
      'route',
      `req/s at ${SMALL}`,
      `req/s at ${int(LARGE)}`,
      `time ratio (target ≤ ${TARGET_RATIO})`,
      `CPU µs/answer at ${SMALL}`,
      `CPU µs/answer at ${int(LARGE)}`,
      '',
    ],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'l'],
  ),
);
for (const run of runs) {
  for (const r of [...run.small, ...run.large]) {
    if (r.full.other > 0)
      console.log(
        `note: ${ENGINE[run.engine]}, ${r.route}: ${r.full.other} answers not 2xx (${JSON.stringify(r.full.statuses)})`,
      );
  }
}

console.log(
  `\nPublication: ${int(PUBLISHED)} providers published one transaction each (engine, package, history, change feed, outbox)${
    FULL ? '' : `; 10,000 is an extrapolation (BENCH_FULL=1 publishes all ${int(LARGE)})`
  }; then ${int(LARGE)} webhook events delivered by one dispatcher (16 in flight) to a receiver in its own process.\n`,
);
console.log(
  table(
    [
      'store',
      'published',
      'publish (s)',
      'per provider (ms)',
      `publish ${int(LARGE)} (s)`,
      `deliver ${int(LARGE)} (s)`,
      'events/s',
    ],
    runs.map((r) => [
      ENGINE[r.engine],
      int(PUBLISHED),
      seconds(r.publishMs),
      (r.publishMs / PUBLISHED).toFixed(2),
      `${FULL ? '' : '≈ '}${seconds((r.publishMs / PUBLISHED) * LARGE)}`,
      seconds(r.deliverMs),
      int((LARGE / r.deliverMs) * 1000),
    ]),
  ),
);
console.log(
  `\nData set: the rest of the ${int(LARGE)} providers in batches, history to ${int(HISTORY)} rows and keys to ${int(KEYS)} through Kysely:\n`,
);
console.log(
  table(
    ['store', `providers to ${int(LARGE)} (s)`, `history to ${int(HISTORY)} (s)`, `keys to ${int(KEYS)} (s)`],
    runs.map((r) => [ENGINE[r.engine], seconds(r.fillMs), seconds(r.historyMs), seconds(r.keysMs)]),
  ),
);
