import type { CapCondition, CriterionDefinition, Framework } from '../framework/schema.js';

/**
 * The methodology reference page, generated from the framework data so the
 * published numbers are the ones the engine uses (docs/methodology/*.md).
 */
export function methodologyMarkdown(framework: Framework): string {
  const fw = framework.definition;
  const lines: string[] = [
    `# ${fw.name} v${fw.version} (${fw.framework_version}): reference`,
    '',
    '<!-- Generated from the framework data in packages/methodology by `pnpm docs:generate`; do not edit. -->',
    '',
    `- Framework version string: \`${fw.framework_version}\``,
    `- Effective: ${fw.effective_date}`,
    `- Sign-off: ${signOffText(framework)}`,
    `- Definition SHA-256 (RFC 8785 canonical JSON of the definition): \`${framework.sha256}\``,
    `- Score range: ${fw.score_range.min} to ${fw.score_range.max}; a higher score means a lower risk.`,
    `- Arithmetic: exact decimal, ${fw.arithmetic.precision} significant digits, ${fw.arithmetic.rounding}; points r${fw.arithmetic.points_places}, freshness r${fw.arithmetic.freshness_places}, confidence r${fw.arithmetic.confidence_places}, final score r${fw.arithmetic.final_score_places}.`,
    '',
    '## Modules',
    '',
    '| module | label | weight |',
    '|---|---|---|',
    ...fw.modules.map((m) => `| ${m.id} | ${m.label} | ${m.weight} |`),
    '',
    '## Criteria',
    '',
    '`contribution = weight x points / 100`. A missing input scores 0 points and is marked missing.',
    '',
    '| id | module | label | input key | type / domain | weight | points |',
    '|---|---|---|---|---|---|---|',
    ...fw.criteria.map(criterionRow),
    '',
    "Linear scales are anchor points `(x, points)`: flat outside the anchors, the anchor's points at an anchor, otherwise `r4(p0 + (x - x0) x (p1 - p0) / (x1 - x0))`, the product first, then the division, then the sum.",
    '',
    '## Derived quantities',
    '',
    ...fw.derived.map(
      (d) => `- \`${d.name}\` (${d.unit}) = \`${d.formula}\`; missing when an input it reads is missing.`,
    ),
    '',
    '## Hard caps',
    '',
    'A condition that reads a missing input is false as a whole. `capped = min(uncapped, every fired cap)`; a fired cap is binding when it is lower than the unrounded uncapped score.',
    '',
    '| id | label | condition | cap |',
    '|---|---|---|---|',
    ...fw.hard_caps.map(
      (c) => `| ${c.id} | ${c.label} | ${c.condition_text} (${conditionText(c.condition)}) | ${c.cap} |`,
    ),
    '',
    '## Bands',
    '',
    'From lowest risk to highest; the lowest-risk band has no next band.',
    '',
    '| band | final score |',
    '|---|---|',
    ...fw.bands.map((b, i) => {
      const upper = i > 0 ? ` and < ${(fw.bands[i - 1] as { min: string }).min}` : '';
      return `| ${b.band} | >= ${b.min}${upper} |`;
    }),
    '',
    '## Confidence and publication',
    '',
    `Freshness per criterion: missing 0; \`age_days <= ${fw.freshness.full_until_days}\`: 1; up to ${fw.freshness.decay_until_days} days: \`r4(1 - ${fw.freshness.decay} x (age_days - ${fw.freshness.full_until_days}) / ${fw.freshness.decay_until_days - fw.freshness.full_until_days})\`; older: ${fw.freshness.stale_factor}.`,
    '',
    `\`confidence = r4(sum of weight x freshness / 100)\`; a result is publishable only when \`confidence >= ${fw.publication.min_confidence}\`.`,
    '',
    '## Decision object',
    '',
    `Ceiling factors: the ${fw.decision.max_ceiling_factors} largest shortfalls \`weight x (100 - points) / 100\` (> 0, ties in framework order). Floor factors: the ${fw.decision.max_floor_factors} largest contributions among criteria with at least ${fw.decision.floor_min_points} points.`,
    '',
  ];
  return lines.join('\n');
}

function signOffText(framework: Framework): string {
  const s = framework.signOff;
  return s
    ? `approved by the chief risk officer (${s.signed_off_by}, ${s.signed_off_on})`
    : 'none: draft, not publishable';
}

function criterionRow(c: CriterionDefinition): string {
  return `| ${c.id} | ${c.module_id} | ${c.label} | \`${c.input_key}\` | ${domainText(c)} | ${c.weight} | ${scaleText(c)} |`;
}

function domainText(c: CriterionDefinition): string {
  const d = c.input;
  if (d.type === 'enum' || d.type === 'boolean') return d.type;
  const range =
    d.min !== undefined && d.max !== undefined
      ? ` ${d.min}..${d.max}`
      : d.min !== undefined
        ? ` >= ${d.min}`
        : d.max !== undefined
          ? ` <= ${d.max}`
          : ' (may be negative)';
  return `${d.type}${range}`;
}

function scaleText(c: CriterionDefinition): string {
  const s = c.scale;
  if (s.kind === 'table') return s.entries.map(([v, p]) => `${String(v)} ${p}`).join('; ');
  const anchors = s.anchors.map(([x, p]) => `(${x}, ${p})`).join(', ');
  return s.on === 'input' ? `linear: ${anchors}` : `linear on ${s.on}: ${anchors}`;
}

function conditionText(cond: CapCondition): string {
  switch (cond.op) {
    case 'all':
      return cond.of.map(conditionText).join(' and ');
    case 'stale':
      return `any of ${cond.criteria.join(', ')} present with age_days > ${cond.age_days_over}`;
    case 'in':
      return `${cond.operand} in {${cond.values.join(', ')}}`;
    case 'eq':
      return `${cond.operand} = ${String(cond.value)}`;
    default:
      return `${cond.operand} ${cond.op === 'lt' ? '<' : '>'} ${cond.value}`;
  }
}
