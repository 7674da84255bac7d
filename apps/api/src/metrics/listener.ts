import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  /** `http://host:port`, the port the listener really took. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** A listen failure of the metrics port, naming it (not the API's port) and keeping the system's code. */
export class MetricsListenError extends Error {
  override readonly name = 'MetricsListenError';
  constructor(
    readonly code: string | undefined,
    readonly host: string,
    readonly port: number,
    options: ErrorOptions,
  ) {
    super(`cannot listen for metrics on ${host}:${port}: ${(options.cause as Error | undefined)?.message}`, options);
  }
}

/**
 * The metrics listener, apart from the API's: `GET /metrics` (and HEAD) answers the Prometheus text exposition,
 * anything else 404. It is meant for a scraper on a private address (SVC_METRICS_HOST, 127.0.0.1 by default).
 */
export async function startMetricsListener(
  metrics: Metrics,
  where: { host: string; port: number },
  logger: Logger,
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('not found: metrics are at GET /metrics\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, {
          'Content-Type': metrics.contentType,
          'Content-Length': Buffer.byteLength(text),
          'Cache-Control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error instanceof Error ? error.stack : String(error) }, 'metrics could not be collected');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('metrics could not be collected\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(new MetricsListenError(error.code, where.host, where.port, { cause: error }));
    };
    server.once('error', failed);
    server.listen(where.port, where.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
