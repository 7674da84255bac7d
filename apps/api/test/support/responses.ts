import {
  ERROR_CODES,
  type ErrorCode,
  HistoryPublicationSchema,
  type Problem,
  ProblemSchema,
  ScoreHistoryResponseSchema,
} from '@svc/contracts';
import { expect } from 'vitest';
import { z } from 'zod';

/** Assertions on HTTP answers, shared by every suite that talks to a server. */

/** A history of publications only (no withdrawal in it): the contract's history, narrowed to its publications. */
export const PublicationsHistorySchema = ScoreHistoryResponseSchema.extend({
  data: z.array(HistoryPublicationSchema),
}).strict();

/** Asserts a 2xx JSON answer and parses its body with the contract schema. */
export async function expectJson<S extends z.ZodType>(res: Response, schema: S, status = 200): Promise<z.infer<S>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  return schema.parse(JSON.parse(text));
}

const StrictProblemSchema = ProblemSchema.strict();

/** Asserts an RFC 9457 problem with the code's status from ERROR_CODES, and returns it. */
export async function expectProblem(res: Response, code: ErrorCode): Promise<Problem> {
  const text = await res.text();
  expect(res.status, text).toBe(ERROR_CODES[code].status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
  expect(text).not.toContain('    at ');
  const problem = StrictProblemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(res.status);
  expect(problem.title).toBe(ERROR_CODES[code].title);
  expect(problem.type).toMatch(new RegExp(`/docs/errors#${code}$`));
  expect(problem.request_id).toBe(res.headers.get('x-request-id'));
  return problem;
}

/** A 400 whose `errors` name exactly these paths (in any order). */
export async function expectInvalid(res: Response, paths: string[]): Promise<Problem> {
  const problem = await expectProblem(res, 'invalid_request');
  expect([...new Set((problem.errors ?? []).map((e) => e.path))].sort()).toEqual([...paths].sort());
  for (const e of problem.errors ?? []) expect(e.message.length).toBeGreaterThan(0);
  return problem;
}

/** The target of a `Link: <...>; rel="next"` header, or null. */
export function nextLinkOf(res: Response): string | null {
  const link = res.headers.get('link');
  if (link === null) return null;
  const match = /^<([^>]+)>;\s*rel="next"$/.exec(link);
  if (!match?.[1]) throw new Error(`unexpected Link header: ${link}`);
  return match[1];
}

/** The rate-limit headers of an answer, as numbers where they are numbers. */
export function limitHeadersOf(res: Response) {
  const h = res.headers;
  return {
    policy: h.get('ratelimit-policy'),
    rateLimit: h.get('ratelimit'),
    limit: numberOrNull(h.get('x-ratelimit-limit')),
    remaining: numberOrNull(h.get('x-ratelimit-remaining')),
    reset: numberOrNull(h.get('x-ratelimit-reset')),
  };
}

function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value);
}

/** Asserts that an answer carries no rate-limit header at all. */
export function expectNoLimitHeaders(res: Response): void {
  for (const name of [
    'ratelimit',
    'ratelimit-policy',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ]) {
    expect(res.headers.get(name), name).toBeNull();
  }
}

/** A documentation-range client address (RFC 5737) for X-Forwarded-For, one per `n`. */
export function clientIp(n: number): string {
  return `198.51.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}
