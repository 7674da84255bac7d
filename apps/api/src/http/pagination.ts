import { UuidSchema } from '@svc/contracts';
import { z } from 'zod';
import { ApiError } from './problem.js';

/** Opaque cursors: base64url of a JSON position, checked when read back. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,2048}$/;
const NOT_A_CURSOR = 'is not a next_cursor value of this list';

/**
 * Reads a cursor back: base64url of JSON whose every field is checked against the list's position schema (types,
 * formats, no control characters), so nothing a client makes up reaches a query. Anything else is a 400 naming
 * `query.cursor`, the same on every engine.
 */
export function decodeCursor<T>(cursor: string | undefined, position: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  if (CURSOR_TEXT.test(cursor)) {
    try {
      value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      value = undefined;
    }
  }
  const parsed = position.safeParse(value);
  if (!parsed.success) {
    throw new ApiError('invalid_request', `invalid query: query.cursor: ${NOT_A_CURSOR}`, {
      errors: [{ path: 'query.cursor', message: NOT_A_CURSOR }],
    });
  }
  return parsed.data;
}

/** Fetches one row more than the page to know whether another page follows. */
export function pageOf<R>(rows: R[], limit: number, positionOf: (row: R) => unknown) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { page, nextCursor: more && last !== undefined ? encodeCursor(positionOf(last)) : null };
}

/** The Link header of the next page, keeping the request's other query parameters. */
export function nextLink(
  path: string,
  query: Record<string, unknown>,
  nextCursor: string | null,
): Record<string, string> {
  if (nextCursor === null) return {};
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'cursor') params.set(k, String(v));
  params.set('cursor', nextCursor);
  return { Link: `<${path}?${params.toString()}>; rel="next"` };
}

/** Text of a position: what a row of the list can hold, never a control character (C0, DEL, C1). */
const positionText = z
  .string()
  .min(1)
  .max(500)
  .refine((v) => !/\p{Cc}/u.test(v));
/** An id of this service: letters, digits, `_` and `-` (UUIDs, `iss_…`, `whd_…`). */
const positionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
/** A stored timestamp as the store hands it back: ISO 8601, UTC or with an offset. */
const positionTime = z.string().regex(/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}(:?\d{2})?)$/);

/** Lists in name order: the last row's name and provider id. */
export const NamePosition = z.strictObject({ name: positionText, id: UuidSchema });
/** Lists in sequence order: the last row's sequence number. */
export const NumberPosition = z.strictObject({ n: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });
/** Lists in time order: the last row's timestamp (`a` announced, `c` created) and id. */
export const AnnouncedPosition = z.strictObject({ a: positionTime, id: positionId });
export const CreatedPosition = z.strictObject({ c: positionTime, id: positionId });
