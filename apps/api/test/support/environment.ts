import { Socket } from 'node:net';

/** PostgreSQL and Redis on this machine; CI must have both, elsewhere the suites that need them are skipped. */
export const POSTGRES_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Which store engines to run the store-backed suites on: SVC_TEST_STORES=sqlite,postgres (default both). */
export const STORE_ENGINES = (process.env.SVC_TEST_STORES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is 'sqlite' | 'postgres' => s === 'sqlite' || s === 'postgres');

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
    socket.connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}

/**
 * Whether a service answers. In CI a missing service fails the run loudly;
 * elsewhere the suite is skipped with a line saying so.
 */
async function available(name: string, url: string): Promise<boolean> {
  if (await reachable(url)) return true;
  const line = `${name} at ${url.replace(/\/\/[^@]*@/, '//')} is not reachable`;
  if (IN_CI) throw new Error(`${line}: CI runs the ${name} suites and cannot skip them`);
  console.warn(`SKIPPED: ${line}; its suites are skipped on this machine`);
  return false;
}

export const postgresAvailable = STORE_ENGINES.includes('postgres')
  ? await available('PostgreSQL', POSTGRES_URL)
  : false;
export const redisAvailable = await available('Redis', REDIS_URL);
