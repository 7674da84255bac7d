// Publication on several builds in turns: `tsx bench/publish-ab.ts [sqlite|postgres] [providers=1000] [rounds=3]
// NAME=FOLDER ...` from apps/api, after every build. Each FOLDER is another checkout's apps/api (a worktree at the
// commit before a change) holding copies of bench/publish.ts and bench/verbs.ts; this checkout runs as "this". Each
// round publishes `providers` into a fresh store with each build in turn (the order rotating), each in its own
// process, so the machine's noise falls on all alike. Prints the median milliseconds per provider of each build.

import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const [engine = 'sqlite', count = '1000', rounds = '3', ...others] = process.argv.slice(2);
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
const builds: [string, string][] = [
  ...others.map((o) => {
    const [name, dir] = o.split('=');
    if (!name || !dir) throw new Error(`expected NAME=FOLDER, not ${o}`);
    return [name, resolve(dir)] as [string, string];
  }),
  ['this', resolve('.')],
];

const run = (dir: string): number => {
  const out = execFileSync('pnpm', ['exec', 'tsx', 'bench/publish.ts', engine, count], { cwd: dir, encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').at(-1) as string) as { perProviderMs: number }).perProviderMs;
};
const per = new Map(builds.map(([name]) => [name, [] as number[]]));
for (let r = 0; r < Number(rounds); r++) {
  for (let k = 0; k < builds.length; k++) {
    const [name, dir] = builds[(k + r) % builds.length] as [string, string];
    per.get(name)?.push(run(dir));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(
  `publication on ${engine}, ${count} providers a round, ${rounds} rounds: ms per provider, median (each round)`,
);
for (const [name, xs] of per) {
  console.log(`  ${name.padEnd(10)} ${median(xs).toFixed(2)}  (${xs.map((x) => x.toFixed(2)).join(', ')})`);
}
