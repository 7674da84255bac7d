/** Whether an If-None-Match header names this ETag (or `*`): the answer is then 304 with no body. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*') ?? false;
}

export const PUBLIC_SCORES_CACHE_CONTROL = 'public, max-age=60';
