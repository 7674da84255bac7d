import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { canonicalJson, type InputsDocument, readJson, sha256Hex } from '@svc/methodology';
import { afterAll } from 'vitest';
import { run } from '../src/program.js';

/** The built CLI: the tests run it as users do and build nothing (turbo's test task depends on build). */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
export const EXAMPLES = fileURLToPath(new URL('../../../examples/dcrf-1.0/', import.meta.url));

/** The five approved-inputs documents of the examples folder (their expected figures live in expected/). */
export const EXAMPLE_INPUTS = [
  'low-band.json',
  'missing-inputs.json',
  'multiple-caps.json',
  'stale-evidence.json',
  'worked-example.json',
] as const;

export const WORKED_EXAMPLE = join(EXAMPLES, 'worked-example.json');

/** The inputs_sha256 of an approved-inputs document's text: what `svc inputs show` prints for its submission. */
export function inputsSha256(text: string): string {
  return sha256Hex(canonicalJson(readJson(text)));
}

/** Each example document's inputs_sha256, by its provider id. */
const EXAMPLE_SHA256 = new Map(
  EXAMPLE_INPUTS.map((name) => {
    const text = readFileSync(join(EXAMPLES, name), 'utf8');
    return [(JSON.parse(text) as InputsDocument).provider.id, inputsSha256(text)] as const;
  }),
);

/**
 * `--sha256 HASH` for each named provider's example document, as an approver pins what `svc inputs show` showed
 * (`svc inputs approve ID... ...pins(ID...)`); a provider with no example document is a mistake in the test.
 */
export function pins(...providerIds: string[]): string[] {
  return providerIds.flatMap((id) => {
    const sha = EXAMPLE_SHA256.get(id);
    if (sha === undefined) throw new Error(`no example document for provider ${id}: pin its own document's hash`);
    return ['--sha256', sha];
  });
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A stream a run writes to, kept as text; never a terminal. */
class Captured {
  text = '';
  readonly isTTY = false;
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/**
 * Runs `svc ARGS` in this process, through the CLI's own `run` (what `bin.ts` calls with the process's streams), with
 * this environment and `input` on standard input: its exit code, standard output and standard error. A process adds
 * nothing a test here looks at; the few that need one (the bin entry, signals, a closed pipe, a terminal, `serve`, exit
 * codes as a shell sees them) start the built `svc` themselves.
 */
export async function runSvc(env: NodeJS.ProcessEnv, args: readonly string[], input = ''): Promise<Run> {
  const stdout = new Captured();
  const stderr = new Captured();
  const stdin = Readable.from(input === '' ? [] : [input]);
  const status = await run([process.execPath, BIN, ...args], { env, stdout, stderr, stdin });
  return { status, stdout: stdout.text, stderr: stderr.text };
}

/** `svc ARGS` with this process's environment. */
export function svc(...args: string[]): Promise<Run> {
  return runSvc({ ...process.env }, args);
}

/** Runs with --json and parses stdout, which must be one JSON value. */
export async function svcJson(...args: string[]): Promise<Run & { json: unknown }> {
  const run = await svc(...args, '--json');
  return { ...run, json: JSON.parse(run.stdout) };
}

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary folder, removed after the test file. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  made.push(dir);
  return dir;
}

/** A temporary folder holding copies of the named example files. */
export async function folderOf(names: readonly string[]): Promise<string> {
  const dir = await tempDir();
  await Promise.all(names.map((name) => copyFile(join(EXAMPLES, name), join(dir, name))));
  return dir;
}

export async function readExample(name = 'worked-example.json'): Promise<InputsDocument> {
  return JSON.parse(await readFile(join(EXAMPLES, name), 'utf8')) as InputsDocument;
}

/** Writes a value (or text) to a temporary file and returns its path. */
export async function writeTemp(name: string, content: unknown, dir?: string): Promise<string> {
  const path = join(dir ?? (await tempDir()), name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** A stack frame line as Node prints it. */
export const STACK_FRAME = /\n\s{4}at /;
