// The floors the service is judged against, each in its own process (started by harness.mjs):
// `node`: a bare node:http server; `express`: a bare Express 5 app with one route; both answer the same
// pre-serialised public-scores bytes, as the service answers its snapshot. `receiver`: a webhook receiver
// answering 204 to everything (the publication bench delivers to it).

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import express from 'express';

const [kind, bytesFile] = process.argv.slice(2);
const bytes = bytesFile ? readFileSync(bytesFile) : Buffer.alloc(0);

let server;
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

server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  if (m === 'stop') {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  }
});
