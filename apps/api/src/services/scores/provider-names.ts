import type { FieldProblem, ProviderAmbiguity, ProviderCandidate } from '@svc/contracts';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import type { Headline } from '../shared/public-snapshot.js';
import { exactlyNamed, hasHeadline, matchProviders } from './search.js';

/** How many candidates an ambiguous name lists. */
const SHOWN_CANDIDATES = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Resolution =
  | { kind: 'found'; id: string }
  | { kind: 'ambiguous'; candidates: ProviderCandidate[]; total: number }
  | { kind: 'unknown' };

/**
 * A provider as an agent names it, matched as the provider search matches: a provider id as it is, else the
 * providers whose folded name is the text exactly, else every match; one of them is the provider, several are
 * candidates to ask the user about, best match first; among `headlines`, the providers with an indicator in force
 * (now, or at the instant asked about).
 */
function resolveProvider(headlines: readonly Headline[], text: string): Resolution {
  if (UUID.test(text)) {
    const id = text.toLowerCase();
    if (hasHeadline(headlines, id)) return { kind: 'found', id };
  }
  // Exact names are looked up; only a name matching none exactly is searched for, through every provider.
  const exact = exactlyNamed(headlines, text);
  const pool = exact.length > 0 ? exact : matchProviders(headlines, { q: text, limit: Math.max(headlines.length, 1) });
  const [only] = pool;
  if (!only) return { kind: 'unknown' };
  if (pool.length === 1) return { kind: 'found', id: only.id };
  return {
    kind: 'ambiguous',
    candidates: pool
      .slice(0, SHOWN_CANDIDATES)
      .map((m) => ({ id: m.id, name: m.name, final_score: m.final_score, risk_band: m.risk_band })),
    total: pool.length,
  };
}

export interface ProviderNames {
  names: readonly string[];
  /** Where each name was given (`input.provider_name`), as a refusal's problems name it. */
  paths: readonly string[];
  /** Match among the providers with an indicator in force at this instant (as stored) rather than now. */
  asOf?: string | undefined;
}

/**
 * Several names resolved at once: the provider ids in order, or the answer for the names that match several
 * providers. A name that matches none is a not_found naming every such name (at its path). Names are matched among
 * the providers with an indicator in force now, or with `asOf` then, as the public snapshot holds them.
 */
export async function resolveProviderNames(
  ctx: ServiceContext,
  input: ProviderNames,
): Promise<{ ids: string[] } | { ambiguity: ProviderAmbiguity }> {
  const { names, paths, asOf } = input;
  const { snapshot } = ctx;
  const headlines = asOf === undefined ? await snapshot.headlines() : (await snapshot.asOf(asOf)).headlines;
  const resolutions = names.map((name) => resolveProvider(headlines, name));
  const published = asOf === undefined ? 'a published Risk Indicator' : `a Risk Indicator in force at ${asOf}`;
  const unknown: FieldProblem[] = resolutions.flatMap((r, i) =>
    r.kind === 'unknown'
      ? [{ path: paths[i] ?? 'input', message: `"${names[i]}" matches no provider with ${published}` }]
      : [],
  );
  if (unknown.length > 0) {
    throw new ServiceError('not_found', unknown.map((p) => p.message).join('; '), unknown);
  }
  const ambiguous = resolutions.flatMap((r, i) =>
    r.kind === 'ambiguous' ? [{ provider_name: names[i] ?? '', candidates: r.candidates, total: r.total }] : [],
  );
  if (ambiguous.length > 0) {
    const said = ambiguous.map((a) => `"${a.provider_name}" matches ${a.total} providers`).join('; ');
    return {
      ambiguity: {
        status: 'ambiguous',
        detail: `${said}: ask which one is meant, then call again with its name or id`,
        names: ambiguous,
      },
    };
  }
  return { ids: resolutions.map((r) => (r.kind === 'found' ? r.id : '')) };
}
