// Throughput of the built engine: `node bench/throughput.mjs` from packages/methodology, after the build.
// Generates N valid documents deterministically, then times parse+validate, +score, and +package to bytes.
import { hash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { alternate, BEFORE_17, engineBefore17, ISSUE_SECONDS } from './before-17.mjs';
import { documentTexts, SEED } from './documents.mjs';

const engine = await import(new URL('../dist/index.js', import.meta.url).href);
const { currentFramework, PLANNER_TYPES, readJson, score, scoreWithPackage, serializePackage, validateInputs } = engine;

const N = 10_000;
// Three runs keep `pnpm bench` within its 10 minutes; BENCH_REPEATS=5 (or more) for a steadier median.
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const GOAL_SECONDS = 1;

const framework = currentFramework();
const texts = documentTexts(framework, PLANNER_TYPES, N);

const operations = [
  {
    name: 'parse + validate (`readJson` + `validateInputs`)',
    run: (text) => {
      if (!validateInputs(readJson(text), framework).ok) throw new Error('a generated document is invalid');
    },
  },
  { name: 'parse + validate + score (`score`)', run: (text) => score(readJson(text), framework) },
  {
    name: 'parse + validate + score + package to bytes (`scoreWithPackage` + `serializePackage`)',
    run: (text) => serializePackage(scoreWithPackage(readJson(text), framework).package),
  },
];

/** Wall and CPU seconds of one pass over every document. */
const timeOnce = (operation) => {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const text of texts) operation.run(text);
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6 };
};
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

// Work of no engine code, as a yardstick of the host: hosts of this machine have differed by four times in speed,
// so the engine's time is also given in units of this, which moves with the host and not with the engine.
const reference = {
  name: 'reference: `JSON.parse`, `JSON.stringify` and SHA-256 of each document (no engine code)',
  run: (text) => hash('sha256', JSON.stringify(JSON.parse(text)), 'hex'),
};
operations.push(reference);

for (const operation of operations) timeOnce(operation); // warm-up: one full pass each (also checks validity)
const passes = operations.map((operation) => Array.from({ length: REPEATS }, () => timeOnce(operation)));
const seconds = passes.map((runs) => median(runs.map((r) => r.wall)));
const cpuSeconds = passes.map((runs) => median(runs.map((r) => r.cpu)));

const cpus = os.cpus();
const load = os.loadavg().map((l) => l.toFixed(1));
console.log(`Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores; Node ${process.version}`);
console.log(`Documents: ${N} (seed ${SEED}); median of ${REPEATS} runs after a warm-up pass; one thread.`);
console.log(`Load average at the end: ${load.join(' ')}.\n`);
console.log('| operation | documents | seconds | CPU seconds | documents per second | time ratio to parse+validate |');
console.log('|---|---:|---:|---:|---:|---:|');
operations.forEach((operation, i) => {
  const s = seconds[i];
  const row = [
    operation.name,
    N,
    s.toFixed(3),
    cpuSeconds[i].toFixed(3),
    Math.round(N / s),
    (s / seconds[0]).toFixed(2),
  ];
  console.log(`| ${row.join(' | ')} |`);
});
const full = seconds[2];
/** Prints a row of the target table, and records it for the run's summary (tooling/bench.mjs) when asked to. */
const target = (name, figure, verdict) => {
  console.log(`| ${name} | ${figure} | ${verdict} |`);
  const summary = process.env.SVC_BENCH_SUMMARY;
  if (summary) appendFileSync(summary, `${JSON.stringify({ bench: 'engine', target: name, figure, verdict })}\n`);
};
console.log(
  `\nThe engine with packages took ${(full / seconds[3]).toFixed(2)} times the reference work on this host (${seconds[3].toFixed(3)} s): the figure to compare across hosts.`,
);
console.log('\n| target | figure | |');
console.log('|---|---:|---|');
target(
  `${N} documents scored with packages in under ${GOAL_SECONDS} s of one core`,
  `${full.toFixed(3)} s`,
  full < GOAL_SECONDS ? 'met' : 'NOT MET',
);

// The same target as the issue's ratio, in one run: this build's time over the build before issue 17 (before-17.mjs).
const BEFORE_DOCUMENTS = 2_000;
const BEFORE_ROUNDS = 7;
const goalRatio = ISSUE_SECONDS.goal / ISSUE_SECONDS.before;
const before = await engineBefore17();
if (before.entry === null) {
  target('the same, as a ratio to the build before issue 17', '', `not measured: ${before.why}`);
} else {
  const thisEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const { ratio, perDocument, same } = await alternate([before.entry, thisEntry], BEFORE_DOCUMENTS, BEFORE_ROUNDS);
  if (!same) throw new Error(`the build ${BEFORE_17.slice(0, 7)} wrote other package bytes for a document`);
  target(
    `the same, as the issue's ratio: this build's time over the build before issue 17 (\`${BEFORE_17.slice(0, 7)}\`), under ${goalRatio.toFixed(3)} (1 s of its ${ISSUE_SECONDS.before} s)`,
    `${ratio.toFixed(3)} (≈ ${(ratio * ISSUE_SECONDS.before).toFixed(2)} s on the issue's machine)`,
    ratio < goalRatio ? 'met' : 'NOT MET',
  );
  console.log(
    `\nThe build before issue 17 against this one: ${BEFORE_DOCUMENTS} of the documents, each build in a worker thread of its own, ${BEFORE_ROUNDS} rounds of a pass each taking turns: the median of the rounds' ratios; CPU µs a document (median) ${(perDocument[0] * 1e6).toFixed(1)} and ${(perDocument[1] * 1e6).toFixed(1)}; both wrote the same package bytes for every document.`,
  );
}
