import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { LimitDecision } from '../services/shared/rate-limit.js';

/** The security headers of every answer: helmet's defaults, a CSP that allows nothing (JSON needs nothing). */
export const securityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    },
  },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
});

/** CORS for `/api`: any origin, no credentials (keys travel in a header the browser must be allowed to send). */
export const apiCors = cors({
  origin: '*',
  // mcp-protocol-version: MCP clients in a browser send it on every request after initialize.
  allowedHeaders: ['x-api-key', 'content-type', 'if-none-match', 'x-request-id', 'mcp-protocol-version'],
  exposedHeaders: [
    'x-request-id',
    'RateLimit',
    'RateLimit-Policy',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
    'ETag',
    'Link',
    'Deprecation',
    'Sunset',
  ],
  maxAge: 600,
  // The route's own OPTIONS answer (204 with Allow) or a 404 follows the CORS headers.
  preflightContinue: true,
});

export type HeaderList = readonly (readonly [name: string, value: string])[];

/**
 * The headers a middleware sets on a GET, read once by running it against a response that only records them.
 * For middleware whose headers do not depend on the request (helmet's; CORS with origin `*` outside a
 * preflight): setting the recorded list costs a loop, where the middleware runs a dozen functions per request.
 * Throws when the middleware does not pass the request on at once, or sets a header that is not plain text.
 */
export function recordHeaders(middleware: RequestHandler): HeaderList {
  const headers = new Map<string, [string, string]>();
  const res = {
    statusCode: 200,
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') throw new Error(`header ${name} is not a string`);
      headers.set(name.toLowerCase(), [name, value]);
      return res;
    },
    getHeader: (name: string) => headers.get(name.toLowerCase())?.[1],
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
  const req = { method: 'GET', headers: {}, url: '/', path: '/' };
  let passed = false;
  middleware(req as unknown as Request, res as unknown as Response, (error?: unknown) => {
    if (error) throw error;
    passed = true;
  });
  if (!passed) throw new Error('the middleware did not pass the request on at once');
  return Object.freeze([...headers.values()].map((h) => Object.freeze(h)));
}

/** Where `app.use('/api', …)` applies: Express matches mount paths without regard to case. */
const API_PATH = /^\/api(\/|$)/i;

/** Every answer's security headers, and on `/api` the CORS headers; a preflight still goes through `apiCors`. */
export function standardHeaders(): { site: HeaderList; api: HeaderList; middleware: RequestHandler } {
  const site = recordHeaders(securityHeaders);
  const api = Object.freeze([...site, ...recordHeaders(apiCors)]);
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const isApi = API_PATH.test(req.path);
    if (isApi && req.method === 'OPTIONS') {
      for (const [name, value] of site) res.setHeader(name, value);
      apiCors(req, res, next);
      return;
    }
    for (const [name, value] of isApi ? api : site) res.setHeader(name, value);
    next();
  };
  return { site, api, middleware };
}

/** The rate-limit headers of an answer that spent a limit: IETF draft names and the older X- ones. */
export function rateLimitHeaders(d: LimitDecision): [string, string][] {
  const name = d.windowSeconds === 3600 ? 'hour' : 'minute';
  return [
    ['RateLimit-Policy', `"${name}";q=${d.limit};w=${d.windowSeconds}`],
    ['RateLimit', `"${name}";r=${d.remaining};t=${d.resetSeconds}`],
    ['X-RateLimit-Limit', String(d.limit)],
    ['X-RateLimit-Remaining', String(d.remaining)],
    ['X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + d.resetSeconds)],
  ];
}
