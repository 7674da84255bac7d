import type { Comparison, RiskIndicatorResponse } from '@svc/contracts';
import { findCurrentMany } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { servedIndicatorJson } from '../scores/served.js';

/** Differences of 4-place figures, kept at 4 places (binary floating point would show 59.623400000000004). */
const r4 = (n: number) => Number(n.toFixed(4));
const r2 = (n: number) => Number(n.toFixed(2));

/**
 * The current indicators of 2 to 10 providers side by side: points and contributions per criterion and
 * score per module (one figure per provider, in the order asked), with each row's spread and leaders.
 * A provider without a published indicator is a 400 naming it (with every other one missing). Rows are
 * matched by criterion and module id (every current indicator is under the framework in force).
 */
export async function compareProviders(ctx: ServiceContext, input: { ids: readonly string[] }): Promise<Comparison> {
  const { ids } = input;
  const rows = await findCurrentMany(ctx.store.db, ids);
  const byId = new Map(rows.map((r) => [r.id, JSON.parse(servedIndicatorJson(r)) as RiskIndicatorResponse]));
  const missing = ids.flatMap((id, i) =>
    byId.has(id) ? [] : [{ path: `query.ids.${i}`, message: `no published Risk Indicator for provider ${id}` }],
  );
  if (missing.length > 0) {
    throw new ServiceError('invalid_request', `cannot compare: ${missing.map((m) => m.message).join('; ')}`, missing);
  }
  const indicators = ids.map((id) => byId.get(id) as RiskIndicatorResponse);
  const scores = indicators.map((i) => i.final_score);
  const highest = indicators[scores.indexOf(Math.max(...scores))] as RiskIndicatorResponse;
  const lowest = indicators[scores.indexOf(Math.min(...scores))] as RiskIndicatorResponse;
  const first = indicators[0] as RiskIndicatorResponse;
  return {
    providers: indicators.map((i) => ({
      provider_id: i.provider_id,
      name: i.name,
      final_score: i.final_score,
      risk_band: i.risk_band,
    })),
    final_score: {
      highest: highest.provider_id,
      lowest: lowest.provider_id,
      spread: r2(highest.final_score - lowest.final_score),
    },
    modules: first.score_commentary.modules.map((m) => {
      const values = indicators.map(
        (i) => i.score_commentary.modules.find((o) => o.module_id === m.module_id)?.score ?? 0,
      );
      return {
        module_id: m.module_id,
        label: m.label,
        scores: values,
        spread: r4(Math.max(...values) - Math.min(...values)),
      };
    }),
    criteria: first.criterion_scores.map((c) => {
      const of = (i: RiskIndicatorResponse) => i.criterion_scores.find((o) => o.criterion_id === c.criterion_id);
      const points = indicators.map((i) => of(i)?.points ?? 0);
      const top = Math.max(...points);
      return {
        criterion_id: c.criterion_id,
        criterion_label: c.criterion_label,
        module_id: c.module_id,
        weight: c.weight,
        points,
        contributions: indicators.map((i) => of(i)?.contribution ?? 0),
        spread: r4(top - Math.min(...points)),
        best: indicators.filter((_, k) => points[k] === top).map((i) => i.provider_id),
      };
    }),
    indicators,
  };
}
