import { JsonSyntaxError, readJson } from '@svc/methodology';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './problem.js';

const BODY_LIMIT = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a JSON body: application/json only, not content-coded, 64 KiB at most, UTF-8, parsed exactly (numbers as written). */
export async function jsonBody(req: Request, res: Response, next: NextFunction): Promise<void> {
  const type = req.get('content-type') ?? '';
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
    throw new ApiError(
      'unsupported_media_type',
      `the body must be application/json, not ${type ? `"${type}"` : 'untyped'}`,
    );
  }
  // A coded body (gzip, br…) is bytes the service does not decode: refused as such, not as text that is not UTF-8.
  const coding = (req.get('content-encoding') ?? '').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') {
    throw new ApiError(
      'unsupported_media_type',
      `the body must not be content-coded (Content-Encoding: ${JSON.stringify(req.get('content-encoding'))}): send it as plain application/json`,
    );
  }
  const declared = Number(req.get('content-length') ?? '0');
  if (declared > BODY_LIMIT) throw new ApiError('payload_too_large', `the body is limited to ${BODY_LIMIT} bytes`);
  const bytes = await readBody(req, req.app.get('bodyTimeoutMs') as number);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', 'the body is not valid UTF-8', {
      errors: [{ path: 'body', message: 'is not valid UTF-8' }],
    });
  }
  let body: unknown;
  try {
    body = readJson(text);
  } catch (error) {
    const message = error instanceof JsonSyntaxError ? `is not valid JSON: ${error.message}` : 'is not valid JSON';
    throw new ApiError('invalid_request', `the body ${message}`, { errors: [{ path: 'body', message }] });
  }
  const errors = unstorableStrings(body, 'body');
  if (errors.length > 0) {
    throw new ApiError('invalid_request', `invalid body: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  res.locals.body = body;
  next();
}

/**
 * The client went away before its body arrived: nobody is left to answer, and it says nothing about the store
 * (the stream's ECONNRESET is the client's connection, not the database's).
 */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

/** The body's bytes, at most BODY_LIMIT of them, arriving in full within `timeoutMs`. */
function readBody(req: Request, timeoutMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        req.pause();
        finish(() => reject(new ApiError('payload_too_large', `the body is limited to ${BODY_LIMIT} bytes`)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks)));
    const onError = () =>
      finish(() => reject(new ClientGoneError('the client closed the connection before the body arrived')));
    const onClose = () => {
      if (!req.complete) onError();
    };
    const timer = setTimeout(() => {
      req.pause();
      finish(() =>
        reject(
          new ApiError(
            'request_timeout',
            `the request body did not arrive in full within ${timeoutMs / 1000} s`,
            {},
            { Connection: 'close' },
          ),
        ),
      );
    }, timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Strings no store keeps faithfully: lone surrogates (not Unicode; RFC 8785 refuses them) and NUL (PostgreSQL text
 * refuses it). Refused for every body, whatever its schema. Walked with a stack of its own, in document order, so a
 * deeply nested body is judged rather than overflowing the call stack.
 */
function unstorableStrings(root: unknown, rootPath: string): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const pending: [unknown, string][] = [[root, rootPath]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        problems.push({ path, message: 'must be well-formed Unicode (no lone surrogates)' });
      } else if (value.includes('\u0000')) {
        problems.push({ path, message: 'must not contain NUL characters' });
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}.${i}`]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown];
        pending.push([v, `${path}.${k}`], [k, `${path}.${k}`]);
      }
    }
  }
  return problems;
}
