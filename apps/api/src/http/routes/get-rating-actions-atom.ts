import { endpoints, type RatingAction } from '@svc/contracts';
import { ratingActionsPage } from '../../services/rating-actions/rating-actions.js';
import { atomDocument } from '../atom.js';
import { siteUrlOf } from '../problem.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** A feed reader's title of an action: the provider, what happened, and the figures that moved. */
function describeAction(a: RatingAction): string {
  const rating = `${a.new_score} (${a.new_band})`;
  switch (a.type) {
    case 'NEW':
      return `${a.provider_name}: first rating ${rating}`;
    case 'UPGRADE':
    case 'DOWNGRADE':
      return `${a.provider_name}: ${a.type === 'UPGRADE' ? 'upgraded' : 'downgraded'} ${a.previous_band} to ${a.new_band} (${a.previous_score} to ${a.new_score})`;
    case 'AFFIRM':
      return `${a.provider_name}: affirmed ${rating}`;
    case 'WITHDRAW':
      return `${a.provider_name}: rating withdrawn (was ${a.previous_score}, ${a.previous_band})`;
    case 'REINSTATE':
      return `${a.provider_name}: rating reinstated at ${rating}`;
    case 'WATCH_PLACED':
      return `${a.provider_name}: placed on watch ${a.watch?.direction} (review by ${a.watch?.review_by})`;
    case 'WATCH_REMOVED':
      return `${a.provider_name}: watch removed, rating ${rating}`;
    case 'OUTLOOK_CHANGED':
      return `${a.provider_name}: outlook ${a.outlook}`;
  }
}

/** The latest 100 rating actions as an Atom feed, each linking to its signed statement. */
export default defineRoute(endpoints.getRatingActionsAtom, async (route) => {
  const { services, req } = route;
  const site = siteUrlOf(req);
  const { data: actions } = await ratingActionsPage(serviceContextOf(route), { limit: 100 });
  const updated = actions[0] ? new Date(actions[0].effective_at) : services.startedAt;
  const body = atomDocument({
    id: `${site}/api/public/rating-actions.atom`,
    title: 'Rating actions',
    subtitle:
      'Ratings published, upgraded, downgraded, affirmed, withdrawn and reinstated; watches placed and removed; outlooks changed.',
    alternate: `${site}/api/public/rating-actions`,
    self: `${site}/api/public/rating-actions.atom`,
    updated,
    author: 'Risk Indicator Scoring Service',
    rights: 'Risk Indicators are not credit ratings or investment advice.',
    entries: actions.map((a) => ({
      id: `${site}/api/public/rating-actions#${a.id}`,
      title: describeAction(a),
      link: `${site}/api/public/rating-actions/${a.id}/statement`,
      updated: new Date(a.effective_at),
      summary: `${a.type} under ${a.framework_version}; outlook ${a.outlook}${a.watch ? `, on watch ${a.watch.direction}` : ''}${a.rationale ? `. ${a.rationale}` : ''}`,
    })),
  });
  return {
    body,
    contentType: 'application/atom+xml; charset=utf-8',
    headers: { 'Cache-Control': 'public, max-age=30' },
  };
});
