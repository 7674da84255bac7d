import type { RatingAction } from '@svc/contracts';
import type { ServiceContext } from '../context.js';
import { ratingActionsPage } from '../rating-actions/rating-actions.js';
import type { Headline } from '../shared/public-snapshot.js';
import { type PublishedIndicator, publishedIndicator } from './scores.js';

/** What a provider's public page shows: only what the public list and the verification pages already expose. */
export interface ProviderView {
  /** Its headline in the public list; null once its coverage is withdrawn. */
  headline: Headline | null;
  /** The indicator in force (as its verification page shows it); null when none is. */
  current: PublishedIndicator | null;
  /** Its effective rating actions, newest first. */
  actions: RatingAction[];
  /** The indicators it has had published, newest first (each has a verification page). */
  publications: string[];
}

/** Rating actions read per page while gathering a provider's whole record. */
const PAGE = 500;

/**
 * A provider's public page, by its id (a UUID, already checked): null when the provider has never had an indicator
 * published (not in the public list and no rating action). With `asOf` (an instant as stored, already checked to be
 * servable), the page as it stood then: the headline of the public list as of that instant, the actions effective by
 * then, and the indicator in force then; null when nothing was published for it by then.
 */
export async function providerView(
  ctx: ServiceContext,
  input: { providerId: string; asOf?: string | undefined },
): Promise<ProviderView | null> {
  const providerId = input.providerId.toLowerCase();
  const { asOf } = input;
  const headlines = asOf === undefined ? await ctx.snapshot.headlines() : (await ctx.snapshot.asOf(asOf)).headlines;
  const headline = headlines.find((h) => h.id === providerId) ?? null;
  const actions: RatingAction[] = [];
  let cursor: string | undefined;
  do {
    const page = await ratingActionsPage(ctx, { provider_id: providerId, cursor, limit: PAGE });
    actions.push(...page.data.filter((a) => asOf === undefined || a.effective_at <= asOf));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (headline === null && actions.length === 0) return null;
  const publications = [...new Set(actions.map((a) => a.risk_indicator_id))];
  // The newest action names the indicator in force when it took effect (or the one withdrawn).
  const newest = actions[0];
  const found = headline && newest ? await publishedIndicator(ctx, { id: newest.risk_indicator_id }) : null;
  // Now, the indicator in force is the current one; as of a past instant, the one the newest action then names.
  const current = found && (asOf !== undefined || found.standing.kind === 'current') ? found : null;
  return { headline, current, actions, publications };
}
