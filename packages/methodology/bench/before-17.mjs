// The engine's target as the ratio issue 17 sets it, measured in one run: the issue timed the build before its
// engine work (commit 1c3c95c) at 2.9 s for 10,000 documents scored with packages on a quiet machine, and set the
// goal at 1 s on the same machine: 1/2.9 of that build's time. This builds that commit's engine from the clone's
// history (its sources, compiled with this package's TypeScript and dependencies, in bench/.before-17, which git
// ignores) and times both builds on the same documents, taking turns. Hosts of this machine differ by up to four
// times in speed; the ratio does not move with them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export const BEFORE_17 = '1c3c95c8fa617766b705f4936404ebd3de9c4215';
/** The issue's figures: the build before its work, and the goal, in seconds on its quiet machine. */
export const ISSUE_SECONDS = { before: 2.9, goal: 1 };

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const folder = fileURLToPath(new URL('./.before-17/', import.meta.url));

/** The entry of BEFORE_17's engine, built once into bench/.before-17; null (with why) when this clone lacks the commit. */
export async function engineBefore17() {
  const entry = `${folder}dist/index.js`;
  if (!existsSync(entry)) {
    try {
      execFileSync('git', ['cat-file', '-e', `${BEFORE_17}^{commit}`], { cwd: packageDir, stdio: 'ignore' });
    } catch {
      return { entry: null, why: `commit ${BEFORE_17} is not in this clone (a shallow clone?)` };
    }
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', BEFORE_17, 'src'], {
      cwd: packageDir,
      maxBuffer: 64 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', folder], { input: archive });
    writeFileSync(
      `${folder}tsconfig.json`,
      JSON.stringify({
        extends: '../../../../tsconfig.base.json',
        compilerOptions: { rootDir: 'src', outDir: 'dist', noEmit: false, declaration: false, declarationMap: false },
        include: ['src/**/*.ts'],
        exclude: ['src/**/__tests__/**'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', `${folder}tsconfig.json`], { cwd: packageDir, stdio: 'inherit' });
  }
  return { entry, why: null };
}

/** A worker thread running the build at `entry` over the first `count` documents; `ask` sends it a word and answers its reply. */
function engineWorker(entry, count) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { entry, count } });
  const waiting = [];
  worker.on('message', (message) => waiting.shift()?.resolve(message));
  worker.on('error', (error) => {
    for (const w of waiting.splice(0)) w.reject(error);
  });
  return {
    ask: (what) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(what);
      }),
    terminate: () => worker.terminate(),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Each build in a worker thread of its own (its own heap and compiled code, so neither build's code shapes the
 * other's), over the same `count` documents: two warm-up passes each, then `rounds` rounds in which both make one
 * pass, one after the other (the order swapped each round), while the other waits. The ratio of each round's two
 * passes, taken close together, moves less with the host's load than either time alone: the median of the rounds'
 * ratios (this build over the other), the median CPU seconds a document of each, and whether both wrote the same
 * package bytes for every document.
 */
export async function alternate(entries, count, rounds) {
  const workers = entries.map((entry) => engineWorker(entry, count));
  try {
    const digests = [];
    for (const worker of workers) digests.push(await worker.ask('warm'));
    const times = workers.map(() => []);
    const ratios = [];
    for (let round = 0; round < rounds; round++) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) times[i].push((await workers[i].ask('pass')).cpu);
      ratios.push(times[1][round] / times[0][round]);
    }
    return {
      ratio: median(ratios),
      perDocument: times.map((t) => median(t) / count),
      same: digests[0] === digests[1],
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/**
 * The host's speed in the issue's own unit, for targets that are not the engine's (the publication's): the build
 * before issue 17 scoring `count` documents with packages, in a worker thread of its own, after two warm-up passes,
 * `passes` times; the median wall-clock seconds a document. The issue measured that build at 2.9 s for 10,000 on
 * its quiet machine, so a figure taken beside it in the same run can be stated as on that machine.
 */
export async function yardstick(entry, count, passes) {
  const worker = engineWorker(entry, count);
  try {
    await worker.ask('warm');
    const walls = [];
    for (let pass = 0; pass < passes; pass++) walls.push((await worker.ask('pass')).wall);
    return median(walls) / count;
  } finally {
    await worker.terminate();
  }
}

// In a worker: the build at workerData.entry (its dist/index.js) over the first workerData.count generated documents.
// 'warm' makes two passes and answers the SHA-256 of every package's bytes, one after another; 'pass' makes one and
// answers its CPU seconds (the process's: the other threads wait meanwhile) and its wall-clock seconds.
if (!isMainThread && workerData?.entry) {
  const engine = await import(pathToFileURL(workerData.entry).href);
  const { documentTexts } = await import('./documents.mjs');
  const framework = engine.currentFramework();
  const texts = documentTexts(framework, engine.PLANNER_TYPES, workerData.count);
  const run = (text) => engine.serializePackage(engine.scoreWithPackage(engine.readJson(text), framework).package);
  parentPort.on('message', (what) => {
    if (what === 'warm') {
      const digest = createHash('sha256');
      for (const text of texts) digest.update(run(text));
      for (const text of texts) run(text);
      parentPort.postMessage(digest.digest('hex'));
      return;
    }
    const start = process.cpuUsage();
    const wallStart = performance.now();
    for (const text of texts) run(text);
    const wall = (performance.now() - wallStart) / 1000;
    const used = process.cpuUsage(start);
    parentPort.postMessage({ cpu: (used.user + used.system) / 1e6, wall });
  });
}
