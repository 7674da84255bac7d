// Where a route's time goes: `tsx bench/profile.ts [route] [sqlite|postgres] [seconds] [providers]` from apps/api,
// after the build. Builds a data set of 100 providers (or as many as asked: 10000 for the large store's routes),
// runs the service under `--cpu-prof` (Redis for the limiter on PostgreSQL), drives the route at its maximum, and
// prints the functions with the most time of their own and the most time beneath them. The profile stays in the
// folder printed, for Chrome DevTools or speedscope.
// Routes: public, detail, list, mcp; or `node` and `express` for the bare servers answering the public bytes.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dataset, providerId, providerName } from './dataset.js';
import { at, type BareKind, serviceRoutes, startBare, startLoadGenerator, startService } from './harness.js';

const [route = 'detail', engine = 'sqlite', seconds = '10', providersText = '100'] = process.argv.slice(2);
const PROVIDERS = Number(providersText);
if (!Number.isInteger(PROVIDERS) || PROVIDERS < 1)
  throw new Error(`providers must be a whole number from 1: ${providersText}`);
const ROUTES: Record<string, number> = { public: 0, detail: 1, list: 2, mcp: 3 };
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
const bare = route === 'node' || route === 'express';
const routeAt = bare ? 0 : ROUTES[route];
if (routeAt === undefined) throw new Error(`unknown route ${route}: public, detail, list, mcp, node or express`);
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));

const dataset = await Dataset.create(engine);
let answers = 0;
const load = startLoadGenerator();
try {
  await dataset.publishTo(PROVIDERS);
  const bytesFile = join(dir, 'public.json');
  if (bare) writeFileSync(bytesFile, await dataset.publicBytes());
  const service = bare
    ? await startBare(route as BareKind, bytesFile, { profileDir: dir })
    : await startService(dataset.location, { redis: engine === 'postgres', profileDir: dir });
  const providers = Array.from({ length: Math.min(PROVIDERS, 1024) }, (_, i) => ({
    id: providerId(i + 1),
    name: providerName(i + 1),
  }));
  const { requests } = at(serviceRoutes({ providers, keys: dataset.keys }), routeAt);
  const drive = (durationS: number) =>
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

/** A V8 CPU profile (`--cpu-prof`): the call tree's nodes, and which node was running at each sample. */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const written = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!written) throw new Error(`no CPU profile in ${dir}`);
const file = join(dir, written);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nodeOf = (id: number): ProfileNode => {
  const n = nodes.get(id);
  if (!n) throw new Error(`no node ${id} in the profile`);
  return n;
};
const name = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url.replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*\/apps\/api\//, '');
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
};
/** Who a function belongs to: a package, the service, Node itself, or V8 (idle, garbage collection). */
const owner = (n: ProfileNode) => {
  const { url, functionName } = n.callFrame;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  if (url.includes('/apps/api/dist/')) return `service: ${url.replace(/^.*\/apps\/api\/dist\//, '').split('/')[0]}`;
  if (url.includes('/packages/')) return url.replace(/^.*\/packages\/([^/]+)\/.*$/, '@svc/$1');
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  return url ? 'other' : functionName.startsWith('(') ? functionName : `native: ${functionName}`;
};
const own = new Map<string, number>();
const byOwner = new Map<string, number>();
const beneath = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const key = name(nodeOf(id));
  own.set(key, (own.get(key) ?? 0) + dt);
  const who = owner(nodeOf(id));
  byOwner.set(who, (byOwner.get(who) ?? 0) + dt);
  const seen = new Set<string>();
  for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
    const k = name(nodeOf(up));
    if (!seen.has(k)) beneath.set(k, (beneath.get(k) ?? 0) + dt);
    seen.add(k);
  }
});
const top = (m: Map<string, number>, count = 30) =>
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
