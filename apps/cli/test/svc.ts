import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InputsDocument } from '@svc/methodology';
import { afterAll } from 'vitest';

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

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function svc(...args: string[]): Run {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm build\` before the CLI tests`);
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs with --json and parses stdout, which must be one JSON value. */
export function svcJson(...args: string[]): Run & { json: unknown } {
  const run = svc(...args, '--json');
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
