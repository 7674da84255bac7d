// Where a route's time goes: `node bench/profile.mjs [route] [sqlite|postgres] [seconds]` from apps/api, after
// the build. Builds a 100-provider data set, runs the service under `--cpu-prof` (Redis for the limiter on
// PostgreSQL), drives the route at its maximum, and prints the functions with the most time of their own and
// the most time beneath them. The profile stays in the folder printed, for Chrome DevTools or speedscope.
// Routes: public, detail, list, mcp; or `node` and `express` for the bare servers answering the public bytes.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dataset, providerId, providerName } from './dataset.mjs';
import { serviceRoutes, startBare, startLoadGenerator, startService } from './harness.mjs';

const [route = 'detail', engine = 'sqlite', seconds = '10'] = process.argv.slice(2);
const ROUTES = { public: 0, detail: 1, list: 2, mcp: 3 };
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));

const dataset = await Dataset.create(engine);
let answers = 0;
const load = startLoadGenerator();
try {
  await dataset.publishTo(100);
  const bare = route === 'node' || route === 'express';
  const bytesFile = join(dir, 'public.json');
  if (bare) writeFileSync(bytesFile, await dataset.publicBytes());
  const service = bare
    ? await startBare(route, bytesFile, { profileDir: dir })
    : await startService(dataset.location, { redis: engine === 'postgres', profileDir: dir });
  const providers = Array.from({ length: 100 }, (_, i) => ({ id: providerId(i + 1), name: providerName(i + 1) }));
  const { requests } = serviceRoutes({ providers, keys: dataset.keys })[bare ? 0 : ROUTES[route]];
  const drive = (durationS) =>
    load.run({ mode: 'max', url: service.url, connections: 10, warmupS: 0, durationS, requests });
  const warm = await drive(1);
  const figures = await drive(Number(seconds));
  answers = warm.ok + warm.other + figures.ok + figures.other;
  await service.stop();
  console.log(
    `${route} on ${engine}: ${Math.round(figures.rps)} req/s, p50 ${figures.p50?.toFixed(2)} ms, p99 ${figures.p99?.toFixed(2)} ms`,
  );
} finally {
  load.close();
  await dataset.close();
}

const file = join(
  dir,
  readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url.replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*\/apps\/api\//, '');
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
};
/** Who a function belongs to: a package, the service, Node itself, or V8 (idle, garbage collection). */
const owner = (n) => {
  const { url, functionName } = n.callFrame;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/apps/api/dist/')) return `service: ${url.replace(/^.*\/apps\/api\/dist\//, '').split('/')[0]}`;
  if (url.includes('/packages/')) return url.replace(/^.*\/packages\/([^/]+)\/.*$/, '@svc/$1');
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  return url ? 'other' : functionName.startsWith('(') ? functionName : `native: ${functionName}`;
};
const own = new Map();
const byOwner = new Map();
const beneath = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const key = name(nodes.get(id));
  own.set(key, (own.get(key) ?? 0) + dt);
  const who = owner(nodes.get(id));
  byOwner.set(who, (byOwner.get(who) ?? 0) + dt);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const k = name(nodes.get(at));
    if (!seen.has(k)) beneath.set(k, (beneath.get(k) ?? 0) + dt);
    seen.add(k);
  }
});
const top = (m, count = 30) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, t]) => `${((t / total) * 100).toFixed(1).padStart(5)}% ${(t / answers).toFixed(1).padStart(7)} µs  ${k}`)
    .join('\n');
// The profile spans the whole process (start-up too), so the µs per answer are a little high.
console.log(`\nprofile: ${file}, ${answers} answers\n\nown time by owner (share, µs per answer):\n${top(byOwner, 25)}`);
console.log(
  `\nown time:\n${top(own)}\n\nwith what it calls (middleware includes what runs after it):\n${top(beneath)}`,
);
