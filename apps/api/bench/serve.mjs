// The service from the build in a process of its own (started by harness.mjs): the store named by BENCH_STORE
// (JSON of a StoreLocation), the rate limiter through Redis when BENCH_REDIS_URL is set (else in process),
// request logs at info level (to /dev/null: the harness ignores stdout), agent tools on, webhook dispatch off.
// BENCH_DIST names another build of the service to run (ab.mjs compares two).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.BENCH_DIST
  ? pathToFileURL(`${process.env.BENCH_DIST}/`)
  : new URL('../dist/', import.meta.url);
const api = await import(new URL('index.js', dist).href);

const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-serve-'));
const config = api.loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  SVC_DATA_DIR: dataDir,
  SVC_MASTER_KEY: '05'.repeat(32),
  SVC_MCP_ENABLED: 'true',
  SVC_WEBHOOK_DISPATCH: 'false',
  TRUST_PROXY: 'loopback',
  REDIS_URL: process.env.BENCH_REDIS_URL || undefined,
});

try {
  const running = await api.startServer(config, { storeLocation: JSON.parse(process.env.BENCH_STORE ?? '') });
  process.send({ url: running.url });
  process.on('message', async (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
    if (m !== 'stop') return;
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
} catch (error) {
  rmSync(dataDir, { recursive: true, force: true });
  process.send({ error: String(error?.stack ?? error) }, () => process.exit(1));
}
