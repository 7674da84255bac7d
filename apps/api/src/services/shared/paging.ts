import { UuidSchema } from '@svc/contracts';
import { z } from 'zod';
import { ServiceError } from '../errors.js';

/** Opaque cursors: base64url of a JSON position, checked when read back. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,2048}$/;
const NOT_A_CURSOR = 'is not a next_cursor value of this list';

/**
 * The position a cursor holds: base64url of JSON whose every field is checked against the list's position schema
 * (types, formats, no control characters), so nothing a client makes up reaches a query; null when it is not one.
 */
export function cursorPosition<T>(cursor: string, position: z.ZodType<T>): T | null {
  let value: unknown;
  if (CURSOR_TEXT.test(cursor)) {
    try {
      value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      value = undefined;
    }
  }
  const parsed = position.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * Reads a list's `cursor` parameter back into its position: anything that is not a cursor of the list is an
 * invalid_request naming `query.cursor`, the same on every engine.
 */
export function decodeCursor<T>(cursor: string | undefined, position: z.ZodType<T>): T | undefined {
  if (cursor === undefined) return undefined;
  const decoded = cursorPosition(cursor, position);
  if (decoded === null) {
    throw new ServiceError('invalid_request', `invalid query: query.cursor: ${NOT_A_CURSOR}`, [
      { path: 'query.cursor', message: NOT_A_CURSOR },
    ]);
  }
  return decoded;
}

/** Fetches one row more than the page to know whether another page follows. */
export function pageOf<R>(rows: R[], limit: number, positionOf: (row: R) => unknown) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { page, nextCursor: more && last !== undefined ? encodeCursor(positionOf(last)) : null };
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
/** Lists in name order as of a past instant (`as_of`): the last row's name and provider id, and the instant. */
export const NameAsOfPosition = z.strictObject({ name: positionText, id: UuidSchema, t: positionTime });

/**
 * Reads the cursor of a list in name order back into its position: a cursor made with an `as_of` holds that instant
 * and serves only the same one (the same list); a cursor made without serves only without. Anything else is an
 * invalid_request naming `query.cursor`, saying which `as_of` the cursor was made for when that is the fault.
 */
export function decodeNameCursor(
  cursor: string | undefined,
  asOf: string | undefined,
): { name: string; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const plain = cursorPosition(cursor, NamePosition);
  const dated = plain === null ? cursorPosition(cursor, NameAsOfPosition) : null;
  if (asOf === undefined ? plain !== null : dated !== null && dated.t === asOf) {
    const { name, id } = (plain ?? dated) as { name: string; id: string };
    return { name, id };
  }
  const restart = 'or start again without the cursor';
  const message =
    plain !== null
      ? `was made without as_of: use it without as_of, ${restart}`
      : dated !== null
        ? `was made with as_of ${dated.t}${asOf === undefined ? '' : `, not ${asOf}`}: pass that as_of with it, ${restart}`
        : NOT_A_CURSOR;
  throw new ServiceError('invalid_request', `invalid query: query.cursor: ${message}`, [
    { path: 'query.cursor', message },
  ]);
}

/** A name-order list's next cursor position: with the `as_of` instant when the list is as of one. */
export function namePosition(row: { name: string; id: string }, asOf: string | undefined) {
  return asOf === undefined ? { name: row.name, id: row.id } : { name: row.name, id: row.id, t: asOf };
}

/**
 * The largest sequence number a list's position can hold: the store's sequence columns are PostgreSQL `integer`
 * (32 bits), so a larger number in a cursor is no row's position, and must never reach a query (PostgreSQL refuses
 * it as out of range where SQLite would compare it).
 */
export const SEQUENCE_MAX = 2_147_483_647;
/** A sequence number as a cursor may hold it: a whole number the store's columns hold. */
export const positionSequence = (min: number) => z.number().int().min(min).max(SEQUENCE_MAX);

/** Lists in sequence order: the last row's sequence number. */
export const NumberPosition = z.strictObject({ n: positionSequence(0) });
/** Lists in time order: the last row's timestamp (`a` announced, `c` created) and id. */
export const AnnouncedPosition = z.strictObject({ a: positionTime, id: positionId });
export const CreatedPosition = z.strictObject({ c: positionTime, id: positionId });
