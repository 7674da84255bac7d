import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * Another process making a SQLite store in WAL mode unreadable, the way SQLite itself does while a process
 * recovers the write-ahead log after a crash: it takes the log's write and recovery locks (POSIX locks on bytes
 * 120 and 122 of the `-shm` file, https://sqlite.org/walformat.html) and leaves the two copies of the wal-index
 * header different, so every reader must wait for the recovery. Readers fail with SQLITE_BUSY_RECOVERY once their
 * busy timeout runs out. `release` puts the header back as it was and unlocks.
 *
 * It has to be another process: POSIX locks never conflict within one. Python's fcntl takes the same locks as
 * SQLite's unix VFS (the suites already need python3 for the Python client). A second SQLite connection cannot do
 * it: `locking_mode=EXCLUSIVE` needs the database file's exclusive lock, which the server's connection (holding a
 * shared lock for as long as it is open in WAL mode) never lets it have.
 */
const HOLDER = `
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
for offset in (120, 122):
    fcntl.lockf(fd, fcntl.LOCK_EX, 1, offset)
header = os.pread(fd, 48, 48)
os.pwrite(fd, bytes(b ^ 0xFF for b in header), 48)
print('held', flush=True)
sys.stdin.readline()
os.pwrite(fd, header, 48)
for offset in (120, 122):
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset)
print('released', flush=True)
`;

export interface SqliteLock {
  release(): Promise<void>;
}

/** Locks the store at `file` (its `-shm` beside it) until `release`. */
export async function lockSqliteStore(file: string): Promise<SqliteLock> {
  const child = spawn('python3', ['-c', HOLDER, `${file}-shm`], { stdio: ['pipe', 'pipe', 'pipe'] });
  await lineFrom(child, 'held');
  return {
    async release() {
      const released = lineFrom(child, 'released');
      child.stdin.write('\n');
      await released;
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    },
  };
}

const WRITER = `
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute('begin immediate')
print('held', flush=True)
sys.stdin.readline()
connection.execute('rollback')
connection.close()
print('released', flush=True)
`;

/**
 * Another process holding the store's write lock (`BEGIN IMMEDIATE` through Python's sqlite3), as a CLI command
 * publishing next to a running `svc serve` does, until `release`. Readers go on (WAL); every writer must wait.
 */
export async function holdSqliteWriteLock(file: string): Promise<SqliteLock> {
  const child = spawn('python3', ['-c', WRITER, file], { stdio: ['pipe', 'pipe', 'pipe'] });
  await lineFrom(child, 'held');
  return {
    async release() {
      const released = lineFrom(child, 'released');
      child.stdin.write('\n');
      await released;
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    },
  };
}

function lineFrom(child: ChildProcessWithoutNullStreams, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.split('\n').includes(line)) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before "${line}": ${err}`)));
    child.once('error', reject);
  });
}
