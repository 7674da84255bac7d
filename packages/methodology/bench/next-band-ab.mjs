// pathToNextBand on two builds, alternating in one process, from packages/methodology:
//   cp -r dist bench/.baseline     # before a change (inside the package, so its dependencies resolve)
//   ...change, rebuild...
//   node bench/next-band-ab.mjs [documents=2000] [rounds=7]
// The engine bench's documents (bench/documents.mjs); CPU µs per document, the median over the rounds, the order of
// the builds swapped each round; and how many documents' paths differ in their JSON text (0 expected).
import { documentTexts } from './documents.mjs';

const [count = '2000', roundsText = '7'] = process.argv.slice(2);
const builds = [
  ['baseline', await import(new URL('./.baseline/index.js', import.meta.url).href)],
  ['this', await import(new URL('../dist/index.js', import.meta.url).href)],
];
const engine = builds[1][1];
const framework = engine.currentFramework();
const docs = documentTexts(framework, engine.PLANNER_TYPES, Number(count)).map(
  (text) => engine.validateInputs(engine.readJson(text), framework).document,
);
const pathOf = ([, e], doc) => JSON.stringify(e.pathToNextBand(doc, e.currentFramework()));
const differ = docs.filter((doc) => pathOf(builds[0], doc) !== pathOf(builds[1], doc)).length;

const times = new Map(builds.map(([name]) => [name, []]));
for (let round = 0; round < Number(roundsText); round++) {
  for (const [name, e] of round % 2 === 0 ? builds : [...builds].reverse()) {
    const fw = e.currentFramework();
    const start = process.cpuUsage();
    for (const doc of docs) e.pathToNextBand(doc, fw);
    const used = process.cpuUsage(start);
    times.get(name).push((used.user + used.system) / docs.length);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [before, after] = builds.map(([name]) => median(times.get(name)));
console.log(
  `pathToNextBand, CPU µs per document (median of ${roundsText}): baseline ${before.toFixed(1)}, this ${after.toFixed(1)}, ratio ${(after / before).toFixed(2)}; ${differ} of ${docs.length} paths differ`,
);
