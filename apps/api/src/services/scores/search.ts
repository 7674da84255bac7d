import type { PlannerType, ProviderMatch } from '@svc/contracts';
import type { ServiceContext } from '../context.js';
import type { Headline } from '../shared/public-snapshot.js';

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

function foldedNames(headlines: readonly Headline[]): string[] {
  let folded = foldedOf.get(headlines);
  if (!folded) {
    folded = headlines.map((h) => foldName(h.name));
    foldedOf.set(headlines, folded);
  }
  return folded;
}

interface NameIndex {
  ids: ReadonlySet<string>;
  byName: ReadonlyMap<string, readonly Headline[]>;
}

/** The ids and the folded names of a snapshot's headlines, indexed once per snapshot. */
const indexOf = new WeakMap<readonly Headline[], NameIndex>();

function nameIndex(headlines: readonly Headline[]): NameIndex {
  let index = indexOf.get(headlines);
  if (!index) {
    const folded = foldedNames(headlines);
    const byName = new Map<string, Headline[]>();
    headlines.forEach((h, i) => {
      const name = folded[i] as string;
      const same = byName.get(name);
      if (same) same.push(h);
      else byName.set(name, [h]);
    });
    index = { ids: new Set(headlines.map((h) => h.id)), byName };
    indexOf.set(headlines, index);
  }
  return index;
}

/** Whether a provider id is among a snapshot's headlines, without a scan. */
export function hasHeadline(headlines: readonly Headline[], id: string): boolean {
  return nameIndex(headlines).ids.has(id);
}

/**
 * The headlines whose folded name is exactly the folded query, by id: the `exact` matches of a search,
 * looked up rather than scanned (an agent naming a provider usually names it whole).
 */
export function exactlyNamed(headlines: readonly Headline[], q: string): Headline[] {
  const folded = foldName(q);
  if (folded === '') return [];
  return [...(nameIndex(headlines).byName.get(folded) ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Providers with a current indicator whose name contains the query, ignoring case and accents: the
 * whole name first, then names starting with it, a word starting with it, then any other; by name
 * within each. Reads the public snapshot, so a search costs no store round trip.
 */
export async function searchProviders(
  ctx: ServiceContext,
  query: { q: string; planner_type?: PlannerType | undefined; limit: number },
): Promise<ProviderMatch[]> {
  return matchProviders(await ctx.snapshot.headlines(), query);
}

/** The search over headlines already read (searchProviders reads them from the public snapshot). */
export function matchProviders(
  headlines: readonly Headline[],
  query: { q: string; planner_type?: PlannerType | undefined; limit: number },
): ProviderMatch[] {
  const folded = foldedNames(headlines);
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
    outlook: h.outlook,
    watch: h.watch,
    match,
  }));
}
