import type { LimitName } from '@svc/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { Services } from '../services/services.js';
import { isStoreUnavailable } from '../store/store.js';
import { admit, expressArrival, setAdmittedHeaders } from './admission.js';

/**
 * The site's pages (HTML, text, the OpenAPI document, the JSON Schemas) go through the sequence every route goes
 * through (decision 0052): admission (admission.ts), parse, the verb, the reply, and the error's answer. A page
 * answers its errors as pages rather than problem+json: a request it cannot read is its 400 page, a store away its
 * 503 page; anything else goes to the one error path (errors.ts).
 */

/** A page's answer: its status (200 unless named), its headers in the order they are set, its body. */
export interface PageReply {
  status?: number;
  headers: [name: string, value: string][];
  body: string | Buffer;
}

export interface PageContext<P> {
  params: P;
  req: Request;
  services: Services;
}

export interface PageModule<P = unknown> {
  /** The page's path, in Express's form (`/providers/:id`). */
  path: string;
  /** The limit a request of the page spends: none today (the pages are cached by their readers). */
  limit: LimitName;
  /** What the request asks for, read from its path and query; throws a PageRefusal when it cannot be read. */
  parse(req: Request, services: Services): P;
  handle(ctx: PageContext<P>): Promise<PageReply>;
  /** The page shown when the store does not answer; without one, the one error path's 503 problem. */
  unavailable?(): PageReply;
}

/** A request a page cannot answer, with the page that says why (a 400 or a 404). */
export class PageRefusal extends Error {
  override readonly name = 'PageRefusal';
  constructor(readonly reply: PageReply) {
    super(`page refused with ${reply.status ?? 200}`);
  }
}

/** Binds a page's parser and handler to its path; a page with nothing to read parses to `{}`. */
export function definePage<P = Record<string, never>>(page: {
  path: string;
  parse?: (req: Request, services: Services) => P;
  handle: (ctx: PageContext<P>) => Promise<PageReply>;
  unavailable?: () => PageReply;
}): PageModule<P> {
  return {
    limit: 'none',
    parse: page.parse ?? (() => ({}) as P),
    handle: page.handle,
    path: page.path,
    ...(page.unavailable ? { unavailable: page.unavailable } : {}),
  };
}

/** An HTML page's answer, with its Content Security Policy and caching. */
export function htmlReply(status: number, body: string, csp: string, cache: string): PageReply {
  return {
    status,
    headers: [
      ['Content-Type', 'text/html; charset=utf-8'],
      ['Content-Security-Policy', csp],
      ['Cache-Control', cache],
    ],
    body,
  };
}

/** A page's handler: admission, parse, the page's work, the reply; its refusals and a store away as pages. */
export function pageHandlerOf<P>(page: PageModule<P>, services: Services) {
  const gate = { limit: page.limit };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const arrival = expressArrival(req);
      setAdmittedHeaders(res, await admit(arrival, gate, services));
      sendPage(res, await page.handle({ params: page.parse(req, services), req, services }));
    } catch (error) {
      if (error instanceof PageRefusal) {
        sendPage(res, error.reply);
        return;
      }
      if (page.unavailable && isStoreUnavailable(error)) {
        services.metrics?.storeError('request');
        services.logger.warn({ req_id: res.locals.requestId, err: (error as Error).message }, 'store unavailable');
        res.setHeader('Retry-After', '5');
        sendPage(res, page.unavailable());
        return;
      }
      next(error);
    }
  };
}

function sendPage(res: Response, reply: PageReply): void {
  res.status(reply.status ?? 200);
  for (const [name, value] of reply.headers) res.setHeader(name, value);
  res.end(reply.body);
}
