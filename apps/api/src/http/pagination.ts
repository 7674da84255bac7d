import { ApiError } from './problem.js';

/** Opaque cursors: base64url of a JSON position, checked when read back. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, isPosition: (value: unknown) => value is T): T | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!isPosition(value)) {
    throw new ApiError('invalid_request', 'invalid query: query.cursor: is not a next_cursor value of this list', {
      errors: [{ path: 'query.cursor', message: 'is not a next_cursor value of this list' }],
    });
  }
  return value;
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

export const isNamePosition = (v: unknown): v is { name: string; id: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { name?: unknown }).name === 'string' &&
  typeof (v as { id?: unknown }).id === 'string';

export const isNumberPosition = (v: unknown): v is { n: number } =>
  typeof v === 'object' && v !== null && Number.isSafeInteger((v as { n?: unknown }).n);
