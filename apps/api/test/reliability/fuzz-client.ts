import { Agent, type IncomingHttpHeaders, request } from 'node:http';

/** Sends fuzz requests byte for byte with node:http (fetch would normalise paths and refuse odd headers). */

export interface FuzzRequest {
  method: string;
  /** The raw request target, sent as is. */
  target: string;
  headers: Record<string, string | string[]>;
  body: { bytes: Buffer; chunked: boolean } | undefined;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

/** No answer at all: a hang past the timeout, or a connection dropped before any status line. */
export interface NoAnswer {
  failure: string;
  ms: number;
}

export function clientFor(baseUrl: string, concurrency: number) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

  function send(r: FuzzRequest, timeoutMs: number): Promise<Answer | NoAnswer> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let answered = false;
      const headers: Record<string, string | string[] | number> = { ...r.headers };
      if (r.body && !r.body.chunked) headers['content-length'] = r.body.bytes.length;
      const req = request({ hostname, port, method: r.method, path: r.target, headers, agent }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: elapsed() });
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          resolve({ failure: `the answer broke off: ${error.message}`, ms: elapsed() });
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ failure: `no answer within ${timeoutMs} ms (a hang)`, ms: elapsed() });
      }, timeoutMs);
      req.on('error', (error) => {
        // Writing the rest of a refused body may fail once the answer is in; only an error before it counts.
        if (answered) return;
        clearTimeout(timer);
        resolve({ failure: `connection error before any answer: ${error.message}`, ms: elapsed() });
      });
      if (r.body) req.end(r.body.bytes);
      else req.end();
    });
  }

  /** Sends every request, `concurrency` at a time, and hands each answer over in the order they come. */
  async function sendAll(
    requests: FuzzRequest[],
    timeoutMs: number,
    onAnswer: (index: number, answer: Answer | NoAnswer) => void,
  ): Promise<void> {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < requests.length; i = next++) {
        onAnswer(i, await send(requests[i] as FuzzRequest, timeoutMs));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  return { send, sendAll, close: () => agent.destroy() };
}
