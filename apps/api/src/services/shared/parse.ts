import type { FieldProblem } from '@svc/contracts';
import type { z } from 'zod';
import { ServiceError } from '../errors.js';

/** Which part of an input a value is: its path parameters, its query, or its body (a tool's arguments). */
export type InputPart = 'path' | 'query' | 'body';

/**
 * Parses one part of an input with its contract schema, or throws invalid_request listing every problem, each
 * named by its path from the part (`query.limit`, `body.website`), so every transport reports the same problems.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, part: InputPart): z.infer<T> {
  // zod 4 leaves `issue.input` out unless asked; messageOf needs it to tell a missing value from a wrong one.
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const errors: FieldProblem[] = parsed.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: join(part, [...issue.path, key]),
        message: `is not a ${noun(part)} of this endpoint`,
      }));
    }
    return [{ path: join(part, issue.path), message: messageOf(issue, part) }];
  });
  const summary = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  throw new ServiceError('invalid_request', `invalid ${part === 'path' ? 'path parameter' : part}: ${summary}`, errors);
}

function join(part: string, path: PropertyKey[]): string {
  return [part, ...path.map(String)].join('.');
}

function noun(part: string): string {
  return part === 'query' ? 'query parameter' : part === 'body' ? 'field' : 'path parameter';
}

function messageOf(issue: z.core.$ZodIssue, part: string): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_type' && part === 'query' && Array.isArray(issue.input)) return 'must be given once';
  if (issue.code === 'invalid_type' && part === 'body') return `must be ${article(issue.expected)}`;
  return issue.message;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
