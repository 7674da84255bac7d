import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: the exact bytes and headers, as a consumer's endpoint sees them. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes. */
  raw: Buffer;
  at: number;
}

/** What the receiver answers a request with: a status, optional headers and body; or `hang` to never answer. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  /** `http://127.0.0.1:PORT/hook`: the URL to register. */
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (the default answers 200). */
  answer(next: (request: Received, index: number) => Answer): void;
  /** Stops listening (refusing connections) and starts again on the same port. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real webhook receiver on a loopback port: it records every request and answers as told. With `ownPathOnly`, only
 * those to its path (or below it): a test that must not see another test's deliveries gives it a path of its own
 * (see webhooks.test.ts).
 */
export async function startReceiver(path = '/hook', options: { ownPathOnly?: boolean } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let answerOf: (request: Received, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  const hanging = new Set<ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let server: Server;
  let port = 0;

  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // Not for this receiver: a delivery to an endpoint of another test whose receiver had this port before (the
        // port was freed and given again while that test's dispatcher still retries). Refused, not recorded.
        const own = (req.url ?? '').split('?')[0] ?? '';
        if (options.ownPathOnly && own !== path && !own.startsWith(`${path}/`)) {
          res.writeHead(404).end('not this receiver');
          return;
        }
        const request: Received = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          raw: Buffer.concat(chunks),
          at: Date.now(),
        };
        received.push(request);
        for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
        const answer = answerOf(request, received.length - 1);
        if (answer === 'hang') {
          hanging.add(res);
          return;
        }
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    for (const res of hanging) res.destroy();
    hanging.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}${path}`;
    },
    get port() {
      return port;
    },
    received,
    answer(next) {
      answerOf = next;
    },
    stop,
    restart: listen,
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close: stop,
  };
}
