import { endpoints, type RiskIndicatorResponse } from '@svc/contracts';
import { figureText, PLACES } from '@svc/methodology';
import { frameworkInForce } from '../../services/frameworks/frameworks.js';
import { currentIndicators } from '../../services/scores/scores.js';
import { csvRow } from '../../services/shared/csv.js';

import { defineRoute, serviceContextOf } from '../route.js';

/** The headline columns, in order (the outlook and the watch in force last, empty when none); the module score columns follow. */
export const HEADLINE = [
  'provider_id',
  'name',
  'planner_type',
  'provider_subtype',
  'final_score',
  'risk_band',
  'confidence',
  'framework_version',
  'scored_at',
  'score_verified_at',
  'published_at',
  'risk_indicator_id',
  'outlook',
  'watch_direction',
  'watch_since',
  'watch_review_by',
] as const;

/**
 * The places of each column of figures: one precision per column, the engine's own (methodology section 10), so
 * 95.50 and 95.58 line up and no column mixes 13.614288 with 28.64.
 */
const COLUMN_PLACES = {
  final_score: PLACES.score,
  confidence: PLACES.confidence,
  module: PLACES.contribution,
} as const;

/** A headline cell: a figure at its column's places, anything else as it is. */
function headlineCell(i: RiskIndicatorResponse, field: (typeof HEADLINE)[number]): string | number | null {
  if (field === 'final_score' || field === 'confidence') return figureText(i[field], COLUMN_PLACES[field]);
  if (field === 'watch_direction') return i.watch?.direction ?? null;
  if (field === 'watch_since') return i.watch?.since ?? null;
  if (field === 'watch_review_by') return i.watch?.review_by ?? null;
  return i[field];
}

/** Every current indicator as one CSV row, by name: the headline fields, then one column per module score. */
export default defineRoute(endpoints.exportScores, async ({ query, caller, services, req }) => {
  const indicators = await currentIndicators(serviceContextOf({ caller, services, req }), {
    plannerType: query.planner_type,
  });
  // The columns come from the framework, so an empty export has the same header as a full one.
  const modules = (await frameworkInForce(services)).definition.modules.map((m) => m.id);
  let text = csvRow([...HEADLINE, ...modules.map((id) => `module_${id}_score`)]);
  for (const i of indicators) {
    const byModule = new Map(i.score_commentary.modules.map((m) => [m.module_id, m.score]));
    const moduleCells = modules.map((id) => {
      const score = byModule.get(id);
      return score === undefined ? null : figureText(score, COLUMN_PLACES.module);
    });
    text += csvRow([...HEADLINE.map((field) => headlineCell(i, field)), ...moduleCells]);
  }
  const date = services.clock.now().toISOString().slice(0, 10);
  return {
    body: text,
    contentType: 'text/csv; charset=utf-8; header=present',
    headers: { 'Content-Disposition': `attachment; filename="risk-indicators-${date}.csv"` },
  };
});
