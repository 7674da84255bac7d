import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readJson } from '@svc/methodology';
import { asCliError, CliError } from './errors.js';

const BOM = '\uFEFF';
/** Keeps a BOM in the text (ignoreBOM), so verify can tell that such a file is not canonical. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type PathKind = 'file' | 'directory';

export async function pathKind(path: string): Promise<PathKind> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'file';
  } catch (error) {
    throw unreadable(path, error);
  }
}

/** A file's text exactly as stored (a BOM included); refuses bytes that are not UTF-8. */
export async function readText(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new CliError('unreadable', `cannot read ${path}: not UTF-8 text`, { cause: error });
  }
}

/** Parses with the engine's lossless reader (never JSON.parse), after a UTF-8 BOM. */
export function parseJson(text: string, path: string): unknown {
  try {
    return readJson(text.startsWith(BOM) ? text.slice(BOM.length) : text);
  } catch (error) {
    throw asCliError(error, path);
  }
}

export async function readJsonFile(path: string): Promise<unknown> {
  return parseJson(await readText(path), path);
}

/** The `*.json` files of a folder, in code-unit order of their names (never locale order). */
export async function listJsonFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    const candidates = entries.filter((e) => e.name.endsWith('.json') && (e.isFile() || e.isSymbolicLink()));
    const files = await Promise.all(
      candidates.map(async (e) => ((await stat(join(dir, e.name)).catch(() => null))?.isFile() ? e.name : null)),
    );
    names = files.filter((name): name is string => name !== null);
  } catch (error) {
    throw unreadable(dir, error);
  }
  if (names.length === 0) throw new CliError('empty_directory', `${dir} holds no *.json files to score`);
  return names.sort().map((name) => join(dir, name));
}

/** Writes exactly these characters as UTF-8 (no newline added), making the folders it is in when they are missing. */
export async function writeText(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  } catch (error) {
    throw cannotWrite(path, error);
  }
}

export async function ensureDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    throw cannotWrite(path, error);
  }
}

function unreadable(path: string, error: unknown): CliError {
  return new CliError('unreadable', `cannot read ${path}: ${reason(error)}`, { cause: error });
}

function cannotWrite(path: string, error: unknown): CliError {
  return new CliError('cannot_write', `cannot write ${path}: ${reason(error)}`, { cause: error });
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'a file of that name exists',
};

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && REASONS[code] !== undefined) return REASONS[code];
  return error instanceof Error ? error.message : String(error);
}
