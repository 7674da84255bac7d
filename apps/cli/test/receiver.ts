import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: its headers and the exact body bytes, as a consumer's endpoint sees them. */
export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

export interface Receiver {
  /** `http://127.0.0.1:PORT/hook`: the URL to register. */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A real webhook receiver on a loopback port: it records every request and answers 200. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
