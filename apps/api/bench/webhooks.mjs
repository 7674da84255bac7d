// Publication with webhooks and delivery to a local receiver: `node bench/webhooks.mjs [N]` from apps/api,
// after the build. On SQLite always, and on PostgreSQL when DATABASE_URL (or the local test server) answers.
// Times: publishing N providers (engine, package, one transaction each with history, change feed and outbox),
// then draining the N events to a receiver on loopback with one dispatcher.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import pino from 'pino';

const api = await import(new URL('../dist/index.js', import.meta.url).href);
const { registerWebhook } = await import(new URL('../dist/services/webhooks/endpoints.js', import.meta.url).href);
const { WebhookDispatcher } = await import(new URL('../dist/services/webhooks/dispatcher.js', import.meta.url).href);
const methodology = await import('@svc/methodology');

const N = Number(process.argv[2] ?? 1000);
const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const example = JSON.parse(
  readFileSync(new URL('../../../examples/dcrf-1.0/worked-example.json', import.meta.url), 'utf8'),
);
const framework = methodology.currentFramework();
const clock = api.systemClock;
const box = api.secretBox(Buffer.alloc(32, 5));

function documentFor(n) {
  const doc = structuredClone(example);
  doc.provider.id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  doc.provider.name = `Bench Provider ${n}`;
  const v = methodology.validateInputs(doc, framework);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.document;
}

async function receiver() {
  let count = 0;
  let resolveAll;
  const all = new Promise((resolve) => {
    resolveAll = resolve;
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (++count === N) resolveAll();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, all, close: () => server.close() };
}

async function run(engine, location, cleanup) {
  const store = api.openStore(location, { poolSize: 20 });
  try {
    await api.migrate(store);
    const sink = await receiver();
    const ws = await api.createWorkspace(store, box, clock, 'bench');
    await registerWebhook(store, clock, { allowLoopback: true }, ws.workspace_id, {
      url: sink.url,
      events: ['risk_indicator.published'],
    });
    const documents = Array.from({ length: N }, (_, i) => documentFor(i + 1));
    let t = performance.now();
    for (const document of documents) {
      const outcome = await api.publishIndicator(store, clock, {
        document,
        framework,
        approvedAt: '2026-06-02T10:00:00.000Z',
      });
      if (outcome.status !== 'published') throw new Error(outcome.status);
    }
    const publishMs = performance.now() - t;
    const dispatcher = new WebhookDispatcher({
      store,
      box,
      logger: pino({ level: 'silent' }),
      policy: { allowLoopback: true },
      schedule: [5000],
      timeoutMs: 15_000,
      pollMs: 1000,
      concurrency: 16,
    });
    t = performance.now();
    const attempts = await dispatcher.drain();
    await sink.all;
    const deliverMs = performance.now() - t;
    await dispatcher.stop();
    sink.close();
    if (attempts !== N) throw new Error(`${attempts} attempts for ${N} events`);
    return { engine, publishMs, deliverMs };
  } finally {
    await store.close();
    await cleanup();
  }
}

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function admin(text) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(text);
  await client.end();
}

const results = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
results.push(
  await run('SQLite', { kind: 'sqlite', file: join(dir, 'svc.db') }, async () =>
    rmSync(dir, { recursive: true, force: true }),
  ),
);
if (await postgresAnswers()) {
  const schema = `bench_${process.pid}`;
  await admin(`create schema ${schema}`);
  results.push(
    await run('PostgreSQL', { kind: 'postgres', url: POSTGRES_URL, schema }, () =>
      admin(`drop schema ${schema} cascade`),
    ),
  );
} else {
  console.log(`PostgreSQL at ${POSTGRES_URL} does not answer: SQLite only`);
}

console.log(
  `\nwebhooks: ${N.toLocaleString('en-US')} providers published, then ${N.toLocaleString('en-US')} events delivered`,
);
console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n`);
console.log('| store | publish (s) | per provider (ms) | deliver (s) | events/s |');
console.log('|---|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.engine} | ${(r.publishMs / 1000).toFixed(2)} | ${(r.publishMs / N).toFixed(2)} | ${(r.deliverMs / 1000).toFixed(2)} | ${Math.round((N / r.deliverMs) * 1000).toLocaleString('en-US')} |`,
  );
}
