import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * Encrypts workspace secrets at rest with AES-256-GCM under the master key:
 * `SVC_MASTER_KEY`, or in the embedded default a generated key file
 * (mode 0600) in the data directory.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

/** The master key cannot be used: a configured key of the wrong length, or a key file that does not hold a key. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new MasterKeyError('the master key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(
        ':',
      );
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** A key written as text: 64 hex digits, in SVC_MASTER_KEY (where base64 is also taken) and in the key file. */
const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** The master key from its configured text (64 hex digits or base64), or from the key file, created on first use. */
export function loadMasterKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return HEX_KEY.test(configured) ? Buffer.from(configured, 'hex') : Buffer.from(configured, 'base64');
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) createKeyFile(file, dataDir);
  chmodSync(file, 0o600);
  const text = readFileSync(file, 'utf8').trim();
  if (!HEX_KEY.test(text)) {
    throw new MasterKeyError(
      `the key file ${file} does not hold a key (64 hex digits; it holds ${text.length} characters): restore it from ` +
        'its backup, or set SVC_MASTER_KEY to the key',
    );
  }
  return Buffer.from(text, 'hex');
}

/**
 * Creates the key file whole and on disk before any secret is sealed under it (decision 0044): the key is written to a
 * file of its own and synced, then linked into place, and the folder synced so that the name survives a power loss
 * with the store's commits. A link never replaces a file, so two processes starting at once both use the key that
 * was linked first, and no process ever reads a key file half written. On a filesystem without hard links the key
 * file is written in place (`wx`) and synced.
 */
function createKeyFile(file: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  const written = join(dir, `.master.key.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeSynced(written, key);
  try {
    linkSync(written, file);
  } catch (error) {
    // EEXIST: another process made the key file first, and that key is the one to use.
    if (codeOf(error) === 'EEXIST') return;
    if (!NO_HARD_LINKS.has(codeOf(error))) throw error;
    try {
      writeSynced(file, key);
    } catch (inPlace) {
      if (codeOf(inPlace) !== 'EEXIST') throw inPlace;
    }
  } finally {
    unlinkSync(written);
  }
  syncFolder(dir);
}

/** What linkSync fails with on a filesystem without hard links (some network and removable-media filesystems). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/** Creates a file holding this text only (it must not exist), mode 0600, synced to disk; removed if that fails. */
function writeSynced(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  closeSync(fd);
}

/** Syncs a folder's entries to disk, where the platform can (Windows cannot open a folder to sync it). */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
