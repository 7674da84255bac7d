import type { Endpoint, LimitName } from '@svc/contracts';
import type { Request } from 'express';
import type { z } from 'zod';
import type { Caller, ServiceContext } from '../services/context.js';
import { contextFor, type Services } from '../services/services.js';
import type { Coded } from '../services/shared/encoded.js';

export interface RouteContext<P = Record<string, never>, Q = Record<string, never>, B = undefined> {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller on keyed routes. */
  caller: Caller | null;
  services: Services;
  req: Request;
}

/** What a handler answers: JSON (an object, or text already serialised) or other bytes. */
export interface Reply {
  status?: number;
  json?: unknown;
  jsonText?: string;
  body?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
  /** `body`'s compressed forms, built beforehand (the public list's): sent instead of compressing it again. */
  coded?: Coded;
}

export interface RouteModule {
  endpoint: Endpoint;
  /** An entitlement beyond the tier, checked after the key and before the request spends the limit; throws to refuse. */
  admit?(caller: Caller, services: Services): void;
  /** The route answers the Accept header itself (otherwise one that excludes its media types is a 406 before it runs). */
  negotiates?: true;
  // biome-ignore lint/suspicious/noExplicitAny: each route narrows its own context through defineRoute
  handle(ctx: RouteContext<any, any, any>): Promise<Reply>;
  /**
   * A request the route has already answered (the same coverage request again): its answer, given before the
   * route's limit is spent and spending `limit` instead; null when the request is new.
   */
  // biome-ignore lint/suspicious/noExplicitAny: as handle
  replay?: { limit: LimitName; answer(ctx: RouteContext<any, any, any>): Promise<Reply | null> };
}

type Parsed<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** Binds a handler to its contract; params, query and body arrive parsed by the contract's schemas. */
export function defineRoute<E extends Endpoint>(
  endpoint: E,
  handle: (ctx: RouteContext<Parsed<E['params']>, Parsed<E['query']>, Parsed<E['body']>>) => Promise<Reply>,
): RouteModule {
  return { endpoint, handle };
}

/** The context a route's verbs run in: acting for the key's holder on keyed routes, else for the client's address. */
export function serviceContextOf(route: Pick<RouteContext, 'caller' | 'services' | 'req'>): ServiceContext {
  const { caller, services, req } = route;
  return contextFor(services, caller ? { kind: 'key', caller } : { kind: 'public', client: req.ip ?? 'unknown' });
}
