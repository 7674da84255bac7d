import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_FRESHNESS } from '../support/context.js';

/** Real processes for the fault suites: the built CLI (`svc serve`, `svc publish`, …), run as operators run it. */

/** The built CLI: turbo's test task builds it first, as for the CLI's own tests. */
export const BIN = fileURLToPath(new URL('../../../cli/dist/bin.js', import.meta.url));

export type Env = Record<string, string>;

/** Every variable the configuration reads, cleared from the inherited environment so each process gets only `vars`. */
const CONFIG_VARIABLE = /^(PORT|HOST|DATABASE_URL|REDIS_URL|SITE_URL|TRUST_PROXY|LOG_LEVEL|SVC_.*)$/;

/**
 * The child's environment: this process's without any configuration, the tests' freshness policy (the examples are
 * evaluated in 2026-06 and published by the real clock; TEST_FRESHNESS, decision 0053), then `vars`.
 */
function childEnv(vars: Env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!CONFIG_VARIABLE.test(name)) env[name] = value;
  return { ...env, SVC_MAX_EVALUATION_AGE_DAYS: String(TEST_FRESHNESS.maxEvaluationAgeDays), ...vars };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running CLI process with its output so far. */
export interface SvcProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  running(): boolean;
  /** Sends the signal and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

const started = new Set<SvcProcess>();

/** Starts `svc <args>`; the process is tracked so `killAll` can end it if the test fails first. */
export function startSvc(vars: Env, ...args: string[]): SvcProcess {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the workspace before the reliability suites`);
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(vars), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  // Kept short: a long-running server logs to stdout, and only its first line matters.
  child.stdout?.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-200_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-200_000);
  });
  let done = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  const handle: SvcProcess = {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    running: () => !done,
    kill: (signal = 'SIGTERM') => {
      if (!done) child.kill(signal);
      return exited;
    },
  };
  started.add(handle);
  void exited.then(() => started.delete(handle));
  return handle;
}

/** Runs `svc <args> --json` to the end (without blocking this process, whose load loops keep running). */
export async function runSvcJson<T>(
  vars: Env,
  ...args: string[]
): Promise<Exit & { json: T; stderr: string; ms: number }> {
  const begun = Date.now();
  const run = startSvc(vars, ...args, '--json');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
  const exit = await run.exited.finally(() => clearTimeout(timer));
  const stdout = run.stdout();
  let json: T;
  try {
    json = JSON.parse(stdout) as T;
  } catch {
    throw new Error(`svc ${args.join(' ')} printed no JSON (exit ${exit.code}): ${stdout}${run.stderr()}`);
  }
  return { ...exit, json, stderr: run.stderr(), ms: Date.now() - begun };
}

/** A `svc serve` process and the URL it listens on. */
export interface ApiProcess extends SvcProcess {
  url: string;
}

/** Starts `svc serve --port 0 --json` and waits for its `{url}` line. */
export async function startApi(vars: Env): Promise<ApiProcess> {
  const api = startSvc(vars, 'serve', '--port', '0', '--json');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const url = listeningUrl(api.stdout());
    if (url) return { ...api, url };
    if (!api.running()) throw new Error(`svc serve exited before listening: ${api.stderr()}${api.stdout()}`);
    if (Date.now() > deadline) {
      await api.kill('SIGKILL');
      throw new Error(`svc serve printed no URL within 30 s: ${api.stderr()}`);
    }
    await sleep(20);
  }
}

/**
 * The URL of serve's `{url}` line among the whole lines printed so far. The log shares stdout: at LOG_LEVEL warn,
 * a store without operators logs the open-mode warning before the server listens.
 */
function listeningUrl(stdout: string): string | undefined {
  for (const line of stdout.split('\n').slice(0, -1)) {
    const printed = JSON.parse(line) as { url?: unknown; level?: unknown };
    if (printed.level === undefined && typeof printed.url === 'string') return printed.url;
  }
  return undefined;
}

/** Kills (SIGKILL) every process still running: a failed test leaves none behind. */
export async function killAll(): Promise<void> {
  await Promise.all([...started].map((p) => p.kill('SIGKILL')));
}

const folders: string[] = [];

/** A fresh SVC_DATA_DIR, removed by `removeDataDirs`. */
export async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-faults-'));
  folders.push(dir);
  return dir;
}

export async function removeDataDirs(): Promise<void> {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` passes; returns how long it took, or throws with `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) {
  const begun = Date.now();
  for (;;) {
    if (await check()) return Date.now() - begun;
    if (Date.now() - begun > timeoutMs) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(25);
  }
}

// ---- load ----

/** One answer (or failure) seen by a load loop. */
export interface Sample {
  target: string;
  startedAt: number;
  finishedAt: number;
  status: number | null;
  contentType: string | null;
  retryAfter: string | null;
  code: string | null;
  /** The fetch failed: refused, reset, or no answer within the client's timeout. */
  error: string | null;
  /** The body, for targets that keep it. */
  body: string | null;
}

export interface Target {
  name: string;
  /** The URL at the moment of the request (an API restarted elsewhere gets a new port). */
  url: () => string;
  init?: () => RequestInit;
  /** Keep the bodies of the answers (to learn what a write created). */
  keepBody?: boolean;
}

/**
 * Sends the targets in turn from `concurrency` workers, each pausing `pauseMs` between requests (load, not a flood
 * that starves the processes under test of the machine's two cores), until stopped; records every answer.
 */
export function loadLoop(targets: readonly Target[], concurrency: number, pauseMs = 10, clientTimeoutMs = 10_000) {
  const samples: Sample[] = [];
  let running = true;
  let turn = 0;
  const worker = async () => {
    while (running) {
      const target = targets[turn++ % targets.length] as Target;
      const startedAt = Date.now();
      const sample: Sample = {
        target: target.name,
        startedAt,
        finishedAt: 0,
        status: null,
        contentType: null,
        retryAfter: null,
        code: null,
        error: null,
        body: null,
      };
      try {
        const res = await fetch(target.url(), { ...target.init?.(), signal: AbortSignal.timeout(clientTimeoutMs) });
        const text = await res.text();
        sample.status = res.status;
        sample.contentType = res.headers.get('content-type');
        sample.retryAfter = res.headers.get('retry-after');
        if (target.keepBody) sample.body = text;
        if (sample.contentType?.startsWith('application/problem+json')) {
          sample.code = (JSON.parse(text) as { code?: string }).code ?? null;
        }
      } catch (error) {
        sample.error = (error as Error).cause ? String((error as Error).cause) : String(error);
      }
      sample.finishedAt = Date.now();
      samples.push(sample);
      await sleep(pauseMs);
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    samples,
    async stop(): Promise<Sample[]> {
      running = false;
      await Promise.all(workers);
      return samples;
    },
  };
}

let ip = Math.floor(Math.random() * 0xffff) << 8;
/** A new client address each call (with TRUST_PROXY=true), so the per-IP public limit never shapes the load. */
export function forwardedFor(): Record<string, string> {
  ip = (ip + 1) % 0xffffff;
  return { 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` };
}

/** Counts of a list of things by a key, as an object (for failure messages that show what happened). */
export function tally<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}
