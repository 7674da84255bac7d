import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it, with when it arrived. */
export interface Arrival {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How to answer: a status with headers and body, `hang` (never answer) or `drop` (close the connection). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'drop';

export interface ScriptedServer {
  url: string;
  arrivals: Arrival[];
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Arrival[]>;
  close(): Promise<void>;
}

/** A tiny loopback HTTP server that answers the n-th request (0-based) as `script` says, and records them all. */
export async function startScripted(script: (arrival: Arrival, index: number) => Reply): Promise<ScriptedServer> {
  const arrivals: Arrival[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrival = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      arrivals.push(arrival);
      const reply = script(arrival, arrivals.length - 1);
      if (reply === 'hang') hanging.add(res);
      else if (reply === 'drop') req.socket.destroy();
      else res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (arrivals.length < count) {
        if (Date.now() > until) throw new Error(`${arrivals.length} of ${count} requests arrived in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return arrivals;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON answer. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

/** An RFC 9457 problem answer as the API sends it. */
export function problem(status: number, code: string, headers: Record<string, string> = {}): Reply {
  const body = {
    type: `https://svc.test/docs/errors#${code}`,
    title: code,
    status,
    detail: `scripted ${code}`,
    instance: '/api/v1/scores',
    code,
    request_id: `req_scripted_${status}`,
  };
  return { status, headers: { 'content-type': 'application/problem+json', ...headers }, body: JSON.stringify(body) };
}

/** Milliseconds between consecutive arrivals. */
export function gaps(arrivals: readonly Arrival[]): number[] {
  return arrivals.slice(1).map((a, i) => a.at - (arrivals[i] as Arrival).at);
}
