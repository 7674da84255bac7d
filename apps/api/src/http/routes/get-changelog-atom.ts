import { endpoints } from '@svc/contracts';
import { Feed } from 'feed';
import { listChanges } from '../../store/repositories/changelog.js';
import { siteUrlOf } from '../problem.js';
import { defineRoute } from '../route.js';
import { changeOf } from './get-changelog.js';

const describeChange = (c: ReturnType<typeof changeOf>): string => {
  switch (c.change_type) {
    case 'NEW':
      return `${c.provider_name}: first Risk Indicator ${c.new_score} (${c.new_band})`;
    case 'WITHDRAWN':
      return `${c.provider_name}: coverage withdrawn`;
    case 'BAND_CHANGE':
      return `${c.provider_name}: ${c.previous_band} to ${c.new_band} (${c.previous_score} to ${c.new_score})`;
    default:
      return `${c.provider_name}: ${c.previous_score} to ${c.new_score} (${c.new_band})`;
  }
};

/** The latest 100 changes as an Atom feed. */
export default defineRoute(endpoints.getChangelogAtom, async ({ services, req }) => {
  const site = siteUrlOf(req);
  const changes = (await listChanges(services.store.db, { limit: 100 })).map(changeOf);
  const updated = changes[0] ? new Date(changes[0].changed_at) : services.startedAt;
  const feed = new Feed({
    id: `${site}/api/public/changelog.atom`,
    title: 'Risk Indicator changes',
    description: 'New, changed and withdrawn Risk Indicators under the Digital Credit Risk Framework.',
    link: `${site}/api/public/changelog`,
    updated,
    copyright: 'Risk Indicators are not credit ratings or investment advice.',
    feedLinks: { atom: `${site}/api/public/changelog.atom` },
  });
  for (const c of changes) {
    feed.addItem({
      id: `${site}/api/public/changelog#${c.id}`,
      title: describeChange(c),
      link: c.risk_indicator_id ? `${site}/verify/${c.risk_indicator_id}` : `${site}/api/public/changelog`,
      date: new Date(c.changed_at),
      description: `${c.change_type} under ${c.framework_version}`,
    });
  }
  return {
    body: feed.atom1(),
    contentType: 'application/atom+xml; charset=utf-8',
    headers: { 'Cache-Control': 'public, max-age=30' },
  };
});
