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
 * Levels: bodies built once (the public list, its pages) are compressed at the highest, in the background; answers
 * built per request at levels that cost about as much as serialising them (docs/decisions/0037-compression.md).
 */
export const ONCE_LEVEL: Record<ContentCoding, number> = { br: 11, gzip: 9 };
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
 * Starts compressing bytes built once in every coding at the highest level, in the background; each form is put
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
