import {
  apiErrorCode,
  type Endpoint,
  ERROR_CODES,
  type LimitName,
  PUBLIC_LIMITS,
  TIER_HOURLY_LIMIT,
  TIER_RANK,
} from '@svc/contracts';
import { JsonSyntaxError, readJson } from '@svc/methodology';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Caller } from '../services/context.js';
import { ServiceError } from '../services/errors.js';
import type { LimitDecision } from '../services/rate-limit.js';
import type { Services } from '../services/services.js';
import { isStoreUnavailable } from '../store/store.js';
import { rateLimitHeaders, standardHeaders } from './headers.js';
import { requestContext } from './middleware.js';
import { mediaTypesOf, refuseUnacceptable } from './negotiation.js';
import { ApiError, sendProblem } from './problem.js';
import type { Reply, RouteModule } from './route.js';
import { routes } from './routes/index.js';
import { registerSitePages, SITE_PATHS } from './site.js';
import { parsePart } from './validate.js';

export interface AppOptions {
  trustProxy: boolean | number | string;
  /** How long a request body may take to arrive in full (default 10 s). */
  bodyTimeoutMs?: number;
}

const BODY_LIMIT = 64 * 1024;
const RETRY_AFTER_UNAVAILABLE = '5';

/** The Express app: every route of the contract, the site pages, and one error path. */
export function buildApp(services: Services, options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express's own error page prints stacks outside production; ours never does, but leave nothing to chance.
  app.set('env', 'production');
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy);
  app.set('query parser', 'simple');
  app.set('siteUrl', services.siteUrl);

  // One middleware, not two: every layer costs each request a walk of the router.
  app.use(requestContext(services.logger, standardHeaders().middleware));
  app.set('bodyTimeoutMs', options.bodyTimeoutMs ?? 10_000);

  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const path = expressPath(route.endpoint.path);
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(route.endpoint.method.toUpperCase());
    methodsByPath.set(path, methods);
    const body = route.endpoint.body ? [jsonBody] : [];
    app[route.endpoint.method](path, ...body, handlerOf(route, services));
  }
  registerSitePages(app, services);
  for (const [path, methods] of [...methodsByPath, ...SITE_PATHS.map((p) => [p, new Set(['GET'])] as const)]) {
    app.all(path, methodNotAllowed(methods));
  }
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError('not_found', `no route ${req.method} ${req.path}`));
  });
  app.use(errorHandler(services));
  return app;
}

/** `/api/v1/scores/{providerId}` in Express's form. */
function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function handlerOf(route: RouteModule, services: Services) {
  const e = route.endpoint;
  const served = route.negotiates ? [] : mediaTypesOf(e);
  return async (req: Request, res: Response): Promise<void> => {
    refuseUnacceptable(req, served);
    const caller = e.tier ? await authenticate(req, res, services, e) : null;
    if (caller) route.admit?.(caller, services);
    if (route.replay) {
      // A request the route has answered before is answered again without spending the route's own limit.
      const ctx = { ...parseRequest(e, req, res), caller, services, req };
      const replayed = await route.replay.answer(ctx);
      await admitWithin(req, res, services, replayed ? route.replay.limit : e.limit, caller);
      send(res, e, replayed ?? (await route.handle(ctx)));
      return;
    }
    await admitWithin(req, res, services, e.limit, caller);
    send(res, e, await route.handle({ ...parseRequest(e, req, res), caller, services, req }));
  };
}

/** Spends one request of a limit and sets its headers; refuses with 429 when it is spent. */
async function admitWithin(
  req: Request,
  res: Response,
  services: Services,
  limit: LimitName,
  caller: Caller | null,
): Promise<void> {
  const decision = await spend(req, services, limit, caller);
  if (!decision) return;
  setLimitHeaders(res, decision);
  if (!decision.allowed) {
    const retryAfter = Math.max(1, decision.resetSeconds);
    throw new ApiError(
      'rate_limited',
      `the limit of ${decision.limit} requests per ${decision.windowSeconds === 3600 ? 'hour' : 'minute'} is spent; retry after ${retryAfter} s`,
      { retry_after_seconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}

/** The path parameters, query and body, parsed by the contract's schemas. */
function parseRequest(e: Endpoint, req: Request, res: Response) {
  const params = e.params ? parsePart(e.params, req.params, 'path') : {};
  // A route without query parameters, asked without a query string: nothing to parse (the common case).
  const query = e.query || req.url.includes('?') ? parsePart(e.query ?? noQuery, singleValued(req.query), 'query') : {};
  const body = e.body ? parsePart(e.body, res.locals.body, 'body') : undefined;
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

async function authenticate(req: Request, res: Response, services: Services, e: Endpoint): Promise<Caller> {
  const presented = req.headers['x-api-key'];
  if (typeof presented !== 'string' || presented === '') {
    throw new ApiError('missing_api_key', 'this endpoint needs an API key in the x-api-key header');
  }
  const caller = await services.auth.authenticate(presented.trim());
  if (!caller) throw new ApiError('invalid_api_key', 'the API key is not valid');
  res.locals.keyId = caller.keyId;
  const required = e.tier ?? 'FREE';
  if (TIER_RANK[caller.tier] < TIER_RANK[required]) {
    throw new ApiError(
      'insufficient_tier',
      `this endpoint needs tier ${required} or above; the key is ${caller.tier}`,
      {
        required_tier: required,
      },
    );
  }
  return caller;
}

async function spend(
  req: Request,
  services: Services,
  name: LimitName,
  caller: Caller | null,
): Promise<LimitDecision | null> {
  if (name === 'none') return null;
  if (name === 'key') {
    const who = caller as Caller;
    return services.limiter.consume(`key:${who.keyId}`, TIER_HOURLY_LIMIT[who.tier], 3600);
  }
  const { limit, windowSeconds } = PUBLIC_LIMITS[name];
  return services.limiter.consume(`ip:${name}:${req.ip ?? 'unknown'}`, limit, windowSeconds);
}

function setLimitHeaders(res: Response, d: LimitDecision): void {
  for (const [name, value] of rateLimitHeaders(d)) res.setHeader(name, value);
}

function send(res: Response, e: Endpoint, reply: Reply): void {
  res.statusCode = reply.status ?? e.success.status;
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  // Content-Length set here, not left to Node, so a HEAD answer carries it too (and keeps the connection).
  if (reply.jsonText !== undefined || reply.json !== undefined) {
    const text = reply.jsonText ?? JSON.stringify(reply.json);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  } else if (reply.body !== undefined) {
    res.setHeader('Content-Type', reply.contentType ?? 'application/octet-stream');
    res.setHeader('Content-Length', Buffer.byteLength(reply.body));
    res.end(reply.body);
  } else {
    res.end();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a JSON body: application/json only, 64 KiB at most, UTF-8, parsed exactly (numbers as written). */
async function jsonBody(req: Request, res: Response, next: NextFunction): Promise<void> {
  const type = req.get('content-type') ?? '';
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
    throw new ApiError(
      'unsupported_media_type',
      `the body must be application/json, not ${type ? `"${type}"` : 'untyped'}`,
    );
  }
  const declared = Number(req.get('content-length') ?? '0');
  if (declared > BODY_LIMIT) throw new ApiError('payload_too_large', `the body is limited to ${BODY_LIMIT} bytes`);
  const bytes = await readBody(req, req.app.get('bodyTimeoutMs') as number);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'the body is not valid UTF-8', {
      errors: [{ path: 'body', message: 'is not valid UTF-8' }],
    });
  }
  let body: unknown;
  try {
    body = readJson(text);
  } catch (error) {
    const message = error instanceof JsonSyntaxError ? `is not valid JSON: ${error.message}` : 'is not valid JSON';
    throw new ApiError('invalid_request', `the body ${message}`, { errors: [{ path: 'body', message }] });
  }
  const errors = unstorableStrings(body, 'body');
  if (errors.length > 0) {
    throw new ApiError('invalid_request', `invalid body: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  res.locals.body = body;
  next();
}

/**
 * The client went away before its body arrived: nobody is left to answer, and it says nothing about the store
 * (the stream's ECONNRESET is the client's connection, not the database's).
 */
class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

/** The body's bytes, at most BODY_LIMIT of them, arriving in full within `timeoutMs`. */
function readBody(req: Request, timeoutMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        req.pause();
        finish(() => reject(new ApiError('payload_too_large', `the body is limited to ${BODY_LIMIT} bytes`)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks)));
    const onError = () =>
      finish(() => reject(new ClientGoneError('the client closed the connection before the body arrived')));
    const onClose = () => {
      if (!req.complete) onError();
    };
    const timer = setTimeout(() => {
      req.pause();
      finish(() =>
        reject(
          new ApiError(
            'request_timeout',
            `the request body did not arrive in full within ${timeoutMs / 1000} s`,
            {},
            { Connection: 'close' },
          ),
        ),
      );
    }, timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Strings no store keeps faithfully: lone surrogates (not Unicode; RFC 8785 refuses them) and NUL (PostgreSQL text
 * refuses it). Refused for every body, whatever its schema. Walked with a stack of its own, in document order, so a
 * deeply nested body is judged rather than overflowing the call stack.
 */
function unstorableStrings(root: unknown, rootPath: string): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const pending: [unknown, string][] = [[root, rootPath]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        problems.push({ path, message: 'must be well-formed Unicode (no lone surrogates)' });
      } else if (value.includes('\u0000')) {
        problems.push({ path, message: 'must not contain NUL characters' });
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}.${i}`]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown];
        pending.push([v, `${path}.${k}`], [k, `${path}.${k}`]);
      }
    }
  }
  return problems;
}

function methodNotAllowed(methods: ReadonlySet<string>) {
  const allowed = [...methods, ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  return (req: Request, res: Response): void => {
    res.setHeader('Allow', allowed);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    sendProblem(req, res, new ApiError('method_not_allowed', `${req.method} is not allowed here; use ${allowed}`));
  };
}

function errorHandler(services: Services) {
  const handle = problemFor(services);
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      req.socket?.destroy();
      return;
    }
    if (error instanceof ClientGoneError) {
      services.logger.info({ req_id: res.locals.requestId }, 'client closed the connection before the body arrived');
      req.socket?.destroy();
      return;
    }
    try {
      handle(error, req, res);
    } catch (failure) {
      // The last resort must not throw: a fixed body, no details.
      services.logger.error({ req_id: res.locals.requestId, err: String(failure) }, 'error handler failed');
      if (!res.headersSent) {
        res.status(500).setHeader('Content-Type', 'application/problem+json');
        res.end('{"type":"about:blank","title":"Internal error","status":500,"code":"internal_error"}');
      }
    }
  };
}

function problemFor(services: Services) {
  return (error: unknown, req: Request, res: Response): void => {
    if (error instanceof ApiError) {
      sendProblem(req, res, error);
      return;
    }
    if (error instanceof ServiceError) {
      const errors = error.problems.map(({ path, message }) => ({ path, message }));
      sendProblem(req, res, new ApiError(apiErrorCode(error.code), error.message, errors.length > 0 ? { errors } : {}));
      return;
    }
    if (isStoreUnavailable(error)) {
      services.logger.warn({ req_id: res.locals.requestId, err: (error as Error).message }, 'store unavailable');
      sendProblem(
        req,
        res,
        new ApiError(
          'unavailable',
          'the store is unavailable; try again shortly',
          { retry_after_seconds: 5 },
          { 'Retry-After': RETRY_AFTER_UNAVAILABLE },
        ),
      );
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // Errors Express raises before a route runs, such as a malformed percent-encoding in the path.
      const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
      sendProblem(req, res, new ApiError(code, ERROR_CODES[code].about));
      return;
    }
    services.logger.error(
      { req_id: res.locals.requestId, err: error instanceof Error ? error.stack : String(error) },
      'unexpected error',
    );
    sendProblem(
      req,
      res,
      new ApiError('internal_error', `an unexpected error occurred; quote request id ${res.locals.requestId}`),
    );
  };
}
