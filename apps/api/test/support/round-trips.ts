import pg from 'pg';

/**
 * Runs `work` with the text of every statement the PostgreSQL driver sends in this process collected, in order: each
 * call of pg's Client.query is one round trip to the server (the real driver, watched, not replaced).
 */
export async function sentStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    const [config] = args as unknown[];
    statements.push(typeof config === 'string' ? config : (config as { text: string }).text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}
