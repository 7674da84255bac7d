/** Requests to the API servers of the limits suites (started with test/support/server.ts). */

/** A GET that fails the test instead of hanging. */
export function get(baseUrl: string, path: string, key?: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    headers: key ? { 'x-api-key': key } : {},
    signal: AbortSignal.timeout(5000),
  });
}

export async function rateLimitStoreState(baseUrl: string): Promise<string> {
  const res = await get(baseUrl, '/api/v1/status');
  const body = (await res.json()) as { components: { rate_limit_store: string } };
  return body.components.rate_limit_store;
}

/** Polls until the check passes or the time is up; returns how long it took. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
