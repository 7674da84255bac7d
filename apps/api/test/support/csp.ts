import { expect } from 'vitest';

/** The directives of a Content-Security-Policy header, by name. */
export function cspOf(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  const out = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name, values);
  }
  return out;
}

/** The strict policy: nothing but the service's own styles; forms sent nowhere, or (a page with a form) to itself. */
export function expectStrictCsp(res: Response, options: { formAction?: "'none'" | "'self'" } = {}): void {
  const csp = cspOf(res);
  expect(csp.get('default-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'none'"]);
  expect(csp.get('form-action')).toEqual([options.formAction ?? "'none'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  const scripts = csp.get('script-src') ?? csp.get('default-src') ?? [];
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  for (const values of csp.values()) for (const v of values) expect(v).not.toMatch(/^https?:|^\*$/);
}
