// Throughput of the built engine: `node bench/throughput.mjs` from packages/methodology, after the build.
// Generates N valid documents deterministically, then times parse+validate, +score, and +package to bytes.
import os from 'node:os';
import { performance } from 'node:perf_hooks';

const engine = await import(new URL('../dist/index.js', import.meta.url).href);
const { currentFramework, PLANNER_TYPES, readJson, score, scoreWithPackage, serializePackage, validateInputs } = engine;

const N = 10_000;
// Three runs keep `pnpm bench` within its 10 minutes; BENCH_REPEATS=5 (or more) for a steadier median.
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const SEED = 20_260_401;
const GOAL_SECONDS = 1;

/** mulberry32: a small seeded PRNG, so every run scores the same documents. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const random = mulberry32(SEED);
const pick = (items) => items[Math.floor(random() * items.length)];
const between = (low, high) => low + random() * (high - low);
/** A decimal of at most 4 places, through exact text. */
const decimal = (low, high) => Number(between(low, high).toFixed(4));
const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
const DAY_MS = 86_400_000;
const dateOf = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);

const framework = currentFramework();
const definition = framework.definition;
const effectiveDay = Date.parse(`${definition.effective_date}T00:00:00Z`) / DAY_MS;

/** A value in the criterion's domain, from the framework data: table entries, or around the scale's anchors. */
function valueFor(criterion, yieldMax) {
  const { input, scale } = criterion;
  if (scale.kind === 'table') return pick(scale.entries)[0];
  if (scale.on !== 'input') return decimal(Math.max(0, yieldMax - 16), yieldMax); // a benchmark below the yield
  const xs = scale.anchors.map(([x]) => Number(x));
  const first = xs[0];
  const last = xs[xs.length - 1];
  const low = input.min === undefined ? first - (last - first) / 3 : Number(input.min);
  const high = input.max === undefined ? last + (last - first) / 3 : Number(input.max);
  return input.type === 'integer' ? Math.round(between(low, high)) : decimal(low, high);
}

function documentAt(index) {
  const evaluationDay = effectiveDay + Math.floor(random() * 1500);
  const yields = [decimal(0, 20), decimal(0, 20)].sort((a, b) => a - b);
  const inputs = {};
  for (const criterion of definition.criteria) {
    if (random() < 0.1) continue; // about one input in ten missing
    const asOfDay = evaluationDay - Math.floor(pick([between(0, 90), between(91, 365), between(366, 800)]));
    inputs[criterion.input_key] = {
      value: valueFor(criterion, yields[1]),
      as_of: dateOf(asOfDay),
      source: `Attestation ${index}, p. ${1 + Math.floor(random() * 40)}`,
      approved_by: pick(['analyst.a', 'analyst.b', 'risk.lead']),
      approved_at: `${dateOf(asOfDay + 2)}T10:00:00Z`,
    };
  }
  return {
    provider: {
      id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
      name: `Provider ${index}`,
      planner_type: pick(PLANNER_TYPES),
      provider_subtype: pick(['lender', 'exchange_earn', 'cefi_yield', 'bank']),
      yield_min: yields[0],
      yield_max: yields[1],
    },
    evaluation_date: dateOf(evaluationDay),
    inputs,
  };
}

const texts = Array.from({ length: N }, (_, i) => JSON.stringify(documentAt(i)));

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

const timeOnce = (operation) => {
  const start = performance.now();
  for (const text of texts) operation.run(text);
  return (performance.now() - start) / 1000;
};
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

for (const operation of operations) timeOnce(operation); // warm-up: one full pass each (also checks validity)
const seconds = operations.map((operation) => median(Array.from({ length: REPEATS }, () => timeOnce(operation))));

const cpus = os.cpus();
console.log(`Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores; Node ${process.version}`);
console.log(`Documents: ${N} (seed ${SEED}); median of ${REPEATS} runs after a warm-up pass; one thread.\n`);
console.log('| operation | documents | seconds | documents per second | time ratio to parse+validate |');
console.log('|---|---:|---:|---:|---:|');
operations.forEach((operation, i) => {
  const s = seconds[i];
  console.log(`| ${operation.name} | ${N} | ${s.toFixed(3)} | ${Math.round(N / s)} | ${(s / seconds[0]).toFixed(2)} |`);
});
const full = seconds[2];
console.log(
  `\nGoal "10,000 providers scored with packages in under ${GOAL_SECONDS} s of one core": ${
    full < GOAL_SECONDS ? 'MET' : 'NOT MET'
  } (${full.toFixed(3)} s for ${N}).`,
);
