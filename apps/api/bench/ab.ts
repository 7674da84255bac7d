// Two builds of the service on the same routes in one run, after the build, from apps/api:
//   cp -r dist bench/.baseline     # before a change (inside apps/api, so its packages resolve)
//   ...change, rebuild...
//   tsx bench/ab.ts bench/.baseline [sqlite|postgres] [providers=100]
// Both services run at once over one data set (100 providers published, the rest added in batches) and take
// turns under the same load, so the machine's noise falls on both alike. Both builds must know the same
// migrations: the store is migrated by this one, and a service refuses a store with migrations it lacks.

import { resolve } from 'node:path';
import { Dataset, providerId, providerName } from './dataset.js';
import {
  type Child,
  describeLoad,
  int,
  type Measured,
  machine,
  measureJobs,
  ROTATION,
  type Route,
  ratio,
  serviceRoutes,
  startLoadGenerator,
  startService,
  table,
} from './harness.js';

const [other, engine = 'sqlite', count = '100'] = process.argv.slice(2);
const total = Number(count);
if (!other) throw new Error('usage: tsx bench/ab.ts <other dist> [sqlite|postgres]');
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);

console.log(machine());
const step = Math.max(1, Math.floor(total / ROTATION));
const providers = [];
for (let n = 1; n <= total && providers.length < ROTATION; n += step)
  providers.push({ id: providerId(n), name: providerName(n) });
const dataset = await Dataset.create(engine);
const load = startLoadGenerator();
const running: Child[] = [];
interface AbJob extends Route {
  build: 'other' | 'this';
  server: Child;
}
let results: (AbJob & Measured)[] = [];
try {
  await dataset.publishTo(Math.min(100, total));
  await dataset.fillTo(total);
  const jobs: AbJob[] = [];
  for (const [build, dist] of [
    ['other', resolve(other)],
    ['this', ''],
  ] as const) {
    const service = await startService(dataset.location, { redis: engine === 'postgres', dist });
    running.push(service);
    for (const { route, requests } of serviceRoutes({ providers, keys: dataset.keys })) {
      jobs.push({ build, route, server: service, requests });
    }
  }
  results = await measureJobs(load, jobs, { half: false });
} finally {
  load.close();
  for (const r of running) await r.stop();
  await dataset.close();
}
console.log(`\nthis build against ${other}, ${engine}, ${int(total)} providers: ${describeLoad({ half: false })}.\n`);
const rows = results
  .filter((r) => r.build === 'this')
  .map((r) => {
    const before = results.find((o) => o.build === 'other' && o.route === r.route);
    if (!before) throw new Error(`${r.route} was not measured on the other build`);
    return [
      r.route,
      int(before.full.rps),
      int(r.full.rps),
      ratio(r.full.rps, before.full.rps),
      int(before.full.cpuPerAnswer),
      int(r.full.cpuPerAnswer),
      ratio(r.full.cpuPerAnswer, before.full.cpuPerAnswer),
    ];
  });
console.log(
  table(
    ['route', 'other req/s', 'this req/s', 'this ÷ other', 'other CPU µs/answer', 'this CPU µs/answer', 'this ÷ other'],
    rows,
  ),
);
