import type { Endpoint } from '@svc/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseInput } from '../services/shared/parse.js';
import { ApiError } from './problem.js';

/** The path parameters, query and body of a request, parsed by the contract's schemas (invalid_request otherwise). */
export function parseRequest(e: Endpoint, req: Request, res: Response) {
  const params = e.params ? parseInput(e.params, req.params, 'path') : {};
  // A route without query parameters, asked without a query string: nothing to parse (the common case).
  const query =
    e.query || req.url.includes('?') ? parseInput(e.query ?? noQuery, singleValued(req.query), 'query') : {};
  const body = e.body ? parseInput(e.body, res.locals.body, 'body') : undefined;
  return { params, query, body };
}

const noQuery = z.strictObject({});

/** Repeated query parameters are refused rather than guessed at. */
function singleValued(query: Request['query']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const repeated = Object.entries(query).filter(([, v]) => Array.isArray(v));
  if (repeated.length > 0) {
    const errors = repeated.map(([k]) => ({ path: `query.${k}`, message: 'must be given once' }));
    throw new ApiError('invalid_request', `invalid query: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  for (const [k, v] of Object.entries(query)) out[k] = v;
  return out;
}
