import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import {
  COMPRESS_FROM_BYTES,
  CONTENT_CODINGS,
  type Coded,
  type ContentCoding,
  compressLater,
  compressNow,
  PER_REQUEST_LEVEL,
  REMEMBER_FROM_BYTES,
  RememberedForms,
} from '../services/shared/encoded.js';
import { matchesEtag } from './public-scores.js';

/**
 * Media types worth compressing: text, JSON and XML of every kind (problem+json, schema+json, atom+xml), SVG.
 * Not event streams (each event must leave at once).
 */
const COMPRESSIBLE =
  /^\s*(?:text\/(?!event-stream)|application\/(?:json|xml|javascript|[\w.-]+\+(?:json|xml))|image\/svg\+xml)/i;

/** Answers built per request are compressed on the event loop up to this size, in the thread pool above it. */
const COMPRESS_NOW_UP_TO = 256 * 1024;

/** The compressed forms of large answers built per request, for this process (services/shared/encoded.ts). */
export const rememberedForms = new RememberedForms();

/** A large body's form, remembered once built: `form` as it was given. */
function remembered(body: Buffer, coding: ContentCoding, form: Buffer): Buffer {
  if (body.length >= REMEMBER_FROM_BYTES) rememberedForms.set(body, coding, form);
  return form;
}

/** A body's form built on this thread at the per-request level, or the one remembered for the same bytes. */
function compressedNow(body: Buffer, coding: ContentCoding): Buffer {
  const known = body.length >= REMEMBER_FROM_BYTES ? rememberedForms.get(body, coding) : undefined;
  return known ?? remembered(body, coding, compressNow(body, coding, PER_REQUEST_LEVEL[coding]));
}

/** Whether answers of this Content-Type are compressed (when large enough and the client accepts a coding). */
export function compressibleType(contentType: OutgoingHttpHeader | undefined): boolean {
  return typeof contentType === 'string' && COMPRESSIBLE.test(contentType);
}

const CODING = /^\s*([\w!#$%&'*+.^`|~-]+)\s*(?:;\s*q\s*=\s*([01](?:\.\d{0,3})?))?\s*$/i;
const accepted = new Map<string, readonly ContentCoding[]>();

/**
 * The codings an Accept-Encoding header accepts, best first (RFC 9110 12.5.3): by q-value, then br before gzip.
 * `*` stands for every coding the header does not name; `x-gzip` is gzip; q=0 refuses. No header, an empty one,
 * or only `identity` accepts none (the answer is sent as it is). An element that does not parse is ignored.
 */
export function acceptedCodings(header: string | undefined): readonly ContentCoding[] {
  if (!header) return [];
  const known = accepted.get(header);
  if (known) return known;
  const q = new Map<string, number>();
  for (const element of header.split(',')) {
    const match = CODING.exec(element);
    if (!match?.[1]) continue;
    const name = match[1].toLowerCase() === 'x-gzip' ? 'gzip' : match[1].toLowerCase();
    q.set(name, Math.min(1, match[2] === undefined ? 1 : Number(match[2])));
  }
  const star = q.get('*') ?? 0;
  const codings = CONTENT_CODINGS.map((coding) => ({ coding, q: q.get(coding) ?? star }))
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((c) => c.coding);
  // Clients send a few distinct headers; a bounded memo keeps a hostile stream of them from growing it.
  if (accepted.size >= 256) accepted.clear();
  accepted.set(header, codings);
  return codings;
}

/** The first accepted coding among those available (all, when none is given), or null for the bytes as they are. */
export function chooseCoding(
  header: string | undefined,
  available: (coding: ContentCoding) => boolean = () => true,
): ContentCoding | null {
  for (const coding of acceptedCodings(header)) if (available(coding)) return coding;
  return null;
}

/** The ETag of a compressed form: the bytes' own with the coding inside the quotes, `"…-br"`, `W/"…-gzip"`. */
export function codedEtag(etag: string, coding: ContentCoding | null): string {
  return coding === null || !etag.endsWith('"') ? etag : `${etag.slice(0, -1)}-${coding}"`;
}

/** Whether a Cache-Control value forbids intermediaries (and so us) to transform the body. */
function noTransform(cacheControl: OutgoingHttpHeader | undefined): boolean {
  return typeof cacheControl === 'string' && /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(cacheControl);
}

const offered = new WeakMap<ServerResponse, { bytes: Buffer; coded: Coded }>();
const asIs = new WeakSet<ServerResponse>();

/** These bytes' compressed forms, built beforehand: the answer uses one that is ready rather than compressing. */
export function offerCoded(res: ServerResponse, bytes: Buffer, coded: Coded): void {
  offered.set(res, { bytes, coded });
}

/** This answer goes as it is, without Vary (files served by express.static: they stream, and take Range). */
export function sendAsIs(res: ServerResponse): void {
  asIs.add(res);
}

/** Adds Accept-Encoding to the response's Vary unless there already. */
export function varyOnEncoding(res: ServerResponse): void {
  const vary = res.getHeader('vary');
  const value = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  if (value === '') res.setHeader('Vary', 'Accept-Encoding');
  else if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(value))
    res.setHeader('Vary', `${value}, Accept-Encoding`);
}

/**
 * A body answered outside Express (a fast path) as the layer would send it: in the best coding the request accepts,
 * compressed now at the per-request level (or its remembered form), when of COMPRESS_FROM_BYTES or more; with the headers to add (always
 * Vary, and Content-Encoding when coded).
 */
export function codedAnswer(req: IncomingMessage, bytes: Buffer): { bytes: Buffer; headers: string[] } {
  const coding = bytes.length >= COMPRESS_FROM_BYTES ? chooseCoding(req.headers['accept-encoding']) : null;
  if (coding === null) return { bytes, headers: ['Vary', 'Accept-Encoding'] };
  return {
    bytes: compressedNow(bytes, coding),
    headers: ['Vary', 'Accept-Encoding', 'Content-Encoding', coding],
  };
}

type End = ServerResponse['end'];

/**
 * Compression and conditional GET for the answers Express sends whole (one `end` with the body): a body of a
 * compressible type of COMPRESS_FROM_BYTES or more, unless `Cache-Control: no-transform` or already coded, is sent
 * in the best coding the client accepts, with `Content-Encoding`, its own length, and its own ETag (the bytes'
 * with the coding inside the quotes); every answer of a compressible type carries `Vary: Accept-Encoding`. An
 * answer with an ETag is 304 when If-None-Match names the ETag of the representation this request would get,
 * so `"x"` never validates the brotli form `"x-br"`. A streamed answer (a `write` before `end`) goes as it is.
 * A body of REMEMBER_FROM_BYTES or more is sent in the form built earlier from the same bytes, when remembered
 * (decision 0041).
 */
export function compressAnswer(req: IncomingMessage, res: ServerResponse): void {
  const end = res.end as (...args: unknown[]) => ServerResponse;
  const write = res.write as (...args: unknown[]) => boolean;
  let streamed = false;
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    streamed = true;
    return write.apply(this, args);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (streamed || res.headersSent || asIs.has(res)) return end.apply(this, args);
    const [chunk, encoding, done] = args;
    const callback = [chunk, encoding, done].find((a) => typeof a === 'function');
    const body =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
            : null;
    const finish = (bytes: Buffer | null): ServerResponse =>
      bytes === null ? end.call(this, callback) : end.call(this, bytes, callback);

    const compressible = compressibleType(res.getHeader('content-type'));
    if (compressible) varyOnEncoding(res);
    const status = res.statusCode;
    const coding =
      body !== null &&
      compressible &&
      body.length >= COMPRESS_FROM_BYTES &&
      status !== 204 &&
      status !== 206 &&
      status !== 304 &&
      !res.hasHeader('content-encoding') &&
      !noTransform(res.getHeader('cache-control'))
        ? chooseCoding(req.headers['accept-encoding'], availableFor(res, body))
        : null;

    const etag = res.getHeader('etag');
    if (typeof etag === 'string') {
      const representation = codedEtag(etag, coding);
      res.setHeader('ETag', representation);
      if (
        status === 200 &&
        (req.method === 'GET' || req.method === 'HEAD') &&
        matchesEtag(req.headers['if-none-match'], representation)
      ) {
        res.statusCode = 304;
        for (const name of ['content-type', 'content-length', 'content-disposition']) res.removeHeader(name);
        return finish(null);
      }
    }
    if (coding === null || body === null) return finish(body);

    const send = (compressed: Buffer): ServerResponse => {
      res.setHeader('Content-Encoding', coding);
      res.setHeader('Content-Length', compressed.length);
      return finish(compressed);
    };
    const ready = offered.get(res);
    const precompressed = ready?.bytes === body ? ready.coded[coding] : undefined;
    if (precompressed) return send(precompressed);
    if (body.length <= COMPRESS_NOW_UP_TO) return send(compressedNow(body, coding));
    const known = rememberedForms.get(body, coding);
    if (known) return send(known);
    // The bytes compressed in the thread pool are the copy kept with their form.
    const copy = Buffer.from(body);
    compressLater(copy, coding, PER_REQUEST_LEVEL[coding]).then(
      (form) => {
        rememberedForms.set(copy, coding, form, true);
        return send(form);
      },
      () => finish(body),
    );
    return res;
  } as End;
}

/**
 * Which codings an answer can be sent in: any (compressed now) unless its bytes were offered with forms built
 * beforehand, then only those ready, so a form's ETag always names the same bytes.
 */
function availableFor(res: ServerResponse, body: Buffer): (coding: ContentCoding) => boolean {
  const ready = offered.get(res);
  if (ready === undefined || ready.bytes !== body) return () => true;
  return (coding) => ready.coded[coding] !== undefined;
}
