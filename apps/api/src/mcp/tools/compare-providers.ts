import type { FieldProblem, McpToolInput } from '@svc/contracts';
import { compareProviders as compare } from '../../services/analysis/compare.js';
import type { ServiceContext } from '../../services/context.js';
import { ServiceError } from '../../services/errors.js';
import { resolveProviderNames } from '../../services/scores/provider-names.js';

/** The providers named side by side, as GET /api/v1/scores/compare serves them. */
export async function compareProviders(ctx: ServiceContext, input: McpToolInput<'compare_providers'>): Promise<string> {
  const names = input.provider_names;
  const paths = names.map((_, i) => `input.provider_names.${i}`);
  const resolved = await resolveProviderNames(ctx, { names, paths });
  if ('ambiguity' in resolved) return JSON.stringify(resolved.ambiguity);
  const { ids } = resolved;
  const twice: FieldProblem[] = ids.flatMap((id, i) => {
    const first = ids.indexOf(id);
    return first < i ? [{ path: paths[i] ?? '', message: `names the same provider as "${names[first]}"` }] : [];
  });
  if (twice.length > 0) {
    throw new ServiceError('invalid_request', 'cannot compare a provider with itself', twice);
  }
  try {
    return JSON.stringify(await compare(ctx, { ids }));
  } catch (error) {
    // A provider withdrawn since the names were resolved: its name no longer finds an indicator.
    if (!(error instanceof ServiceError && error.code === 'invalid_request')) throw error;
    const gone = error.problems.map((p) => ({ ...p, path: p.path.replace(/^query\.ids/, 'input.provider_names') }));
    throw new ServiceError('not_found', error.message, gone);
  }
}
