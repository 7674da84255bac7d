import { strongEtag } from '../services/public-snapshot.js';

/** The entity-tags of an If-None-Match list (RFC 9110 8.8.3): `*`, or `"…"` each with an optional `W/`. */
const ENTITY_TAG = /\s*(?:(\*)|(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*"))\s*(?:,|$)/y;

/**
 * Whether an If-None-Match header names this ETag (or `*`): the answer is then 304 with no body. RFC 9110 13.1.2
 * prescribes the weak comparison for If-None-Match: `W/"x"` matches `"x"`. A list that does not parse matches
 * nothing (the full answer is always safe).
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  ENTITY_TAG.lastIndex = 0;
  let matched = false;
  while (ENTITY_TAG.lastIndex < ifNoneMatch.length) {
    const start = ENTITY_TAG.lastIndex;
    const tag = ENTITY_TAG.exec(ifNoneMatch);
    if (!tag || ENTITY_TAG.lastIndex === start) return false;
    if (tag[1] === '*' || tag[2] === opaque) matched = true;
  }
  return matched;
}

export const PUBLIC_SCORES_CACHE_CONTROL = 'public, max-age=60';

/**
 * A public answer of these bytes with a strong ETag of their own (unless one is given) and the public list's cache
 * life; a matching If-None-Match gets 304 and no body.
 */
export function conditionalAnswer(
  ifNoneMatch: string | undefined,
  bytes: Buffer,
  contentType: string,
  etag = strongEtag(bytes),
): { status?: number; headers: Record<string, string>; body?: Buffer; contentType?: string } {
  const headers = { ETag: etag, 'Cache-Control': PUBLIC_SCORES_CACHE_CONTROL };
  if (matchesEtag(ifNoneMatch, etag)) return { status: 304, headers };
  return { body: bytes, contentType, headers };
}
