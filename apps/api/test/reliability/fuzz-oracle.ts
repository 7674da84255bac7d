import { type Endpoint, ERROR_CODES, endpoints, ProblemSchema } from '@svc/contracts';
import type { z } from 'zod';
import type { Answer } from './fuzz-client.js';
import type { Operation } from './fuzz-operations.js';

/** What a fuzzed answer must be: never a 5xx, a documented problem when it fails, the contract's shape when it succeeds. */

const StrictProblemSchema = ProblemSchema.strict();
const CONTRACT = endpoints as Record<string, Endpoint>;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The media type of a Content-Type header, without parameters. */
const essenceOf = (type: string | undefined) => (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * Everything wrong with an answer (empty when it is right). `op` is the operation that answered the request;
 * undefined when no operation's path matches, where only a 404 or 405 problem is right, or the transport's 431 for
 * a request head over 16 KiB, which is refused before any path is read (a long query on an unknown path).
 */
export function faultsOf(op: Operation | undefined, answer: Answer): string[] {
  const { status } = answer;
  if (status >= 500) return [`a ${status}`, ...problemFaults(answer, undefined)];
  if (!op) {
    if (status !== 404 && status !== 405 && status !== 431) {
      return [`${status} for a path no operation has (want a 404 or 405 problem, or a 431 for a head too large)`];
    }
    return problemFaults(answer, undefined);
  }
  const media = op.responses.get(status);
  if (!media) return [`${status} is not a documented answer of ${op.id} (${[...op.responses.keys()].join(', ')})`];
  if (status >= 200 && status < 300) return successFaults(op, answer, media);
  // A status documented as a problem only must be one; one documented with other media too (a page's 400: its HTML
  // page, or the problem for an id that cannot be read) must be a problem when it says it is, else a documented type.
  const problem = essenceOf(answer.headers['content-type']) === 'application/problem+json';
  if (media.includes('application/problem+json') && (media.length === 1 || problem)) {
    return problemFaults(answer, CONTRACT[op.id]);
  }
  return mediaFaults(answer, media);
}

function successFaults(op: Operation, answer: Answer, media: string[]): string[] {
  const faults = mediaFaults(answer, media);
  if (faults.length > 0 || essenceOf(answer.headers['content-type']) !== 'application/json') return faults;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch (error) {
    return [`the body is not JSON: ${(error as Error).message}`];
  }
  const schema: z.ZodType | undefined = CONTRACT[op.id]?.success.schema;
  const parsed = schema?.safeParse(body);
  if (parsed && !parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`);
    return [`the body breaks the ${op.id} schema: ${issues.join('; ')}`];
  }
  return [];
}

/** The body has one of the documented media types (none: no body at all), and text is UTF-8. */
function mediaFaults(answer: Answer, media: string[]): string[] {
  if (media.length === 0) return answer.body.length === 0 ? [] : [`a body where none is documented`];
  const type = essenceOf(answer.headers['content-type']);
  if (!media.includes(type))
    return [`content type "${answer.headers['content-type'] ?? ''}", want ${media.join(' or ')}`];
  try {
    utf8.decode(answer.body);
  } catch {
    return ['the body is not UTF-8'];
  }
  return [];
}

/** RFC 9457 problem details whose status and code agree with ERROR_CODES (and with the endpoint's errors). */
function problemFaults(answer: Answer, endpoint: Endpoint | undefined): string[] {
  const type = answer.headers['content-type'] ?? '';
  if (essenceOf(type) !== 'application/problem+json') return [`a ${answer.status} as "${type}", not problem+json`];
  const text = answer.body.toString('utf8');
  if (text.includes('    at ')) return ['a stack trace in the problem'];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return ['the problem is not JSON'];
  }
  const parsed = StrictProblemSchema.safeParse(json);
  if (!parsed.success) return [`the problem breaks the Problem schema: ${parsed.error.issues[0]?.message}`];
  const problem = parsed.data;
  const faults: string[] = [];
  if (problem.status !== answer.status) faults.push(`problem.status ${problem.status} on a ${answer.status}`);
  if (ERROR_CODES[problem.code].status !== answer.status) {
    faults.push(`code ${problem.code} is a ${ERROR_CODES[problem.code].status}, sent as ${answer.status}`);
  }
  if (endpoint && !endpoint.errors.includes(problem.code)) faults.push(`code ${problem.code} is not among its errors`);
  if ((answer.status === 429 || answer.status === 503) && !answer.headers['retry-after']) {
    faults.push('no Retry-After');
  }
  return faults;
}
