import { endpoints } from '@svc/contracts';
import { releasedFrameworks } from '../../services/frameworks.js';
import { strongEtag } from '../../services/public-snapshot.js';
import { matchesEtag, PUBLIC_SCORES_CACHE_CONTROL } from '../public-scores.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** Every released framework, with a strong ETag of the answer's bytes; a matching If-None-Match gets 304. */
export default defineRoute(endpoints.listFrameworks, async (route) => {
  const bytes = Buffer.from(JSON.stringify({ data: await releasedFrameworks(serviceContextOf(route)) }));
  const etag = strongEtag(bytes);
  // As the public list: a release recorded shows within the minute.
  const headers = { ETag: etag, 'Cache-Control': PUBLIC_SCORES_CACHE_CONTROL };
  if (matchesEtag(route.req.get('if-none-match'), etag)) return { status: 304, headers };
  return { body: bytes, contentType: 'application/json', headers };
});
