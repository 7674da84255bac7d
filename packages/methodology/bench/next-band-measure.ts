// pathToNextBand against the bisecting search it replaced (decision 0035): time per document and equality, on
// documents drawn from the property tests' arbitraries. `pnpm exec tsx bench/next-band-measure.ts [count]`.
import fc from 'fast-check';
import { documentArb, FRAMEWORK } from '../src/__tests__/arbitraries.js';
import { searchedPathToNextBand } from '../src/__tests__/oracle/next-band.js';
import { pathToNextBand } from '../src/analysis/next-band.js';
import { compute } from '../src/compute/compute.js';
import { checkInputs } from '../src/score.js';

const count = Number(process.argv[2] ?? 400);
const docs = fc.sample(documentArb, { numRuns: count, seed: 1 }).map((d) => checkInputs(d, FRAMEWORK));
const perDoc = (f: (d: (typeof docs)[number]) => unknown) => {
  const t = performance.now();
  for (const d of docs) f(d);
  return ((performance.now() - t) / docs.length) * 1000;
};
let differ = 0;
for (const d of docs) {
  if (JSON.stringify(pathToNextBand(d, FRAMEWORK)) !== JSON.stringify(searchedPathToNextBand(d, FRAMEWORK))) differ++;
}
for (let round = 0; round < 3; round++) {
  const c = perDoc((d) => compute(d, FRAMEWORK));
  const old = perDoc((d) => searchedPathToNextBand(d, FRAMEWORK));
  const now = perDoc((d) => pathToNextBand(d, FRAMEWORK));
  console.log(
    `compute ${c.toFixed(0)} us; path to next band: bisection ${old.toFixed(0)} us, inversion ${now.toFixed(0)} us (${(old / now).toFixed(1)}x)`,
  );
}
console.log(`${docs.length} documents, ${differ} differ`);
