import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMasterKey } from '../../src/services/shared/secrets.js';

/**
 * The embedded default's key file (decision 0044): created in a file of its own and linked into place, so nothing but
 * the key file is left; a file that does not hold a key refused by name, never read as a shorter key. (That the file
 * is synced, and that a link never replaces a key another process linked first, no test here can show: a race of
 * processes on two cores almost never lands in the window between looking for the file and making it.)
 */
const folders: string[] = [];
const folder = () => {
  const made = mkdtempSync(join(tmpdir(), 'svc-master-key-'));
  folders.push(made);
  return made;
};
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('the master key file of the embedded default', () => {
  it('is created with 64 hex digits, mode 0600, nothing else left in the folder, and read back the same', () => {
    const dataDir = join(folder(), 'data');
    const key = loadMasterKey(null, dataDir);
    expect(key.length).toBe(32);
    const file = join(dataDir, 'master.key');
    expect(readFileSync(file, 'utf8')).toBe(key.toString('hex'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual(['master.key']);
    expect(loadMasterKey(null, dataDir).equals(key)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['cut short', 'ab'.repeat(20)],
    ['not hex', 'zz'.repeat(32)],
    ['too long', 'ab'.repeat(33)],
    ['64 characters with a NUL and a letter outside ASCII', `${'ab'.repeat(31)}\u0000é`],
  ])('that is %s is refused, naming the file, and left as it is', (_, text) => {
    const dataDir = folder();
    const file = join(dataDir, 'master.key');
    writeFileSync(file, text, { mode: 0o600 });
    expect(() => loadMasterKey(null, dataDir)).toThrow(
      `the key file ${file} does not hold a key (64 hex digits; it holds ${text.length} characters)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a configured key is used as given, and no file is made', () => {
    const dataDir = folder();
    const hex = 'c0'.repeat(32);
    expect(loadMasterKey(hex, dataDir).toString('hex')).toBe(hex);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
