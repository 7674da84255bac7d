import type { Caller, ServiceContext } from '../services/context.js';
import { contextFor, type Services } from '../services/services.js';

/**
 * The context a route's verbs run in: acting for the key's holder on a keyed route, for the client at its address
 * on a public one.
 */
export function routeContext(route: {
  caller: Caller | null;
  services: Services;
  req: { ip?: string | undefined };
}): ServiceContext {
  const { caller, services, req } = route;
  return contextFor(services, caller ? { kind: 'key', caller } : { kind: 'public', client: req.ip ?? 'unknown' });
}
