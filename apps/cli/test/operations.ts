import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { openStore, type Store, type StoreLocation, TABLES } from '@svc/api';
import pg from 'pg';
import { expect } from 'vitest';
import { BIN, type Run, runSvc, tempDir } from './svc.js';

/** Every variable loadConfig reads: cleared from the inherited environment, so each test says what it sets. */
const CONFIG_VARIABLES = [
  'SVC_SIGNING_KEY',
  'PORT',
  'HOST',
  'DATABASE_URL',
  'REDIS_URL',
  'SVC_DATA_DIR',
  'SVC_MASTER_KEY',
  'SITE_URL',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'SVC_INSTANCES',
  'SVC_STORE_TIMEOUT_MS',
  'SVC_SHUTDOWN_GRACE_MS',
  'SVC_MCP_ENABLED',
  'SVC_OPERATOR_TOKEN',
  'SVC_MAX_EVALUATION_AGE_DAYS',
  'SVC_REVIEW_CADENCE_DAYS',
  'SVC_REVIEW_CADENCE_DAYS_BTC',
  'SVC_REVIEW_CADENCE_DAYS_FIAT',
  'SVC_REVIEW_CADENCE_DAYS_STABLECOIN',
];

/**
 * The tests' freshness policy (decision 0053): a maximum evaluation age of a century, so the examples (evaluated in
 * 2026-06) publish by the real clock; a test of the guard sets SVC_MAX_EVALUATION_AGE_DAYS itself, which wins.
 */
export const TEST_POLICY: Env = { SVC_MAX_EVALUATION_AGE_DAYS: '36500' };

export type Env = Record<string, string>;

/** The child's environment: this process's, without any service configuration, plus `vars`. */
export function childEnv(vars: Env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  return { ...env, ...TEST_POLICY, ...vars };
}

/** A fresh embedded store: SVC_DATA_DIR in a new temporary folder (removed after the test file). */
export async function embedded(): Promise<Env & { SVC_DATA_DIR: string }> {
  return { SVC_DATA_DIR: join(await tempDir(), 'data'), LOG_LEVEL: 'warn' };
}

/** Runs `svc ARGS` in this process with this configuration (see runSvc). */
export function svcIn(vars: Env, ...args: string[]): Promise<Run> {
  return runSvc(childEnv(vars), args);
}

/** Runs with --json; stdout must be one JSON value. */
export async function svcJsonIn<T = Record<string, unknown>>(vars: Env, ...args: string[]): Promise<Run & { json: T }> {
  const run = await svcIn(vars, ...args, '--json');
  return { ...run, json: JSON.parse(run.stdout) as T };
}

/** The line every record-changing command prints on stderr while the store has no operators (open mode). */
const OPEN_MODE_WARNING = /^warning: open mode: this store has no operators[^\n]*\n/;

/**
 * The stderr of a record-changing command run in open mode, without its warning: fails unless the warning
 * comes first and only once, so callers can go on to check the rest exactly.
 */
export function afterOpenModeWarning(stderr: string): string {
  expect(stderr).toMatch(OPEN_MODE_WARNING);
  expect(stderr.match(/warning: open mode:/g)).toHaveLength(1);
  return stderr.replace(OPEN_MODE_WARNING, '');
}

/** stderr without the open-mode warning if it has one (a command refused before it opens the store has none). */
export function withoutOpenModeWarning(stderr: string): string {
  return OPEN_MODE_WARNING.test(stderr) ? afterOpenModeWarning(stderr) : stderr;
}

/** Records the contract administrator's acceptance of the API terms (and the preview terms): keys need it. */
export async function acceptTerms(vars: Env, workspaceId: string, options: { preview?: boolean } = {}): Promise<void> {
  const args = ['workspace', 'accept-terms', workspaceId, '--administrator', 'Ada Admin', '--email', 'ada@example.com'];
  const run = await svcIn(vars, ...args, ...(options.preview ? ['--preview'] : []));
  expect(run.status, run.stderr).toBe(0);
}

export interface Served {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and waits for the exit: its code and how long it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Starts `svc serve` and waits for its first line (the URL, or {url} with --json). */
export function serve(vars: Env, ...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: childEnv(vars) });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const stop: Served['stop'] = async (signal = 'SIGTERM') => {
    const started = Date.now();
    child.kill(signal);
    const { code, signal: by } = await exited;
    return { code, signal: by, ms: Date.now() - started };
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc serve printed no URL within 20 s; stdout: ${out} stderr: ${err}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      // Log records the server writes before listening are not the URL; serve.test.ts checks what comes first.
      const first = out
        .split('\n')
        .slice(0, -1)
        .find((line) => !isLogRecord(line));
      if (first === undefined) return;
      clearTimeout(timer);
      const url = first.startsWith('{')
        ? (JSON.parse(first) as { url: string }).url
        : first.replace(/^listening on /, '');
      resolve({ url, child, stdout: () => out, stderr: () => err, stop });
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`svc serve exited (${code}) before printing a URL: ${err}`));
    });
  });
}

/** A line of the server's log (pino: one JSON object with a numeric level), as opposed to the CLI's own output. */
function isLogRecord(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && typeof (value as { level?: unknown }).level === 'number';
  } catch {
    return false;
  }
}

// ---- PostgreSQL ----

export const POSTGRES_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || 5432), hostname, () => done(true));
  });
}

/** Whether PostgreSQL answers here; CI must have it, elsewhere its tests are skipped with a line saying so. */
export const postgresAvailable = await (async () => {
  if (await reachable(POSTGRES_URL)) return true;
  const line = `PostgreSQL at ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} is not reachable`;
  if (IN_CI) throw new Error(`${line}: CI runs the PostgreSQL tests and cannot skip them`);
  console.warn(`SKIPPED: ${line}; the CLI's PostgreSQL tests are skipped on this machine`);
  return false;
})();

/**
 * A new, empty PostgreSQL schema (dropped by `drop`), selected through the
 * connection URL as an operator would: `?options=-c search_path=<schema>`.
 */
export async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `svc_cli_${randomBytes(6).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const url = new URL(POSTGRES_URL);
  url.search = `?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url: url.toString(), drop: () => admin(`drop schema if exists ${schema} cascade`) };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// ---- reading a store ----

/** The store the configuration points at. */
export function storeOf(vars: Env): Store {
  const location: StoreLocation = vars.DATABASE_URL
    ? { kind: 'postgres', url: vars.DATABASE_URL }
    : { kind: 'sqlite', file: join(vars.SVC_DATA_DIR ?? './data', 'svc.db') };
  return openStore(location);
}

/** Row counts of every table, the whole change feed, every history row and the store counters. */
export async function contentsOf(store: Store) {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  const changelog = await store.db.selectFrom('changelog').selectAll().orderBy('id').execute();
  const history = await store.db
    .selectFrom('indicator_history')
    .innerJoin('risk_indicators', 'risk_indicators.risk_indicator_id', 'indicator_history.risk_indicator_id')
    .select([
      'indicator_history.seq',
      'indicator_history.risk_indicator_id',
      'indicator_history.provider_id',
      'indicator_history.published_at',
      'risk_indicators.final_score',
      'risk_indicators.risk_band',
    ])
    .orderBy('indicator_history.seq')
    .execute();
  const meta = await store.db.selectFrom('store_meta').selectAll().orderBy('key').execute();
  const providers = await store.db.selectFrom('providers').selectAll().orderBy('id').execute();
  const issuances = await store.db.selectFrom('issuances').selectAll().orderBy('id').execute();
  return { counts, changelog, history, meta, providers, issuances };
}
