import type { Computation, CriterionStep } from '../compute/compute.js';
import { type Dec, fixed, sum } from '../decimal.js';
import { listOf } from './wording.js';

export interface ModuleCommentary {
  moduleId: string;
  label: string;
  score: Dec;
  max: number;
  text: string;
}

export interface Commentary {
  overview: string;
  modules: ModuleCommentary[];
}

/** The score commentary: deterministic templates over the computation. */
export function commentOn(c: Computation): Commentary {
  const fw = c.framework.definition;
  const present = c.criteria.filter((s) => s.item !== null);
  const stale = present.filter((s) => (s.ageDays as number) > fw.freshness.full_until_days);
  const publication = c.publishable
    ? 'publishable'
    : `not publishable (confidence below ${fw.publication.min_confidence})`;
  const overview =
    `Scored under ${fw.framework_version} as of ${c.document.evaluation_date}: ` +
    `final score ${fixed(c.finalScore, 2)} (${c.band.band}) from an uncapped ${fixed(c.uncapped, 4)}; ` +
    `confidence ${fixed(c.confidence, 4)} with ${present.length} of ${c.criteria.length} inputs present ` +
    `and ${stale.length} older than ${fw.freshness.full_until_days} days; ${publication}.`;
  const modules = fw.modules.map((m) => {
    const steps = c.criteria.filter((s) => s.criterion.module_id === m.id);
    const score = sum(steps.map((s) => s.contribution));
    return { moduleId: m.id, label: m.label, score, max: m.weight, text: moduleText(m.label, score, m.weight, steps) };
  });
  return { overview, modules };
}

function moduleText(label: string, score: Dec, max: number, steps: CriterionStep[]): string {
  const present = steps.filter((s) => s.item !== null);
  const missing = steps.filter((s) => s.item === null).map((s) => s.criterion.label);
  const parts = [`${label}: ${fixed(score, 2)} of ${max} points`];
  if (present.length > 0) {
    const strongest = present.reduce((best, s) => (s.points.gt(best.points) ? s : best));
    const weakest = present.reduce((worst, s) => (s.points.lt(worst.points) ? s : worst));
    parts.push(`strongest ${strongest.criterion.label} (${fixed(strongest.points, 4)})`);
    if (weakest !== strongest) parts.push(`weakest ${weakest.criterion.label} (${fixed(weakest.points, 4)})`);
  }
  if (missing.length > 0) parts.push(`missing ${listOf(missing)}`);
  return `${parts.join('; ')}.`;
}
