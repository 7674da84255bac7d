import type { ServerResponse } from 'node:http';
import { type Deprecation, type Deprecations, deprecationHeaders, deprecationsIn } from '@svc/contracts';
import type { Application, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** Where the app keeps its deprecated routes, for the pages and the fast path that answer beside its router. */
const SETTING = 'deprecations';

/**
 * Records the app's deprecated routes (the contract's, and `added` on top) and answers them by operationId. Throws,
 * so the server does not start, when one gives less than six months' notice (docs/compatibility.md).
 */
export function recordDeprecations(app: Express, added: Deprecations = {}): ReadonlyMap<string, Deprecation> {
  const deprecated = deprecationsIn(added);
  app.set(SETTING, deprecated);
  return deprecated;
}

/** The deprecated routes `recordDeprecations` recorded, by operationId; none for an app that recorded none. */
export function deprecationsOf(app: Application): ReadonlyMap<string, Deprecation> {
  const recorded: unknown = app.get(SETTING);
  return recorded instanceof Map ? (recorded as ReadonlyMap<string, Deprecation>) : new Map();
}

/** The `Deprecation`, `Sunset` and `Link` headers of a deprecated route, as name and value pairs. */
export function deprecationHeaderList(deprecation: Deprecation): [string, string][] {
  return Object.entries(deprecationHeaders(deprecation));
}

/**
 * Mounted before a deprecated route's handler: every answer it gives carries the three headers, its problems too
 * (the error path keeps the headers already set), and a `rel="next"` link is added beside the deprecation one.
 */
export function announceDeprecation(deprecation: Deprecation): RequestHandler {
  const headers = deprecationHeaderList(deprecation);
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** Adds a link to the answer's `Link` header, after any it already holds (RFC 8288 links are a list). */
export function addLink(res: ServerResponse, value: string): void {
  const existing = res.getHeader('Link');
  res.setHeader('Link', existing === undefined ? value : `${String(existing)}, ${value}`);
}
