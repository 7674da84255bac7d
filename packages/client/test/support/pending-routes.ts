import type { TestContext } from 'vitest';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * Skips a test whose endpoint is in the contracts but not yet served (the API answers `404 no route`), with a line
 * saying so. CI never skips: there a missing route fails the test like any other break.
 */
export async function skipUntilRouted(ctx: TestContext, baseUrl: string, method: string, path: string): Promise<void> {
  if (IN_CI) return;
  const body = method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' };
  const res = await fetch(`${baseUrl}${path}`, { method, ...body });
  const problem = (await res.json().catch(() => null)) as { code?: string; detail?: string } | null;
  if (res.status === 404 && problem?.code === 'not_found' && problem.detail?.startsWith('no route')) {
    console.warn(`SKIPPED: the API has no route ${method} ${path} yet; "${ctx.task.name}" waits on it`);
    ctx.skip();
  }
}
