import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/** The content codings the service sends (RFC 9110 8.4.1), in its order of preference among equals. */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** A body's compressed forms, each present once built. */
export type Coded = Partial<Record<ContentCoding, Buffer>>;

/** Bodies smaller than this are sent as they are: the bytes saved do not pay for the work and the header. */
export const COMPRESS_FROM_BYTES = 1024;

/**
 * Levels: bodies built once (the public list now and as of an instant, their pages) are compressed in the
 * background at brotli quality 9 and gzip level 9; answers built per request at levels that cost about as much as
 * serialising them (docs/decisions/0037-compression.md). Not brotli's quality 11: on the list of 10,000 providers
 * (2.65 MB) it took 15 s of a core, for a form no smaller than quality 9's, built in 0.1 s (decision 0045).
 */
export const ONCE_LEVEL: Record<ContentCoding, number> = { br: 9, gzip: 9 };
export const PER_REQUEST_LEVEL: Record<ContentCoding, number> = { br: 5, gzip: 6 };

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function brotliOptions(bytes: Buffer, quality: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  };
}

/** These bytes in a coding at a level, on this thread (for small bodies: a hop to the thread pool costs more). */
export function compressNow(bytes: Buffer, coding: ContentCoding, level: number): Buffer {
  return coding === 'br' ? brotliCompressSync(bytes, brotliOptions(bytes, level)) : gzipSync(bytes, { level });
}

/** These bytes in a coding at a level, in libuv's thread pool (the event loop goes on serving meanwhile). */
export function compressLater(bytes: Buffer, coding: ContentCoding, level: number): Promise<Buffer> {
  return coding === 'br' ? brotliAsync(bytes, brotliOptions(bytes, level)) : gzipAsync(bytes, { level });
}

/**
 * Starts compressing bytes built once in every coding at ONCE_LEVEL, in the background; each form is put
 * in `coded` when done (until then the bytes are served as they are) and `built` is called. Bytes under
 * COMPRESS_FROM_BYTES, and a form no smaller than the bytes, are never kept.
 */
export function precompress(bytes: Buffer, coded: Coded, built: (coding: ContentCoding) => void): void {
  if (bytes.length < COMPRESS_FROM_BYTES) return;
  // gzip first: it is done in a fraction of brotli's time, and serves clients that take both meanwhile.
  for (const coding of ['gzip', 'br'] as const) {
    compressLater(bytes, coding, ONCE_LEVEL[coding]).then(
      (compressed) => {
        if (compressed.length < bytes.length) coded[coding] = compressed;
        built(coding);
      },
      // zlib fails only on exhausted memory: the bytes are served as they are.
      () => undefined,
    );
  }
}

/** Answers built per request are remembered compressed from this size: below it, compressing costs little. */
export const REMEMBER_FROM_BYTES = 64 * 1024;

interface Remembered {
  body: Buffer;
  coded: Buffer;
}

/**
 * The compressed forms of large answers built per request (a keyed page of 100 is 1.2 MB, and brotli takes some
 * milliseconds over it), remembered by their bytes: the same bytes asked again in the same coding are served in
 * the form already built. A form is found by a fingerprint (length, first and last 4 KiB) and served only when the
 * bytes are equal to those it was built from, byte for byte, so a hit is the form compressing would give; a
 * different body under the same fingerprint is a miss, and replaces the form. The memo keeps a copy of each body it
 * remembers, taken before compressing, and at most `capacity` bytes of bodies and forms, forgetting the least
 * recently served first (docs/decisions/0041-remembered-forms.md).
 */
export class RememberedForms {
  /** Insertion order is the order of last use: the first entry is the next forgotten. */
  private readonly forms = new Map<string, Remembered>();
  private held = 0;
  /** Forms built (misses) and forms served from the memo (hits), since the process started. */
  compressions = 0;
  hits = 0;

  constructor(private readonly capacity = 64 * 1024 * 1024) {}

  /** The form of these bytes in this coding, when remembered. */
  get(body: Buffer, coding: ContentCoding): Buffer | undefined {
    const key = fingerprint(body, coding);
    const known = this.forms.get(key);
    if (known === undefined || !known.body.equals(body)) return undefined;
    this.forms.delete(key);
    this.forms.set(key, known);
    this.hits++;
    return known.coded;
  }

  /**
   * Remembers the form of these bytes in this coding, forgetting older forms to stay in bounds: a copy of the bytes,
   * unless `owned` (a copy the caller took before compressing, and gives up).
   */
  set(body: Buffer, coding: ContentCoding, coded: Buffer, owned = false): void {
    this.compressions++;
    // zlib hands a small form as a slice of a larger chunk: kept alone (not in Buffer's shared pool either), so the
    // bound counts what is held.
    const form = coded.byteLength < coded.buffer.byteLength ? ownCopy(coded) : coded;
    const size = body.length + form.length;
    if (size > this.capacity) return;
    const key = fingerprint(body, coding);
    this.forget(key);
    while (this.held + size > this.capacity) {
      const oldest = this.forms.keys().next().value as string;
      this.forget(oldest);
    }
    this.forms.set(key, { body: owned ? body : Buffer.from(body), coded: form });
    this.held += size;
  }

  /** Bytes of bodies and forms held. */
  get size(): number {
    return this.held;
  }

  private forget(key: string): void {
    const known = this.forms.get(key);
    if (known === undefined) return;
    this.forms.delete(key);
    this.held -= known.body.length + known.coded.length;
  }
}

/** A copy of these bytes in memory of their own. */
function ownCopy(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

const EDGE = 4096;

function fingerprint(body: Buffer, coding: ContentCoding): string {
  const head = body.subarray(0, EDGE);
  const tail = body.subarray(Math.max(EDGE, body.length - EDGE));
  return `${coding}:${body.length}:${hash('sha256', head, 'base64')}:${hash('sha256', tail, 'base64')}`;
}
