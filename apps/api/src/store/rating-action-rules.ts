import { sha256Hex } from '@svc/methodology';

/**
 * The rules that derive rating actions from publications and withdrawals (decision 0030), in one place: the
 * publishing verbs apply them as they publish, migration 0012 applied them to the history recorded before.
 */

/** The bands from the lowest risk to the highest: a move towards the start is an upgrade. */
const BAND_ORDER = ['LOW', 'MEDIUM', 'ELEVATED', 'HIGH', 'SEVERE'];

export type PublicationActionType = 'NEW' | 'UPGRADE' | 'DOWNGRADE' | 'AFFIRM' | 'REINSTATE';

/**
 * The action a publication is: NEW for a provider's first, REINSTATE for the first after a withdrawal, else by the
 * band of the indicator it replaced (an unchanged re-publication writes nothing and is no action).
 */
export function publicationActionType(
  before: { published: false } | { published: true; withdrawn: true } | { published: true; band: string },
  band: string,
): PublicationActionType {
  if (!before.published) return 'NEW';
  if ('withdrawn' in before) return 'REINSTATE';
  const from = BAND_ORDER.indexOf(before.band);
  const to = BAND_ORDER.indexOf(band);
  if (to < from) return 'UPGRADE';
  return to > from ? 'DOWNGRADE' : 'AFFIRM';
}

/**
 * The id of the action of a publication or a withdrawal: a function of what it derives from (its kind, its
 * publication's seq, provider, indicator and instant), so the same record yields the same ids on either engine,
 * at migration or at publication, and a copy of a store migrated twice agrees with itself.
 */
export function derivedActionId(
  kind: 'publication' | 'withdrawal',
  facts: { seq: number; providerId: string; riskIndicatorId: string; at: string },
): string {
  const text = `svc rating action\n${kind}\n${facts.seq}\n${facts.providerId}\n${facts.riskIndicatorId}\n${facts.at}`;
  return `ra_${sha256Hex(text).slice(0, 24)}`;
}
