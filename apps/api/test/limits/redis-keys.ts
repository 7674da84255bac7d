import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../support/environment.js';

/** A key prefix no other test (or run) uses, so Redis state never leaks between tests. */
export function uniquePrefix(): string {
  return `svc:test:rl:${randomUUID()}:`;
}

/** Deletes the keys under a prefix (and only those): nothing is flushed globally. */
export async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
