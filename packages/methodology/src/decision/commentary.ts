import { compile } from '../compute/compiled.js';
import type { Computation, CriterionStep } from '../compute/compute.js';
import { compare, type Dec } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import { fill } from './templates.js';

type ModuleDefinition = FrameworkDefinition['modules'][number];

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

/** The score commentary (templates `overview` and `module`, with the templates of their slots). */
export function commentOn(c: Computation): Commentary {
  const fw = c.framework.definition;
  const present = c.criteria.filter((s) => s.item !== null);
  const stale = present.filter((s) => (s.ageDays as number) > fw.freshness.full_until_days);
  const publication = c.publishable
    ? fill('overview_publishable', {}, fw)
    : fill('overview_not_publishable', { min_confidence: fw.publication.min_confidence }, fw);
  const overview = fill(
    'overview',
    {
      framework_version: fw.framework_version,
      evaluation_date: c.document.evaluation_date,
      final_score: c.finalScore,
      risk_band: c.band.band,
      uncapped: c.uncapped,
      confidence: c.confidence,
      present: present.length,
      criteria: c.criteria.length,
      stale: stale.length,
      full_until_days: fw.freshness.full_until_days,
      publication,
    },
    fw,
  );
  const { moduleCriteria } = compile(fw);
  const modules = fw.modules.map((m, i) => {
    const steps = (moduleCriteria[i] as number[]).map((k) => c.criteria[k] as CriterionStep);
    const score = c.moduleScores[i] as Dec;
    return { moduleId: m.id, label: m.label, score, max: m.weight, text: moduleText(m, score, steps, fw) };
  });
  return { overview, modules };
}

function moduleText(m: ModuleDefinition, score: Dec, steps: CriterionStep[], fw: FrameworkDefinition): string {
  const present = steps.filter((s) => s.item !== null);
  const missing = steps.filter((s) => s.item === null).map((s) => s.criterion.label);
  const pointsOf = (s: CriterionStep) => ({ criterion_label: s.criterion.label, points: s.points });
  let strongest = '';
  let weakest = '';
  if (present.length > 0) {
    const best = present.reduce((top, s) => (compare(s.points, top.points) > 0 ? s : top));
    const worst = present.reduce((low, s) => (compare(s.points, low.points) < 0 ? s : low));
    strongest = fill('module_strongest', pointsOf(best), fw);
    if (worst !== best) weakest = fill('module_weakest', pointsOf(worst), fw);
  }
  const missingText = missing.length > 0 ? fill('module_missing', { missing_labels: missing }, fw) : '';
  return fill(
    'module',
    { module_label: m.label, module_score: score, module_max: m.weight, strongest, weakest, missing: missingText },
    fw,
  );
}
