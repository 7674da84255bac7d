// The specification's sections 4 to 8: the uncapped score, the hard caps, the bands, confidence, the decision object.
import { compile } from '../compute/compiled.js';
import { compare, type Dec, dec, fixed, r2, r4 } from '../decimal.js';
import { exact } from '../decision/wording.js';
import type { CapCondition, FrameworkDefinition } from '../framework/schema.js';
import { PLACES } from '../indicator.js';
import type { Block } from './blocks.js';
import { CONDITION_OPS, code, h2, p, staleCapsText, table, ul } from './spec-blocks.js';

export function uncappedSection(): Block[] {
  return [h2('4. Uncapped score'), p('`uncapped = sum of contributions` (exact; no rounding before the caps).')];
}

export function capsSection(fw: FrameworkDefinition): Block[] {
  return [
    h2('5. Hard caps'),
    p(
      'A cap fires when its condition holds. A condition that reads a missing input is false as a whole (the cap does not fire), whatever its other parts say. `capped = min(uncapped, every fired cap)`. A fired cap is binding when its cap value is lower than the unrounded `uncapped`; several caps can be binding at once, each reporting its own impact `r2(cap - uncapped)` (the impacts are not additive: the lowest cap sets the score). A cap that does not fire, or fires without binding, has impact 0.',
    ),
    table(
      ['id', 'label', 'condition', 'cap', 'operands (in the package, in this order)'],
      fw.hard_caps.map((c) => [c.id, c.label, c.condition_text, c.cap, operandsOf(c.condition).map(code).join(', ')]),
    ),
    ul(
      '`=` holds when the input equals the value (an enum value or a boolean); `in {...}` when it is one of the values.',
      '`<` and `>` compare the exact decimal value of an input or a derived quantity.',
      '`AND`: every part holds, and no part reads a missing input.',
      '`any of ... present with age_days > N`: at least one of the listed criteria has its input present with `age_days > N`; missing ones are passed over and do not make the condition false. Its operands are the listed criteria’s ages, `ID.age_days`.',
    ),
    ...conditionOperators(fw),
  ];
}

/** The operators of the framework data's `condition` members, mapped to the condition text (issue 31). */
function conditionOperators(fw: FrameworkDefinition): Block[] {
  const used = new Set<string>();
  const walk = (cond: CapCondition): void => {
    used.add(cond.op);
    if (cond.op === 'all') for (const part of cond.of) walk(part);
  };
  for (const cap of fw.hard_caps) walk(cap.condition);
  const rows: Record<(typeof CONDITION_OPS)[number], [string, string, string]> = {
    eq: [
      '`operand`, `value` (a string or a boolean)',
      '`operand = value`',
      'the operand’s value is `value`: the same string, or the same boolean',
    ],
    in: ['`operand`, `values` (strings)', '`operand in {a, b}`', 'the operand’s value is one of `values`'],
    lt: [
      '`operand`, `value` (decimal text)',
      '`operand < value`',
      'the operand’s exact decimal value (an input as written, or a derived quantity) is less than `value`',
    ],
    gt: ['`operand`, `value` (decimal text)', '`operand > value`', 'the same, greater than `value`'],
    all: [
      '`of` (two or more conditions)',
      'the parts joined by `AND`',
      'every part holds and no part reads a missing input; every part is evaluated, so the package records every operand',
    ],
    stale: [
      '`criteria` (criterion ids), `age_days_over` (whole days)',
      '`any of A1, A2 present with age_days > N`, where N is `age_days_over`',
      'at least one listed criterion has its input present with `age_days > age_days_over`; missing ones are passed over, and this condition never reads a missing input',
    ],
  };
  return [
    p(
      `The engine evaluates each cap’s \`condition\` member of the framework definition (section 10); the condition column above is its \`condition_text\`, written from it for people. The operators, each written in the condition text as below (this framework uses ${CONDITION_OPS.filter(
        (op) => used.has(op),
      )
        .map(code)
        .join(', ')}):`,
    ),
    table(
      ['`op`', 'members', 'in the condition text', 'holds when'],
      CONDITION_OPS.map((op) => [code(op), ...rows[op]]),
    ),
    p(
      '`operand` names an input key, whose value is the approved value in the inputs document, or a derived quantity (section 3). An `eq`, `in`, `lt` or `gt` whose operand is missing does not hold, and an `all` with such a part is false whatever its other parts say.',
    ),
  ];
}

/** The operands a condition reads, in the order the package records them. */
export function operandsOf(cond: CapCondition): string[] {
  if (cond.op === 'all') return cond.of.flatMap(operandsOf);
  if (cond.op === 'stale') return cond.criteria.map((id) => `${id}.age_days`);
  return [cond.operand];
}

export function bandsSection(fw: FrameworkDefinition): Block[] {
  const last = fw.bands.length - 1;
  const edges = fw.bands.map((b, i) => {
    const above = fw.bands[i - 1]?.min;
    if (i === 0) return `>= ${b.min}`;
    if (i === last) return `< ${above}`;
    return `>= ${b.min} and < ${above}`;
  });
  const places = fw.arithmetic.final_score_places;
  return [
    h2('6. Final score and band'),
    p(`\`final_score = r${places}(capped)\`.`),
    p(
      `Bands, from lowest risk to highest (this is their order; the first band, ${fw.bands[0]?.band}, is the lowest risk and has no next band). A score is in the first band of the table whose bound it meets:`,
    ),
    table(
      ['band', 'final_score'],
      fw.bands.map((b, i) => [b.band, edges[i] as string]),
    ),
    p(
      '`next_band` is the band just above in the table (the next better band); `points_to_next_band = next band’s lower bound - final_score`, exact. Both are absent for the lowest-risk band.',
    ),
  ];
}

export function confidenceSection(fw: FrameworkDefinition): Block[] {
  const f = fw.freshness;
  const span = f.decay_until_days - f.full_until_days;
  const { decayed } = compile(fw);
  const factorAt = (days: number) => fixed(decayed[days - f.full_until_days - 1] as Dec, PLACES.freshness);
  const min = fw.publication.min_confidence;
  // The unrounded confidences on either side of the rounding to min_confidence: half a unit of the last place below.
  const unit = dec(`1e-${PLACES.confidence + 1}`);
  const examples = [5, 6].map((n) => {
    const unrounded = dec(min).minus(unit.times(n));
    const rounded = r4(unrounded);
    const publishable = compare(rounded, dec(min)) >= 0;
    return `an unrounded ${exact(unrounded)} rounds half-even to ${fixed(rounded, PLACES.confidence)} and is ${publishable ? '' : 'not '}publishable`;
  });
  const staleCaps = staleCapsText(fw);
  return [
    h2('7. Confidence'),
    p('For each criterion, a freshness factor `f`:'),
    ul(
      'missing: 0;',
      `\`age_days <= ${f.full_until_days}\`: 1;`,
      `\`${f.full_until_days} < age_days <= ${f.decay_until_days}\`: \`r4(1 - ${f.decay} x (age_days - ${f.full_until_days}) / ${span})\` (the product, then the division, then the difference);`,
      `\`age_days > ${f.decay_until_days}\`: ${f.stale_factor}.`,
    ),
    p(
      `These numbers are the framework’s \`freshness\` member: \`full_until_days\` = ${f.full_until_days}, the last age at which f is 1; \`decay_until_days\` = ${f.decay_until_days}, the last age of the decay; \`decay\` = ${f.decay}, what f loses across the decay window; \`stale_factor\` = ${f.stale_factor}, f after it; and ${span} = \`decay_until_days - full_until_days\`, the length of the window in days. So the decay is \`r4(1 - decay x (age_days - full_until_days) / (decay_until_days - full_until_days))\`: f is ${factorAt(f.full_until_days + 1)} at ${f.full_until_days + 1} days, ${factorAt(f.decay_until_days)} (1 - ${f.decay}) at ${f.decay_until_days} and ${fixed(dec(f.stale_factor), PLACES.freshness)} from ${f.decay_until_days + 1}.`,
    ),
    p(
      `\`confidence = r4(sum of weight x f / 100)\`, a fraction between 0 and 1. Each \`weight x f\` is exact; they are added over every criterion in framework order (a missing criterion adds 0), and the sum is exact, so the order of adding does not change it; the sum is divided by 100 (exact) and rounded once, with \`r4\`, at the end, never term by term.`,
    ),
    p(
      `A result is publishable (\`publishable: true\`) only when \`confidence >= ${min}\` (\`publication.min_confidence\`), comparing the rounded \`confidence\`, the ${PLACES.confidence}-place figure the result reports, not the unrounded quotient: ${examples.join('; ')}.`,
    ),
    p(
      `“Stale” names different ages: the overview’s \`{stale}\` (section 12) counts the present inputs with \`age_days\` greater than \`full_until_days\` (${f.full_until_days} days), whose f is below 1; the stale factor applies when \`age_days\` is greater than \`decay_until_days\` (${f.decay_until_days} days)${staleCaps ? `; and a \`stale\` cap condition holds for an age greater than its own \`age_days_over\`, a number of the cap, not of \`freshness\`: ${staleCaps}` : ''}.`,
    ),
  ];
}

export function decisionSection(fw: FrameworkDefinition): Block[] {
  const d = fw.decision;
  return [
    h2('8. Decision object (`svc_decision_object`)'),
    ul(
      `\`ceiling_factors\`: the criteria with the largest \`shortfall = weight x (100 - points) / 100\` (exact, unrounded; a missing criterion’s shortfall is its whole weight), largest first, ties in framework order, shortfall > 0 only, at most ${d.max_ceiling_factors}. Each: \`{criterion_id, criterion_label, point_impact: -r2(shortfall), detail}\`.`,
      `\`floor_factors\`: among criteria with \`points >= ${d.floor_min_points}\`, the largest \`contribution\`, largest first, ties in framework order, at most ${d.max_floor_factors}. Each: \`{criterion_id, criterion_label, point_impact: r2(contribution), detail}\`.`,
      '`hard_caps_fired`: every fired cap, binding or not, in table order: `{cap_id, label, cap, binding, point_impact}`, where `point_impact = r2(cap - uncapped)` when binding, else 0.',
      '`next_band` and `points_to_next_band` (section 6): members present only when there is a next band.',
      '`summary`: one sentence, template `summary` of section 12, naming the score, the band, the floor factors, the ceiling factors and any binding cap.',
      '`detail` of each factor: templates `detail`, `detail_derived_spread_bps` and `detail_missing` of section 12, naming the input value and the points, for example `Collateral coverage 1.35 scores 75.0000 of 100`.',
      zeroImpactText(),
    ),
  ];
}

/** A point impact that rounds to zero (issue 31): written without a sign, and its factor or cap still listed. */
function zeroImpactText(): string {
  const half = dec(`5e-${PLACES.score + 1}`);
  const zero = fixed(r2(half.neg()), PLACES.score);
  const impact = (value: Dec) => `\`point_impact\` \`"${fixed(value, PLACES.score)}"\``;
  // Both cases come from real documents, scored in specification-gaps.test.ts (E3 at 7.9999 years; HC-04).
  const [weight, points] = [3, dec('99.9995')];
  const shortfall = dec(weight).times(dec(100).minus(points)).div(100);
  const [cap, uncapped] = [dec('64.99'), dec('64.992012')];
  return `A \`point_impact\` is r2 of the exact figure, so one between -${exact(half)} and ${exact(half)} (both included: half-even) rounds to zero and is written \`"${zero}"\` in a package and \`0\` as a JSON number, never with a minus sign; its factor or cap is listed all the same. A ceiling factor needs only \`shortfall > 0\`, on the unrounded shortfall: a criterion at ${exact(points)} points with weight ${weight} falls short by ${exact(shortfall)} and has ${impact(r2(shortfall).neg())}. A fired cap is binding whenever it is below the unrounded \`uncapped\`: a cap of ${exact(cap)} under an uncapped ${exact(uncapped)} binds with ${impact(r2(cap.minus(uncapped)))} (and \`final_score\` ${fixed(r2(cap), PLACES.score)}, which the summary still reports as capped). A cap that does not fire or does not bind has \`point_impact\` \`"${zero}"\` too.`;
}
