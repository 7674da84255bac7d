import type { Deprecations, Endpoint } from '@svc/contracts';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../services/services.js';
import { admit, expressArrival, setAdmittedHeaders } from './admission.js';
import { offerCoded } from './compression.js';
import { addLink, announceDeprecation, recordDeprecations } from './deprecation.js';
import { problemFor } from './errors.js';
import { standardHeaders } from './headers.js';
import { ClientGoneError, jsonBody } from './json-body.js';
import { requestContext } from './middleware.js';
import { mediaTypesOf, refuseUnacceptable } from './negotiation.js';
import { ApiError, sendProblem } from './problem.js';
import type { Reply, RouteModule } from './route.js';
import { routes } from './routes/index.js';
import { registerSitePages, SITE_PATHS } from './site.js';
import { parseRequest } from './validate.js';

export interface AppOptions {
  trustProxy: boolean | number | string;
  /** How long a request body may take to arrive in full (default 10 s). */
  bodyTimeoutMs?: number;
  /**
   * Routes deprecated besides those the contract deprecates (a test deprecates a route without changing the
   * contract); each needs six months' notice, or the app is not built.
   */
  deprecations?: Deprecations;
}

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
  const deprecated = recordDeprecations(app, options.deprecations);

  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const path = expressPath(route.endpoint.path);
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(route.endpoint.method.toUpperCase());
    methodsByPath.set(path, methods);
    const deprecation = deprecated.get(route.endpoint.operationId);
    const notice = deprecation ? [announceDeprecation(deprecation)] : [];
    const body = route.endpoint.body ? [jsonBody] : [];
    app[route.endpoint.method](path, ...notice, ...body, handlerOf(route, services));
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

/**
 * A route's handler: the Accept header, admission (the key, the tier, the entitlement, the limit: admission.ts),
 * the parsed request, the answer. (A request a path before Express admitted and could not answer never reaches
 * a route: middleware.ts answers its error.)
 */
function handlerOf(route: RouteModule, services: Services) {
  const e = route.endpoint;
  const served = route.negotiates ? [] : mediaTypesOf(e);
  const gate = { tier: e.tier, limit: e.limit, ...(route.admit ? { entitled: route.admit } : {}) };
  return async (req: Request, res: Response): Promise<void> => {
    refuseUnacceptable(req, served);
    let replayed: Reply | null = null;
    let parsed: ReturnType<typeof parseRequest> | undefined;
    const replay = route.replay;
    const arrival = expressArrival(req);
    const admission = await admit(arrival, gate, services, {
      seen: (keyId) => {
        res.locals.keyId = keyId;
      },
      // A request the route has answered before is answered again without spending the route's own limit.
      ...(replay
        ? {
            limitOf: async (caller) => {
              parsed = parseRequest(e, req, res);
              replayed = await replay.answer({ ...parsed, caller, services, req });
              return replayed ? replay.limit : e.limit;
            },
          }
        : {}),
    });
    setAdmittedHeaders(res, admission);
    const { caller } = admission;
    send(res, e, replayed ?? (await route.handle({ ...(parsed ?? parseRequest(e, req, res)), caller, services, req })));
  };
}

/** Writes a route's reply with the endpoint's success status unless the reply names another. */
function send(res: Response, e: Endpoint, reply: Reply): void {
  res.statusCode = reply.status ?? e.success.status;
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    // A next page's link joins a deprecation's rather than replacing it.
    if (name.toLowerCase() === 'link') addLink(res, value);
    else res.setHeader(name, value);
  }
  // Content-Length set here, not left to Node, so a HEAD answer carries it too (and keeps the connection).
  if (reply.jsonText !== undefined || reply.json !== undefined) {
    const text = reply.jsonText ?? JSON.stringify(reply.json);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  } else if (reply.body !== undefined) {
    res.setHeader('Content-Type', reply.contentType ?? 'application/octet-stream');
    res.setHeader('Content-Length', Buffer.byteLength(reply.body));
    if (reply.coded && Buffer.isBuffer(reply.body)) offerCoded(res, reply.body, reply.coded);
    res.end(reply.body);
  } else {
    res.end();
  }
}

/** A path's other methods: OPTIONS answered with Allow, anything else a 405. */
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

/** The one error path: problem+json for whatever a route threw; a client already gone is let go. */
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
