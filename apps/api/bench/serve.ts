// The service from the build in a process of its own (started by harness.ts): the store named by BENCH_STORE
// (JSON of a StoreLocation), the rate limiter through Redis when BENCH_REDIS_URL is set (else in process),
// request logs at info level (to /dev/null: the harness ignores stdout), agent tools on, webhook dispatch off.
// BENCH_DIST names another build of the service to run (ab.ts compares two).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoreLocation } from '@svc/api';
import type { ChildMessage } from './harness.js';

type Api = typeof import('@svc/api');
const api: Api = process.env.BENCH_DIST
  ? await import(new URL('index.js', pathToFileURL(`${process.env.BENCH_DIST}/`)).href)
  : await import('@svc/api');
const send = (m: ChildMessage, then?: () => void) => process.send?.(m, undefined, undefined, then);

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
  const storeLocation = JSON.parse(process.env.BENCH_STORE ?? '') as StoreLocation;
  const running = await api.startServer(config, { storeLocation });
  send({ url: running.url });
  process.on('message', async (m) => {
    if (m === 'cpu') send({ cpu: process.cpuUsage() });
    if (m !== 'stop') return;
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
} catch (error) {
  rmSync(dataDir, { recursive: true, force: true });
  send({ error: String((error as Error)?.stack ?? error) }, () => process.exit(1));
}
