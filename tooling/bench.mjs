// `pnpm bench`: the build, the engine's bench (packages/methodology) and the API's benches (apps/api, as its own
// `bench` script runs them), one after another, each printing its own tables as it goes; then one closing summary
// of every target the run judged (each bench records its target rows in a file named by SVC_BENCH_SUMMARY:
// apps/api/bench/harness.ts recordTargets, packages/methodology/bench/throughput.mjs), and how long each part took
// against issue 17's 15 minutes for the whole. A part that fails ends the run with its exit status, after the summary of what was measured before it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BENCH_MINUTES = 15;
const root = new URL('..', import.meta.url).pathname;
const parts = [
  { name: 'build', args: ['exec', 'turbo', 'run', 'build'] },
  { name: 'engine (packages/methodology)', args: ['--filter', '@svc/methodology', 'bench'] },
  // apps/api's `bench` script, part by part (each part's time in the summary): a bench added there goes here too.
  { name: 'HTTP (apps/api bench:http)', args: ['--filter', '@svc/api', 'bench:http'] },
  { name: 'wrk (bench:wrk)', args: ['--filter', '@svc/api', 'bench:wrk'] },
  { name: 'scale and publication (bench:scale)', args: ['--filter', '@svc/api', 'bench:scale'] },
  { name: 'audit trail (bench:audit)', args: ['--filter', '@svc/api', 'bench:audit'] },
];

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const summary = join(dir, 'targets.jsonl');
const env = { ...process.env, SVC_BENCH_SUMMARY: summary };
const took = [];
let failed = null;
const started = performance.now();
for (const part of parts) {
  const start = performance.now();
  const run = spawnSync('pnpm', part.args, { cwd: root, env, stdio: 'inherit' });
  took.push({ name: part.name, seconds: (performance.now() - start) / 1000 });
  if (run.status !== 0) {
    failed = {
      part: part.name,
      status: run.status ?? 1,
      why: run.error?.message ?? run.signal ?? `exit ${run.status}`,
    };
    break;
  }
}
const total = (performance.now() - started) / 1000;

const rows = existsSync(summary)
  ? readFileSync(summary, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))
  : [];
rmSync(dir, { recursive: true, force: true });

const cell = (text) => String(text).replaceAll('|', '\\|');
const clock = (s) => `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
console.log('\n## Every target of this run\n');
console.log('| bench | target | figure | |');
console.log('| --- | --- | ---: | --- |');
for (const r of rows) console.log(`| ${cell(r.bench)} | ${cell(r.target)} | ${cell(r.figure)} | ${cell(r.verdict)} |`);
const met = rows.filter((r) => r.verdict === 'met').length;
const notMet = rows.filter((r) => r.verdict === 'NOT MET').length;
console.log(
  `\n${met} met, ${notMet} NOT MET, ${rows.length - met - notMet} without a verdict (not measured, or no target), of ${rows.length} rows.`,
);
console.log(`\n${took.map((t) => `${t.name} ${clock(t.seconds)}`).join('; ')}.`);
console.log(
  `The whole bench: ${clock(total)} (issue 17: every target printed within ${BENCH_MINUTES} minutes from a fresh clone): ${
    failed ? 'NOT MET (a part failed)' : total < BENCH_MINUTES * 60 ? 'met' : 'NOT MET'
  }.`,
);
if (failed) {
  console.error(`\npnpm bench: ${failed.part} failed (${failed.why}); the parts after it did not run.`);
  process.exit(failed.status);
}
