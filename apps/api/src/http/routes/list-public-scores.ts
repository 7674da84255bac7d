import { endpoints } from '@svc/contracts';
import { defineRoute } from '../route.js';

/** The snapshot's bytes with a strong ETag; a matching If-None-Match gets 304 and no body. */
export default defineRoute(endpoints.listPublicScores, async ({ services, req }) => {
  const { body } = await services.snapshot.get();
  const headers = { ETag: body.etag, 'Cache-Control': 'public, max-age=60' };
  const ifNoneMatch = req.get('if-none-match');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === body.etag || tag.trim() === '*')) {
    return { status: 304, headers };
  }
  return { body: body.bytes, contentType: 'application/json', headers };
});
