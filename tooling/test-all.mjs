// `pnpm test:all` (the README's test command, and what `.ci/run` runs): every check, in as few phases as their
// dependencies allow, so that both cores stay busy from start to end (docs/testing.md):
//
//   1. what the suites need from the system (tooling/system-deps.sh);
//   2. lint and formatting, the dependency rules and the build, side by side;
//   3. the type checks, the unit and integration suites (`test`) and the system suites (`test:system`: soak, fuzzing,
//      faults, the browser, the packed packages and the wheel, `svc` as a process), in two lanes side by side (one per
//      core), going on past a failure so that one run reports every one;
//   4. the results added up (tooling/test-summary.mjs), with each package's time and the slowest test files.
//
// It ends with each phase's time, and exits 1 when anything failed.
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const started = performance.now();
const timings = [];

/** Runs one command to its end, its output passed through; resolves with whether it succeeded. */
function step(name, command, args) {
  const at = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${name}: ${error.message}`);
      resolve(false);
    });
    child.on('exit', (code, signal) => {
      const seconds = (performance.now() - at) / 1000;
      timings.push({ name, seconds, ok: code === 0 });
      if (code !== 0) console.error(`${name} failed (${signal ?? `exit ${code}`}) after ${seconds.toFixed(0)} s`);
      resolve(code === 0);
    });
  });
}

/** Runs the steps of a phase side by side; resolves with whether every one succeeded. */
async function phase(...steps) {
  return (await Promise.all(steps)).every(Boolean);
}

let ok = await phase(step('system packages', 'bash', ['tooling/system-deps.sh']));
ok =
  (await phase(
    step('lint and formatting', 'npx', ['biome', 'check', '.']),
    step('dependency rules', 'pnpm', ['-s', 'deps:check']),
    step('build', 'npx', ['turbo', 'run', 'build']),
  )) && ok;
/**
 * Runs the tasks of a lane one after another (`pnpm --filter PACKAGE run TASK`), going on past a failure; resolves with
 * whether every one succeeded.
 */
async function lane(name, tasks) {
  let all = true;
  for (const [pkg, task] of tasks) {
    all = (await step(`${pkg} ${task}`, 'pnpm', ['--filter', pkg, 'run', task])) && all;
  }
  return all;
}

// Two lanes, one per core, each task in the order that keeps both busy to the end: the API's suites (the longest task
// by far, about 400 s) start at once in the first, the type checks and the shorter suites fill the second. Turbo ran
// them in its own order, which started the API's suites four minutes in and left one core idle at the end.
if (ok) {
  ok =
    (await phase(
      lane('first', [
        ['@svc/api', 'test'],
        ['@svc/cli', 'test:system'],
        ['@svc/client', 'test:system'],
        ['@svc/methodology', 'test:system'],
        ['@svc/client-python', 'test:system'],
      ]),
      lane('second', [
        ['@svc/methodology', 'typecheck'],
        ['@svc/contracts', 'typecheck'],
        ['@svc/client', 'typecheck'],
        ['@svc/api', 'typecheck'],
        ['@svc/cli', 'typecheck'],
        ['@svc/methodology', 'test'],
        ['@svc/contracts', 'test'],
        ['@svc/cli', 'test'],
        ['@svc/api', 'test:system'],
        ['@svc/client', 'test'],
        ['@svc/client-python', 'test'],
      ]),
    )) && ok;
}
const counted = await step('results', 'node', ['tooling/test-summary.mjs']);

const total = (performance.now() - started) / 1000;
console.log('\nphases (seconds):');
for (const t of timings) console.log(`  ${t.seconds.toFixed(0).padStart(5)}  ${t.name}${t.ok ? '' : '  FAILED'}`);
console.log(`  ${total.toFixed(0).padStart(5)}  in all (${Math.floor(total / 60)} min ${Math.round(total % 60)} s)`);
process.exit(ok && counted ? 0 : 1);
