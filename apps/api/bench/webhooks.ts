// Publication with webhooks and delivery to a local receiver: `tsx bench/webhooks.ts [N]` from apps/api,
// after the build (N = 1,000 unless given). On SQLite always, and on PostgreSQL when DATABASE_URL (or the local
// test server) answers. Times: publishing N providers (engine, package, history, change feed and outbox, as
// a publishing run writes them: 50 to a transaction), then draining the N events with one dispatcher to a receiver in its own process.
// `pnpm bench` times the same for all 10,000 providers (BENCH_PUBLISHED=N: the first N) as part of bench/scale.ts.

import { Dataset, type Engine, startReceiver } from './dataset.js';
import { int, machine, postgresAnswers, seconds, table } from './harness.js';

const N = Number(process.argv[2] ?? 1000);

async function run(engine: Engine) {
  const dataset = await Dataset.create(engine);
  const receiver = await startReceiver();
  try {
    await dataset.subscribe(receiver.url);
    const publishMs = await dataset.publishTo(N);
    const delivery = await dataset.deliver();
    if (delivery.attempts !== N) throw new Error(`${delivery.attempts} attempts for ${N} events`);
    return { engine, publishMs, deliverMs: delivery.ms };
  } finally {
    await receiver.stop();
    await dataset.close();
  }
}

const results = [await run('sqlite')];
if (await postgresAnswers()) results.push(await run('postgres'));
else console.log('PostgreSQL does not answer: SQLite only');

console.log(`\nwebhooks: ${int(N)} providers published, then ${int(N)} events delivered`);
console.log(`${machine()}\n`);
console.log(
  table(
    ['store', 'publish (s)', 'per provider (ms)', 'deliver (s)', 'events/s'],
    results.map((r) => [
      r.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      seconds(r.publishMs),
      (r.publishMs / N).toFixed(2),
      seconds(r.deliverMs),
      int((N / r.deliverMs) * 1000),
    ]),
  ),
);
