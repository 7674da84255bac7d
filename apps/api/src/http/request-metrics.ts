import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Metrics } from '../metrics/metrics.js';

const ROUTE = Symbol('svc.route');

type Labelled = ServerResponse & { [ROUTE]?: string };

/** Names the route template of a response answered outside Express's routes (the fast path, the static files). */
export function labelRoute(res: ServerResponse, template: string): void {
  (res as Labelled)[ROUTE] = template;
}

/**
 * The server's request listener, counting and timing every answer by method, route template and status. Installed
 * only when metrics are on (SVC_METRICS_PORT): otherwise the listener is the app's own and requests pay nothing.
 * An answer never finished (the client hung up first) is not counted.
 */
export function withRequestMetrics(listener: RequestListener, metrics: Metrics): RequestListener {
  return (req, res) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeRequest(req.method, routeOf(req, res), res.statusCode, seconds);
    });
    listener(req, res);
  };
}

const templates = new Map<string, string>();

/** The label the answer was given, else the Express route that matched (`:id` written `{id}`), else `unmatched`. */
function routeOf(req: IncomingMessage, res: ServerResponse): string {
  const labelled = (res as Labelled)[ROUTE];
  if (labelled !== undefined) return labelled;
  const path = (req as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  if (typeof path !== 'string') return 'unmatched';
  let template = templates.get(path);
  if (template === undefined) {
    template = path.replace(/:(\w+)/g, '{$1}');
    templates.set(path, template);
  }
  return template;
}
