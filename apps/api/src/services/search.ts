import type { PlannerType, ProviderMatch } from '@svc/contracts';
import type { Headline, PublicSnapshot } from './public-snapshot.js';

/** A name as searches compare it: accents and case dropped, spaces collapsed ("Société  Générale" → "societe generale"). */
export function foldName(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

const RANK = { exact: 0, prefix: 1, word_prefix: 2, substring: 3 } as const;

function matchOf(folded: string, query: string): ProviderMatch['match'] | null {
  if (folded === query) return 'exact';
  if (folded.startsWith(query)) return 'prefix';
  const at = folded.indexOf(query);
  if (at < 0) return null;
  // A word starts where the text follows a character that is not a letter or a digit.
  for (let i = at; i >= 0; i = folded.indexOf(query, i + 1)) {
    if (!/[\p{L}\p{N}]/u.test(folded[i - 1] ?? ' ')) return 'word_prefix';
  }
  return 'substring';
}

/** Folded names of a snapshot's headlines, computed once per snapshot. */
const foldedOf = new WeakMap<readonly Headline[], string[]>();

/**
 * Providers with a current indicator whose name contains the query, ignoring case and accents: the
 * whole name first, then names starting with it, a word starting with it, then any other; by name
 * within each. Reads the public snapshot, so a search costs no store round trip.
 */
export async function searchProviders(
  snapshot: PublicSnapshot,
  query: { q: string; planner_type?: PlannerType | undefined; limit: number },
): Promise<ProviderMatch[]> {
  const headlines = await snapshot.headlines();
  let folded = foldedOf.get(headlines);
  if (!folded) {
    folded = headlines.map((h) => foldName(h.name));
    foldedOf.set(headlines, folded);
  }
  const q = foldName(query.q);
  // A query of nothing but combining marks folds to nothing, which every name would start with.
  if (q === '') return [];
  const found: { headline: Headline; match: ProviderMatch['match']; name: string }[] = [];
  headlines.forEach((headline, i) => {
    if (query.planner_type && headline.planner_type !== query.planner_type) return;
    const name = folded[i] as string;
    const match = matchOf(name, q);
    if (match) found.push({ headline, match, name });
  });
  found.sort(
    (a, b) =>
      RANK[a.match] - RANK[b.match] ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.headline.id < b.headline.id ? -1 : 1),
  );
  return found.slice(0, query.limit).map(({ headline: h, match }) => ({
    id: h.id,
    name: h.name,
    planner_type: h.planner_type,
    provider_subtype: h.provider_subtype,
    final_score: h.final_score,
    risk_band: h.risk_band,
    scored_at: h.scored_at,
    match,
  }));
}
