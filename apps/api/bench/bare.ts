// The floors the service is judged against, each in its own process (started by harness.ts):
// `node`: a bare node:http server; `express`: a bare Express 5 app with one route; both answer the same
// pre-serialised public-scores bytes, as the service answers its snapshot. `receiver`: a webhook receiver
// answering 204 to everything (the publication bench delivers to it).

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { ChildMessage } from './harness.js';

const [kind, bytesFile] = process.argv.slice(2);
const bytes = bytesFile ? readFileSync(bytesFile) : Buffer.alloc(0);

const send = (m: ChildMessage) => process.send?.(m);
let server: Server;
if (kind === 'node') {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
} else if (kind === 'express') {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/api/public/scores', (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(bytes);
  });
  server = createServer(app);
} else if (kind === 'receiver') {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
} else {
  throw new Error(`unknown server ${kind}`);
}

server.listen(0, '127.0.0.1', () => send({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.on('message', (m) => {
  if (m === 'cpu') send({ cpu: process.cpuUsage() });
  if (m === 'stop') {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
