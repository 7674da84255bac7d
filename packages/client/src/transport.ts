import type { Problem } from '@svc/contracts';
import { SvcApiError, SvcError, SvcNetworkError, UNEXPECTED_RESPONSE } from './errors.js';
import { type RateLimitInfo, readRateLimit } from './rate-limit.js';
import {
  DEFAULT_RETRY,
  delayBeforeRetry,
  parseRetryAfter,
  type RetryOptions,
  type RetryPolicy,
  retryPolicy,
  sleep,
} from './retry.js';

/** Per-call settings, the last argument of every method. */
export interface RequestOptions {
  /** Cancels the call (and any wait between retries); the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's timeout per attempt, instead of the client's. */
  timeoutMs?: number;
  /**
   * GET and DELETE calls retry by default, POST calls never. `true` opts a POST in (with the client's retry
   * settings, or the defaults if the client has retries off), `false` opts any call out, and an object gives this
   * call its own settings.
   */
  retry?: boolean | RetryOptions;
}

export type Method = 'GET' | 'POST' | 'DELETE';

export type QueryValue = string | number | boolean | null | undefined;

export interface Call {
  method: Method;
  /** The path, its parameters already encoded. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** Sent as JSON when present. */
  body?: unknown;
}

/** A successful answer, read whole. */
interface Answer {
  method: Method;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  timeoutMs: number;
  retry: RetryPolicy | null;
  userAgent: string | undefined;
}

/** One HTTP call with its timeout, retries, errors and rate-limit bookkeeping. Browser-safe: fetch and Web APIs. */
export class Transport {
  /** The rate limit reported by the latest answer that reported one. */
  lastRateLimit: RateLimitInfo | null = null;

  constructor(private readonly settings: TransportSettings) {}

  /** The body text of a successful answer ('' for 204); throws SvcApiError or SvcNetworkError otherwise. */
  async text(call: Call, options: RequestOptions = {}): Promise<string> {
    return (await this.send(call, options)).text;
  }

  /** The body of a successful answer parsed as JSON. */
  async json<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    return parseJson<T>(await this.send(call, options));
  }

  /** A successful answer's JSON body, parsed, and its exact text. */
  async jsonWithText<T>(call: Call, options: RequestOptions = {}): Promise<{ value: T; text: string }> {
    const answer = await this.send(call, options);
    return { value: parseJson<T>(answer), text: answer.text };
  }

  private async send(call: Call, options: RequestOptions): Promise<Answer> {
    const url = this.urlOf(call);
    const policy = this.policyFor(call.method, options.retry);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(call, url, options);
      } catch (error) {
        const wait = policy ? delayBeforeRetry(error, attempt, policy) : null;
        if (wait === null) throw error;
        await sleep(wait, options.signal);
      }
    }
  }

  private urlOf(call: Call): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined && value !== null) search.set(name, String(value));
    }
    const query = search.toString();
    return `${this.settings.baseUrl}${call.path}${query ? `?${query}` : ''}`;
  }

  private policyFor(method: Method, retry: RequestOptions['retry']): RetryPolicy | null {
    if (retry === false) return null;
    if (retry === true) return this.settings.retry ?? DEFAULT_RETRY;
    if (retry !== undefined) return retryPolicy(retry);
    // A POST may have changed something before its answer was lost: never repeat it unasked.
    return method === 'POST' ? null : this.settings.retry;
  }

  private async attempt(call: Call, url: string, options: RequestOptions): Promise<Answer> {
    const { signal } = options;
    if (signal?.aborted) throw signal.reason;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.settings.fetch(url, {
        method: call.method,
        headers: this.headersFor(call),
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        // A redirect would carry the key to wherever it points; the API never redirects, so refuse them.
        redirect: 'error',
        signal: controller.signal,
      });
      const text = await response.text();
      this.lastRateLimit = readRateLimit(response.headers) ?? this.lastRateLimit;
      if (!response.ok) throw apiErrorOf(response, text, call.method, url);
      return { method: call.method, url, status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof SvcError) throw error;
      if (timedOut) throw new SvcNetworkError('timeout', call.method, url, { cause: error, timeoutMs });
      if (signal?.aborted) throw signal.reason;
      throw new SvcNetworkError('network', call.method, url, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private headersFor(call: Call): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.settings.apiKey !== undefined) headers['x-api-key'] = this.settings.apiKey;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (this.settings.userAgent !== undefined) headers['user-agent'] = this.settings.userAgent;
    return headers;
  }
}

function apiErrorOf(response: Response, text: string, method: string, url: string): SvcApiError {
  const problem = problemOf(text);
  return new SvcApiError({
    status: response.status,
    code: problem?.code ?? UNEXPECTED_RESPONSE,
    problem,
    requestId: problem?.request_id || response.headers.get('x-request-id'),
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')) ?? problem?.retry_after_seconds ?? null,
    method,
    url,
  });
}

/** The problem details of an error answer, or null when the body is not one (a proxy's page, an empty body). */
function problemOf(text: string): Problem | null {
  try {
    const value = JSON.parse(text) as Partial<Problem> | null;
    return typeof value?.code === 'string' && typeof value.status === 'number' ? (value as Problem) : null;
  } catch {
    return null;
  }
}

/** A success whose body is not the JSON its endpoint promises (a proxy's page, a cut-off body) is an error too. */
function parseJson<T>(answer: Answer): T {
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new SvcApiError({
      status: answer.status,
      code: UNEXPECTED_RESPONSE,
      problem: null,
      requestId: answer.headers.get('x-request-id'),
      retryAfterSeconds: null,
      method: answer.method,
      url: answer.url,
    });
  }
}
