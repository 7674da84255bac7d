import { endpoints, LIMITATIONS_DISCLOSURE } from '@svc/contracts';
import { publicScoresAsOf } from '../../services/scores/scores.js';
import { decodeNameCursor, encodeCursor, namePosition } from '../../services/shared/paging.js';
import { headlinesAfter } from '../../services/shared/public-snapshot.js';
import { nextLink } from '../pagination.js';
import { conditionalAnswer } from '../public-scores.js';
import { defineRoute, serviceContextOf } from '../route.js';

const DEFAULT_PAGE = 100;

/**
 * Every provider's headline from the snapshot, with a strong ETag; a matching If-None-Match gets 304 and no body
 * (compression.ts, which sends the forms compressed once per publication).
 * A plain GET is answered before Express (fast-path.ts) with the same headers; this route serves the rest: HEAD,
 * and pages (`limit` or `cursor`), cut from the same snapshot in name order, each with an ETag of its own bytes.
 * With `as_of`, the same from the list as of that instant (built from the history once per instant and
 * publication), whose cursors hold the instant.
 */
export default defineRoute(endpoints.listPublicScores, async (route) => {
  const { query, services, req } = route;
  const dated =
    query.as_of === undefined ? null : await publicScoresAsOf(serviceContextOf(route), { asOf: query.as_of });
  const read = dated ?? (await services.snapshot.get());
  if (query.limit === undefined && query.cursor === undefined) {
    return conditionalAnswer(read.body.bytes, 'application/json', read.body.etag, read.body.coded);
  }
  const asOf = dated?.asOf;
  const limit = query.limit ?? DEFAULT_PAGE;
  const { page, more } = headlinesAfter(read.headlines, decodeNameCursor(query.cursor, asOf), limit);
  const last = page[page.length - 1];
  const nextCursor = more && last ? encodeCursor(namePosition(last, asOf)) : null;
  const build = () =>
    Buffer.from(
      JSON.stringify({
        data: page,
        limitations_disclosure: LIMITATIONS_DISCLOSURE,
        cached: read.cached,
        next_cursor: nextCursor,
      }),
    );
  // A page of a list served before is built and compressed once per list; the building request's own is served once.
  const body = read.cached
    ? services.snapshot.page(read.headlines, `${query.cursor ?? ''} ${limit}`, build)
    : { bytes: build(), etag: undefined, coded: undefined };
  const reply = conditionalAnswer(body.bytes, 'application/json', body.etag, body.coded);
  return { ...reply, headers: { ...reply.headers, ...nextLink(req.path, { ...query, limit }, nextCursor) } };
});
