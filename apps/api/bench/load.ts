// The load generator, in a process of its own (forked by harness.ts), so it never shares an event loop with
// the servers it measures. It takes jobs over IPC, one at a time, and answers each with its figures:
// - `max`: autocannon, closed loop, `connections` connections for `durationS` after a warm-up of `warmupS`;
// - `paced`: open loop at `rate` requests per second, spread evenly (one batch every millisecond) over keep-alive
//   connections opened as needed, so a slow answer never delays the next request (latency from the moment
//   the request is written). autocannon's overallRate releases each second's quota at once (a full-speed burst,
//   then idle until the next second), which measures saturation again rather than half load.
// Latencies are kept as measured (fractions of a millisecond), for 2xx answers only; other answers are counted.

import { connect as connectTo, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** One request of a load, as autocannon takes it. */
export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A job for this process: `max` (closed loop, autocannon) or `paced` (open loop at `rate`). */
export type Job =
  | { mode: 'max'; url: string; connections: number; warmupS: number; durationS: number; requests: Request[] }
  | { mode: 'paced'; url: string; rate: number; durationS: number; requests: Request[] };

/** A job's figures: 2xx answers and their rate, their latency percentiles (ms), and the other answers. */
export interface JobResult {
  ok: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  other: number;
  statuses: Record<string, number>;
  errors?: number;
  connections?: number;
}

/** A growing list of latencies in milliseconds. */
class Latencies {
  values = new Float64Array(1 << 16);
  size = 0;

  add(ms: number): void {
    if (this.size === this.values.length) {
      const next = new Float64Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.size++] = ms;
  }

  percentiles(): { p50: number | null; p99: number | null } {
    const sorted = this.values.slice(0, this.size).sort();
    const at = (q: number) =>
      sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null);
    return { p50: at(0.5), p99: at(0.99) };
  }
}

type MaxJob = Extract<Job, { mode: 'max' }>;

function cannon(job: MaxJob, durationS: number, latencies: Latencies | null): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: durationS,
        pipelining: 1,
        timeout: 10,
        // The run ends at the first sample after its duration: sampling often ends it on time.
        sampleInt: 100,
        requests: job.requests,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      instance.on('response', (_client, statusCode, _bytes, ms) => {
        if (statusCode >= 200 && statusCode < 300) latencies.add(ms);
      });
    }
  });
}

async function max(job: MaxJob): Promise<JobResult> {
  if (job.warmupS > 0) await cannon(job, job.warmupS, null);
  const latencies = new Latencies();
  const result = await cannon(job, job.durationS, latencies);
  const ok = result['2xx'];
  return {
    ok,
    rps: ok / result.duration,
    ...latencies.percentiles(),
    other: result.non2xx + result.errors + result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count ?? 0])),
  };
}

/** A request as bytes on the wire: HTTP/1.1, keep-alive, a Content-Length when there is a body. */
function wire(target: URL, spec: Request): Buffer {
  const body = spec.body === undefined ? null : Buffer.from(spec.body);
  const headers = { host: target.host, ...spec.headers, ...(body ? { 'content-length': body.length } : {}) };
  const head = `${spec.method ?? 'GET'} ${spec.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Open loop: `rate` requests a second for `durationS`, released every millisecond as they fall due, each on an
 * idle keep-alive connection or a new one. Answers are read by Content-Length (every server here sends it).
 */
/** A keep-alive connection of the paced load and the answer it is reading. */
interface Connection {
  socket: Socket;
  started: number;
  head: Buffer | null;
  need: number;
  got: number;
  status: number;
}

function paced(job: Extract<Job, { mode: 'paced' }>): Promise<JobResult> {
  const target = new URL(job.url);
  const requests = job.requests.map((spec) => wire(target, spec));
  const latencies = new Latencies();
  const statuses: Record<string, number> = {};
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  let errors = 0;
  let sent = 0;
  let done = 0;
  let next = 0;
  let peak = 0;

  const connect = (): Connection => {
    const conn: Connection = {
      socket: connectTo(Number(target.port), target.hostname),
      started: 0,
      head: null,
      need: -1,
      got: 0,
      status: 0,
    };
    conn.socket.setNoDelay(true);
    open.add(conn);
    peak = Math.max(peak, open.size);
    conn.socket.on('data', (chunk: Buffer) => {
      if (conn.need < 0) {
        conn.head = conn.head ? Buffer.concat([conn.head, chunk]) : chunk;
        const end = conn.head.indexOf(HEAD_END);
        if (end < 0) return;
        const text = conn.head.toString('latin1', 0, end);
        conn.status = Number(text.slice(9, 12));
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
        if (!length) throw new Error(`an answer without Content-Length: ${text.split('\r\n')[0]}`);
        conn.need = end + 4 + Number(length[1]);
        conn.got = conn.head.length;
        conn.head = null;
      } else {
        conn.got += chunk.length;
      }
      if (conn.got < conn.need) return;
      statuses[conn.status] = (statuses[conn.status] ?? 0) + 1;
      if (conn.status >= 200 && conn.status < 300) latencies.add(performance.now() - conn.started);
      done++;
      conn.need = -1;
      idle.push(conn);
    });
    const lost = () => {
      if (!open.delete(conn)) return;
      const at = idle.indexOf(conn);
      if (at >= 0) idle.splice(at, 1);
      else {
        errors++;
        done++;
      }
    };
    conn.socket.on('error', lost);
    conn.socket.on('close', lost);
    return conn;
  };

  const send = () => {
    const conn = idle.pop() ?? connect();
    conn.started = performance.now();
    conn.socket.write(requests[next] ?? Buffer.alloc(0));
    next = (next + 1) % requests.length;
    sent++;
  };

  return new Promise<JobResult>((resolve) => {
    const start = performance.now();
    const total = Math.round(job.rate * job.durationS);
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * job.rate));
      while (sent < due) send();
      if (sent < total) {
        setTimeout(tick, 1);
        return;
      }
      const finish = () => {
        if (done < sent && performance.now() - start < (job.durationS + 10) * 1000) {
          setTimeout(finish, 5);
          return;
        }
        for (const conn of open) conn.socket.destroy();
        const seconds = (performance.now() - start) / 1000;
        const ok = latencies.size;
        resolve({
          ok,
          rps: ok / seconds,
          ...latencies.percentiles(),
          other: sent - ok,
          errors,
          connections: peak,
          statuses,
        });
      };
      finish();
    };
    tick();
  });
}

// Jobs one at a time, until the parent disconnects.
process.on('message', async (job: Job) => {
  try {
    process.send?.({ result: job.mode === 'paced' ? await paced(job) : await max(job) });
  } catch (error) {
    process.send?.({ error: String((error as Error)?.stack ?? error) });
  }
});
