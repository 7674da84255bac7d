import { afterEach } from 'vitest';

// The CLI's tests run `svc` through spawnSync, which holds this worker's event loop while the command runs, and a
// file of such tests never lets it turn. Vitest waits 60 s for the main process to answer the worker's reports
// (vitest-dev/vitest#8164): a file holding the loop longer fails a run whose tests all passed, with "Timeout calling
// onTaskUpdate" (CI, 2026-11-26). After each test the loop turns once, so the answers are read in time.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
