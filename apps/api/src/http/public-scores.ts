import type { Coded } from '../services/shared/encoded.js';
import { strongEtag } from '../services/shared/public-snapshot.js';

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
 * life, and their compressed forms when built beforehand (`coded`). The 304 for a matching If-None-Match, and the
 * compressed form's own ETag, are the compression layer's (compression.ts): the ETag to match depends on the coding.
 */
export function conditionalAnswer(
  bytes: Buffer,
  contentType: string,
  etag = strongEtag(bytes),
  coded?: Coded,
): { headers: Record<string, string>; body: Buffer; contentType: string; coded?: Coded } {
  const headers = { ETag: etag, 'Cache-Control': PUBLIC_SCORES_CACHE_CONTROL };
  return { body: bytes, contentType, headers, ...(coded ? { coded } : {}) };
}
