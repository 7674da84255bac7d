// The audit trail's figures (issue 13): `tsx bench/audit.ts [N] [M]` from apps/api, after the build.
// On SQLite always, and on PostgreSQL when DATABASE_URL (or the local test server) answers:
// - N providers (default 1,000) published through the publishing verb, one transaction each, each appending its
//   `indicator.published` entry: the entries written per second under a publication;
// - what one entry costs a verb: 1,000 appends each in a transaction of its own, beside a publication's time;
// - the trail then grown to M entries (default 100,000) in transactions of 1,000 entries (through recordAudit, as
//   a verb appends), and `verifyAudit` timed over all of them.

import { performance } from 'node:perf_hooks';
import { auditHead, standaloneContext, verifyAudit } from '@svc/api';
import { recordAudit } from '@svc/api/bench';
import { Dataset, type Engine } from './dataset.js';
import { int, machine, postgresAnswers, seconds, table } from './harness.js';

const N = Number(process.argv[2] ?? 1000);
const M = Number(process.argv[3] ?? 100_000);
const BATCH = 1000;
const SINGLE = 1000;

/** A bench entry: an issuance change, recorded by the context's actor (the system's "bench") at its clock's time. */
function entryOf(n: number) {
  return {
    action: 'issuance.changed',
    subject: { type: 'issuance', id: `iss_${String(n).padStart(24, '0')}` },
    details: { change: 'updated', fields: ['status'], status: 'ANNOUNCED', provider_id: null },
  };
}

async function run(engine: Engine) {
  const dataset = await Dataset.create(engine);
  const { db } = dataset.store;
  try {
    const ctx = standaloneContext(dataset.store, { actor: { kind: 'system', name: 'bench' } });
    const before = (await auditHead(ctx))?.seq ?? 0;
    const publishMs = await dataset.publishTo(N, { alone: true });
    const written = ((await auditHead(ctx))?.seq ?? 0) - before;
    if (written !== N) throw new Error(`${written} entries for ${N} publications`);

    const singleStart = performance.now();
    for (let i = 0; i < SINGLE; i++) {
      await db.transaction().execute((tx) => recordAudit(ctx, tx, [entryOf(i)]));
    }
    const singleMs = performance.now() - singleStart;

    const start = performance.now();
    let seq = before + written + SINGLE;
    while (seq < M) {
      const n = Math.min(BATCH, M - seq);
      const first = seq;
      await db.transaction().execute((tx) =>
        recordAudit(
          ctx,
          tx,
          Array.from({ length: n }, (_, i) => entryOf(first + i)),
        ),
      );
      seq += n;
    }
    const appendMs = performance.now() - start;

    const verifyStart = performance.now();
    const verified = await verifyAudit(ctx);
    const verifyMs = performance.now() - verifyStart;
    if (!verified.intact || verified.entries !== M) throw new Error(`verify: ${JSON.stringify(verified)}`);
    return { engine, publishMs, singleMs, appended: M - before - written - SINGLE, appendMs, verifyMs };
  } finally {
    await dataset.close();
  }
}

const results = [await run('sqlite')];
if (await postgresAnswers()) results.push(await run('postgres'));
else console.log('PostgreSQL does not answer: SQLite only');

console.log(
  `\naudit trail: ${int(N)} publications (one entry each), ${int(SINGLE)} single appends, then the trail grown to ${int(M)} entries and verified`,
);
console.log(`${machine()}\n`);
console.log(
  table(
    [
      'store',
      'publish (s)',
      'entries/s publishing',
      'one append (ms)',
      'share of a publication',
      'entries/s in batches',
      `verify ${int(M)} (s)`,
    ],
    results.map((r) => [
      r.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      seconds(r.publishMs),
      int((N / r.publishMs) * 1000),
      (r.singleMs / SINGLE).toFixed(3),
      `${((r.singleMs / SINGLE / (r.publishMs / N)) * 100).toFixed(1)}%`,
      int((r.appended / r.appendMs) * 1000),
      seconds(r.verifyMs),
    ]),
  ),
);
