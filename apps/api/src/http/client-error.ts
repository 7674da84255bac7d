import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode, type Problem } from '@svc/contracts';
import { maskKeys } from '../services/access/access.js';

/** Why Node's HTTP parser refused a request before any route saw it (its own answers are a bare 400, 408 or 431). */
const REFUSALS: Record<string, { code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    detail: `the request line and headers are limited to ${maxHeaderSize / 1024} KiB`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    detail: 'the request did not arrive in full in time (headers within 10 s, the body within its timeout)',
  },
};
const NOT_HTTP = { code: 'invalid_request', detail: 'the request is not valid HTTP/1.1' } as const;

const LINGER_MS = 5_000;
const HOST = /\r\nhost:[ \t]*([A-Za-z0-9.-]+(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?)[ \t]*\r\n/i;
/** The path of the request line (its query left out), when the request got that far. */
const REQUEST_PATH = /^[A-Z]{1,20} (\/[\x21-\x3e\x40-\x7e]{0,2048})[ ?]/;

/**
 * The `clientError` listener of the HTTP server: the refusal as problem details, like every other error, with the
 * same absolute `type` (SITE_URL, else the request's Host, else the address it reached) and the path as `instance`.
 */
export function answerClientError(siteUrl: string | null) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void => {
    // Gone, or answered already (the parser reports again for each chunk the client still sends).
    if (error.code === 'ECONNRESET' || !socket.writable) return;
    const { code, detail } = REFUSALS[error.code ?? ''] ?? NOT_HTTP;
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 20_000) : '';
    const { status, title } = ERROR_CODES[code];
    const requestId = randomUUID();
    const problem: Problem = {
      type: `${siteUrl ?? originOf(raw, socket)}/docs/errors#${code}`,
      title,
      status,
      detail,
      instance: maskKeys(REQUEST_PATH.exec(raw)?.[1] ?? '/'),
      code,
      request_id: requestId,
    };
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nx-request-id: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
    // Closed when the client closes; one that never does is not kept (Node's own answer destroys at once).
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** The origin the client asked for: its Host header when one was read, else the address and port it connected to. */
function originOf(raw: string, socket: Duplex): string {
  const host = HOST.exec(raw)?.[1];
  if (host) return `http://${host}`;
  const { localAddress, localPort } = socket as Socket;
  if (!localAddress) return 'http://localhost';
  const address = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return `http://${address}:${localPort}`;
}
