import { type ChangelogEntry, endpoints } from '@svc/contracts';
import { changes as latestChanges } from '../../services/records/changelog.js';
import { atomDocument } from '../atom.js';

import { siteUrlOf } from '../problem.js';
import { defineRoute, serviceContextOf } from '../route.js';

const describeChange = (c: ChangelogEntry): string => {
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
export default defineRoute(endpoints.getChangelogAtom, async ({ caller, services, req }) => {
  const site = siteUrlOf(req);
  const { data: changes } = await latestChanges(serviceContextOf({ caller, services, req }), { limit: 100 });
  const updated = changes[0] ? new Date(changes[0].changed_at) : services.startedAt;
  const body = atomDocument({
    id: `${site}/api/public/changelog.atom`,
    title: 'Risk Indicator changes',
    subtitle: 'New, changed and withdrawn Risk Indicators under the Digital Credit Risk Framework.',
    alternate: `${site}/api/public/changelog`,
    self: `${site}/api/public/changelog.atom`,
    updated,
    author: 'Risk Indicator Scoring Service',
    rights: 'Risk Indicators are not credit ratings or investment advice.',
    entries: changes.map((c) => ({
      id: `${site}/api/public/changelog#${c.id}`,
      title: describeChange(c),
      link: c.risk_indicator_id ? `${site}/verify/${c.risk_indicator_id}` : `${site}/api/public/changelog`,
      updated: new Date(c.changed_at),
      summary: `${c.change_type} under ${c.framework_version}`,
    })),
  });
  return {
    body,
    contentType: 'application/atom+xml; charset=utf-8',
    headers: { 'Cache-Control': 'public, max-age=30' },
  };
});
