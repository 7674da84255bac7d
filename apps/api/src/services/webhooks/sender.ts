import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkWebhookUrl, guardedLookup, type UrlPolicy } from '../shared/webhook-url.js';

/** What one POST to a receiver came to. */
export interface SendResult {
  /** The receiver's status; null when there was none (refused, timed out, address not allowed). */
  statusCode: number | null;
  error: string | null;
  retryAfter: string | null;
  /** The first characters of the receiver's answer, for the delivery log. */
  excerpt: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  policy: UrlPolicy;
}

const EXCERPT_CHARS = 512;
/** Read at most this much of an answer: nothing in it matters beyond the status. */
const READ_LIMIT = 64 * 1024;
const USER_AGENT = 'svc-webhooks/1.0';

/**
 * Sends a webhook over node:http(s): the URL is checked again (an IP host has no DNS lookup to
 * guard) and names resolve through the guarded lookup, so the socket only reaches checked addresses;
 * redirects are never followed; the whole exchange is bounded by the timeout.
 */
export class WebhookSender {
  private readonly agents = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: 16 }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
  };
  private readonly lookup;

  constructor(private readonly options: SenderOptions) {
    this.lookup = guardedLookup(options.policy);
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const check = await checkWebhookUrl(url, this.options.policy);
    if (!check.ok) {
      return { statusCode: null, error: `not sent: ${check.reason}`, retryAfter: null, excerpt: null, durationMs: 0 };
    }
    const target = check.url;
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
    const send = protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const request = send(target, {
        method: 'POST',
        agent: this.agents[protocol],
        lookup: this.lookup,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body, 'utf8')),
          'user-agent': USER_AGENT,
          ...headers,
        },
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish({
          statusCode: null,
          error: `timed out after ${this.options.timeoutMs} ms`,
          retryAfter: null,
          excerpt: null,
        });
      }, this.options.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish({ statusCode: null, error: describeError(error), retryAfter: null, excerpt: null });
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const status = response.statusCode ?? 0;
          const location = response.headers.location;
          const redirected = status >= 300 && status < 400;
          finish({
            statusCode: status,
            error: redirected
              ? `redirects are not followed${location ? ` (to ${String(location).slice(0, 200)})` : ''}`
              : status >= 200 && status < 300
                ? null
                : `the receiver answered ${status}`,
            retryAfter: headerValue(response.headers['retry-after']),
            excerpt: excerptOf(Buffer.concat(chunks)),
          });
        };
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (chunks.reduce((n, c) => n + c.length, 0) < EXCERPT_CHARS * 4) chunks.push(chunk);
          if (size > READ_LIMIT) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function excerptOf(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is stripped
  const text = bytes.toString('utf8').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
  return text.slice(0, EXCERPT_CHARS);
}

function describeError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EWEBHOOKADDRESS':
      return `not sent: ${error.message}`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
