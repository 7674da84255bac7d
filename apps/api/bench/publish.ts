// Publication alone: `tsx bench/publish.ts [sqlite|postgres] [providers=1000] [run|alone]` from apps/api, after the
// build. A fresh store with a webhook endpoint subscribed (so each publication queues a delivery, as in
// bench/scale.ts), then `providers` published through the publishing verbs, timed: as a publishing run does (`run`,
// a batch per transaction, decision 0039) or one transaction each (`alone`); prints one JSON line.
// Run it under `node --cpu-prof` (NODE_OPTIONS) to see where a publication's time goes; bench/publish-ab.ts
// runs it on two builds in turns.

import { Dataset, type Engine } from './dataset.js';

const [engine = 'sqlite', count = '1000', mode = 'run'] = process.argv.slice(2);
if (mode !== 'run' && mode !== 'alone') throw new Error(`unknown mode ${mode}: run or alone`);
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
const providers = Number(count);
const dataset = await Dataset.create(engine as Engine);
try {
  await dataset.subscribe('http://127.0.0.1:40009/unused');
  await dataset.settle();
  const ms = await dataset.publishTo(providers, { alone: mode === 'alone' });
  console.log(JSON.stringify({ engine, mode, providers, ms, perProviderMs: ms / providers }));
} finally {
  await dataset.close();
}
