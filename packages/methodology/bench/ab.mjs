// Two builds of the engine on the same documents in one process, taking turns, from packages/methodology:
//   cp -r dist bench/.baseline     # before a change (inside the package, so its dependencies resolve)
//   ...change, rebuild...
//   node bench/ab.mjs bench/.baseline [rounds=5]
// CPU time per document (process.cpuUsage) of each operation, the median over the rounds; the builds alternate
// within every round (and swap order each round), so the machine's load falls on both alike.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { documentTexts } from './documents.mjs';

const [other, roundsText = '5'] = process.argv.slice(2);
if (!other) throw new Error('usage: node bench/ab.mjs <other dist> [rounds]');
const ROUNDS = Number(roundsText);
const N = 10_000;

const builds = [
  { name: 'other', engine: await import(pathToFileURL(resolve(other, 'index.js')).href) },
  { name: 'this', engine: await import(new URL('../dist/index.js', import.meta.url).href) },
];
const texts = documentTexts(builds[1].engine.currentFramework(), builds[1].engine.PLANNER_TYPES, N);

const operations = {
  'parse + validate': (e, fw) => (text) => e.validateInputs(e.readJson(text), fw),
  '+ score': (e, fw) => (text) => e.score(e.readJson(text), fw),
  '+ package to bytes': (e, fw) => (text) => e.serializePackage(e.scoreWithPackage(e.readJson(text), fw).package),
};

/** CPU µs per document of one pass. */
function pass(run) {
  const start = process.cpuUsage();
  for (const text of texts) run(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`Documents: ${N}; ${ROUNDS} rounds, builds alternating; CPU µs per document (median).\n`);
console.log('| operation | other | this | this ÷ other |');
console.log('|---|---:|---:|---:|');
for (const [name, make] of Object.entries(operations)) {
  const runs = builds.map((b) => make(b.engine, b.engine.currentFramework()));
  runs.forEach(pass); // warm-up
  const times = builds.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) times[i].push(pass(runs[i]));
  }
  const [a, b] = times.map(median);
  console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
}
