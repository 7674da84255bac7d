import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type Problem } from '@svc/contracts';

/** Why Node's HTTP parser refused a request before any route saw it (its own answers are a bare 400 or 431). */
const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: `the request line and headers are limited to ${maxHeaderSize / 1024} KiB`,
};

const LINGER_MS = 5_000;

/** The `clientError` listener of the HTTP server: the refusal as problem details, like every other 4xx. */
export function answerClientError(siteUrl: string | null) {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    // Gone, or answered already (the parser reports again for each chunk the client still sends).
    if (error.code === 'ECONNRESET' || !socket.writable) return;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // As Node answers it: the client has stopped sending, so nobody reads a body.
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      return;
    }
    const code = 'invalid_request';
    const detail = REASONS[error.code ?? ''] ?? 'the request is not valid HTTP/1.1';
    const { status, title } = ERROR_CODES[code];
    const requestId = randomUUID();
    const problem: Problem = {
      type: `${siteUrl ?? ''}/docs/errors#${code}`,
      title,
      status,
      detail,
      instance: '',
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
