// Adds up the vitest JSON reports of every workspace package, its unit and its system suites' (and the Python
// client's, written in the same shape)
// into one closing line, after each package's time and the 15 slowest test files of the run: growth is seen when it
// happens. Exits 1 when a test failed or none ran.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const SLOWEST = 15;
let passed = 0;
let failed = 0;
let skipped = 0;
const packages = [];
const files = [];
for (const group of ['packages', 'apps']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    for (const [kind, report] of reportsOf(join(dir, name))) {
      passed += report.numPassedTests;
      failed += report.numFailedTests;
      skipped += report.numPendingTests + (report.numTodoTests ?? 0);
      const results = report.testResults ?? [];
      const ends = results.map((r) => r.endTime ?? 0).filter((t) => t > 0);
      const seconds = ends.length > 0 && report.startTime ? (Math.max(...ends) - report.startTime) / 1000 : null;
      packages.push({
        name: `${group}/${name}${kind}`,
        line: `${report.numPassedTests} passed, ${report.numFailedTests} failed`,
        seconds,
      });
      for (const r of results) {
        if (r.startTime && r.endTime) {
          files.push({ name: relative(root, r.name ?? ''), seconds: (r.endTime - r.startTime) / 1000 });
        }
      }
    }
  }
}

/** A package's reports: its unit and integration suites' (`test`), and its system suites' (`test:system`). */
function reportsOf(dir) {
  return [
    ['', 'test-results.json'],
    [' (system)', 'test-results.system.json'],
  ]
    .filter(([, file]) => existsSync(join(dir, file)))
    .map(([kind, file]) => [kind, JSON.parse(readFileSync(join(dir, file), 'utf8'))]);
}
const time = (s) => (s === null ? '' : `, ${s.toFixed(0)} s`);
for (const p of packages) console.log(`  ${p.name}: ${p.line}${time(p.seconds)}`);
if (files.length > 0) {
  console.log(`the ${Math.min(SLOWEST, files.length)} slowest test files (seconds, in their package's run):`);
  for (const f of files.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST)) {
    console.log(`  ${f.seconds.toFixed(1).padStart(7)}  ${f.name}`);
  }
}
if (passed + failed === 0) {
  console.error('no test results found: did the test task run?');
  process.exit(1);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
