import { compile } from '../compute/compiled.js';
import { compute } from '../compute/compute.js';
import { derive } from '../compute/derived.js';
import { type Dec, fixed, ZERO } from '../decimal.js';
import { fill, TEMPLATES } from '../decision/templates.js';
import { exact } from '../decision/wording.js';
import type { CriterionDefinition, Framework, FrameworkDefinition } from '../framework/schema.js';
import { PLACES } from '../indicator.js';
import { PLANNER_TYPES } from '../inputs/document.js';
import type { Block } from './blocks.js';
import { CONDITION_OPS, code, h2, h3, json, p, slotPlaces, staleConditions, table, ul } from './spec-blocks.js';
import { packageSection, resultSection, textsSection, workedExampleSection } from './specification-package.js';
import {
  bandsSection,
  capsSection,
  confidenceSection,
  decisionSection,
  operandsOf,
  uncappedSection,
} from './specification-rules.js';
import { WORKED_EXAMPLES } from './worked-examples.js';

/**
 * The whole specification of a framework version, printed from the framework data, the engine's text
 * templates and the engine's own output for the worked example: what an outsider needs to reproduce a
 * computation package byte for byte without our software (issue 14). Sections 1 to 11 follow the authoring
 * page (shared/methodology/dcrf-1.0.md); section 12 holds every text template.
 */
export function specificationOf(framework: Framework): Block[] {
  const fw = framework.definition;
  return [
    { kind: 'heading', level: 1, text: `${fw.name} v${fw.version} (${fw.framework_version}): the specification` },
    {
      kind: 'note',
      text: 'Generated from the framework data, the text templates and the engine in packages/methodology by `pnpm docs:generate`; do not edit.',
    },
    {
      kind: 'paragraph',
      text:
        'The whole specification of the framework: with this page and an approved-inputs document, anyone can ' +
        'recompute the Risk Indicator and its computation package byte for byte without our software. Every number, ' +
        'rule and text below is printed from the framework data and the text templates the engine itself uses, and ' +
        'the worked example (section 11) is the engine’s own output; a test fails when this page differs from what ' +
        'they give. Where another description disagrees with this page, the bytes the engine writes, described here, ' +
        'are the published truth.',
    },
    {
      kind: 'list',
      items: [
        `Name: ${fw.name} (\`${fw.short_name}\`); version \`${fw.version}\`; the \`framework_version\` string in every result: \`${fw.framework_version}\`.`,
        `Effective: ${fw.effective_date}. Sign-off: ${signOffText(framework)}.`,
        `\`framework_sha256\` (SHA-256 of the RFC 8785 canonical JSON of the definition, section 10): \`${framework.sha256}\`.`,
        `Score: ${fw.score_range.min} to ${fw.score_range.max}. A higher score means a LOWER risk.`,
      ],
    },
    ...notesSection(fw),
    ...arithmeticSection(fw),
    ...inputsSection(fw),
    ...criteriaSection(framework),
    ...uncappedSection(),
    ...capsSection(fw),
    ...bandsSection(fw),
    ...confidenceSection(fw),
    ...decisionSection(fw),
    ...resultSection(),
    ...packageSection(framework),
    ...workedExampleSection(framework),
    ...textsSection(fw),
  ];
}

function signOffText(framework: Framework): string {
  const s = framework.signOff;
  return s
    ? `approved by the chief risk officer (${s.signed_off_by}, ${s.signed_off_on})`
    : 'none: a draft, which can score but not publish';
}

function notesSection(fw: FrameworkDefinition): Block[] {
  const f = fw.freshness;
  const span = f.decay_until_days - f.full_until_days;
  const derived = fw.derived.map((d) => code(d.name)).join(', ');
  const derivedTemplates = fw.derived
    .map((d) => `detail_derived_${d.name}`)
    .filter((name) => name in TEMPLATES)
    .map(code)
    .join(', ');
  const staleCaps = staleConditions(fw)
    .map((c) => `${c.capId} after its own \`age_days_over\` (${c.over} days)`)
    .join(' and ');
  return [
    h2('Notes for implementers'),
    p(
      'Where a reimplementation from this page most easily goes wrong. Each point is stated in full in the section named.',
    ),
    ul(
      `Roundings (section 1): \`r4\` rounds the points between two anchors, the decaying freshness factors and \`confidence\`; \`r2\` rounds \`final_score\` and every \`point_impact\`.${compile(fw).exactFigures ? ` Nothing is rounded to ${PLACES.contribution} places: contributions, module scores, \`uncapped\` and \`capped\` are exact and never have more than the ${PLACES.contribution} places they are written with.` : ''}`,
      `Freshness (section 7): in \`r4(1 - ${f.decay} x (age_days - ${f.full_until_days}) / ${span})\`, ${f.decay} is \`freshness.decay\`, ${f.full_until_days} is \`freshness.full_until_days\` and ${span} is \`freshness.decay_until_days - freshness.full_until_days\` (${f.decay_until_days} - ${f.full_until_days}).`,
      ...(fw.derived.length === 0
        ? []
        : [
            `Derived quantities (section 3: ${derived}) are exact, never rounded, may be negative or have decimals, and are written as exact text, in the package and in the texts (${derivedTemplates}).`,
          ]),
      `Cap conditions (section 5) are the \`condition\` members of the framework data; section 5 maps each operator (${CONDITION_OPS.map(code).join(', ')}) to the condition text.`,
      `Confidence (section 7): the sum of \`weight x f\` is exact and rounded once, at the end; \`publishable\` compares the rounded \`confidence\` (${PLACES.confidence} places), not the unrounded sum, with \`publication.min_confidence\`.`,
      `A \`point_impact\` that rounds to zero is written \`"${fixed(ZERO, PLACES.score)}"\` (the JSON number \`0\`), never with a minus sign, and its factor or binding cap is still listed (section 8).`,
      `“Stale” (sections 7 and 12): the overview’s \`{stale}\` counts the present inputs older than \`freshness.full_until_days\` (${f.full_until_days} days); the stale factor applies after \`freshness.decay_until_days\` (${f.decay_until_days} days)${staleCaps ? `, and ${staleCaps}` : ''}.`,
      'The 15 significant digits an input number may have (section 2) are counted in the number as written: from its first non-zero digit to its last non-zero digit.',
      'Numbers are written in the shortest form of their double (section 10), which has the value written in the inputs only because of the 15-digit rule.',
      'The `engine` member is part of the package bytes that `package_sha256` hashes: a reproduction copies it from the package it reproduces (section 10).',
    ),
  ];
}

function arithmeticSection(fw: FrameworkDefinition): Block[] {
  const a = fw.arithmetic;
  return [
    h2('1. Arithmetic and determinism'),
    ul(
      `All arithmetic is exact decimal, never binary floating point: every intermediate result is rounded to ${a.precision} significant digits, rounding mode ${a.rounding}.`,
      'Named roundings (always half-even): `r4` = round to 4 decimal places; `r2` = round to 2 decimal places.',
      'Fixed-place text with N places: the decimal rounded half-even to N places, written with exactly N digits after the point (zeros appended), a leading `-` when negative, no exponent, and zero never written with a sign (`0.00`, not `-0.00`).',
      'Exact text of a decimal: its exact value with no exponent and no trailing zeros (`300`, `0.5`, `-12.25`).',
      'No wall clock inside the calculation. The evaluation date is an input (`evaluation_date`, a calendar date `YYYY-MM-DD`); `age_days` is the number of whole days from an input’s `as_of` to the evaluation date in the proleptic Gregorian calendar (0 on the same day).',
      'Iteration order is the framework’s order (modules and criteria in the order of the tables of section 3, caps and bands in the order of their tables), never object-key or hash order.',
    ),
    ...roundingTable(fw),
  ];
}

function roundingTable(fw: FrameworkDefinition): Block[] {
  const places = (n: number) => String(n);
  const written = compile(fw).exactFigures
    ? `So \`r4\` and \`r2\` are the only roundings to decimal places in the computation (besides the ${fw.arithmetic.precision} significant digits of every intermediate result), each applied where this table says and nowhere else. There is no rounding to ${PLACES.contribution} places: ${PLACES.contribution} is only the number of places the contributions, the module scores, \`uncapped\` and \`capped\` are written with, and they never have more (points have at most ${PLACES.points} places and weights are whole numbers, so \`weight x points / 100\` has at most ${PLACES.contribution}, and so do sums of contributions and their minimum with a cap). Under this framework no figure has more places than it is written with: writing a figure with its places only appends zeros, and its JSON number (section 9) has the same value.`
    : 'A figure with more places than it is written with is rounded half-even when it is written (fixed-place text, above).';
  return [
    h3('Where each rounding applies'),
    table(
      ['figure', 'computed as', 'rounded', 'places in a package'],
      [
        ['`points` between two anchors of a linear scale', 'section 3', '`r4`', places(PLACES.points)],
        [
          '`points` otherwise (at or outside the anchors, or a table)',
          'the framework’s points',
          'no',
          places(PLACES.points),
        ],
        ['`contribution`', '`weight x points / 100` (section 3)', 'no: exact', places(PLACES.contribution)],
        ['module `score`', 'the sum of its criteria’s contributions', 'no: exact', places(PLACES.contribution)],
        ['`uncapped`', 'the sum of the contributions (section 4)', 'no: exact', places(PLACES.contribution)],
        ['`capped`', '`min(uncapped, every fired cap)` (section 5)', 'no: exact', places(PLACES.contribution)],
        ['`final_score`', '`r2(capped)` (section 6)', '`r2`', places(PLACES.score)],
        [
          '`points_to_next_band`',
          'next band’s lower bound - `final_score` (section 6)',
          'no: exact',
          places(PLACES.score),
        ],
        ['`cap`', 'the framework’s cap', 'no', places(PLACES.score)],
        [
          '`freshness`',
          'section 7',
          '`r4` inside the decay window; 0, 1 and the stale factor are not rounded',
          places(PLACES.freshness),
        ],
        [
          '`confidence`',
          '`sum of weight x f / 100` (section 7)',
          '`r4`, once, on the whole sum',
          places(PLACES.confidence),
        ],
        ['`point_impact` of a ceiling factor', '`-r2(shortfall)` (section 8)', '`r2`', places(PLACES.score)],
        ['`point_impact` of a floor factor', '`r2(contribution)` (section 8)', '`r2`', places(PLACES.score)],
        [
          '`point_impact` of a cap',
          '`r2(cap - uncapped)` when binding, else 0 (section 5)',
          '`r2`',
          places(PLACES.score),
        ],
        [
          '`shortfall`',
          '`weight x (100 - points) / 100` (section 8)',
          'no: exact (it ranks the ceiling factors; it is not written)',
          '-',
        ],
        ...fw.derived.map((d) => [code(d.name), 'section 3', 'no: exact', 'exact text']),
      ],
    ),
    p(written),
    p(
      `Two texts round a figure for reading only, half-even (section 12): the overview’s \`{uncapped}\` to ${slotPlaces('overview', 'uncapped', fw)} places and each module text’s \`{module_score}\` to ${slotPlaces('module', 'module_score', fw)}. This rounding changes no figure of the result or the package.`,
    ),
  ];
}

function inputsSection(fw: FrameworkDefinition): Block[] {
  const example = WORKED_EXAMPLES.get(fw.version);
  const first = example ? Object.entries(example.inputs)[0] : undefined;
  const sample = example && first ? [json({ ...example, inputs: { [first[0]]: first[1] } })] : [];
  return [
    h2('2. Inputs'),
    p('An approved-inputs document holds, for one provider:'),
    ...sample,
    ul(
      'The document is a JSON object with exactly the members `provider`, `evaluation_date` and `inputs`; `provider` has exactly `id`, `name`, `planner_type`, `provider_subtype`, `yield_min` and `yield_max`; each input item has exactly `value`, `as_of`, `source`, `approved_by` and `approved_at`. All of them are required. A member name may appear only once in an object.',
      '`id` is a UUID (8-4-4-4-12 hexadecimal digits, either case); the document is kept with it in lower case, so the canonical document (below) always holds the lower-case id.',
      '`name` is 1 to 200 characters (Unicode code points) of free text.',
      `\`planner_type\` is one of ${PLANNER_TYPES.map(code).join(', ')}. \`provider_subtype\` is 1 to 64 characters of \`a-z\`, \`0-9\` and \`_\`.`,
      '`yield_min` and `yield_max` are annual percentages, decimals (as below) with `0 <= yield_min <= yield_max <= 100`.',
      '`evaluation_date` and each `as_of` are calendar dates `YYYY-MM-DD` that exist (`2026-02-29` is an error). An `as_of` after `evaluation_date` is an error.',
      '`approved_at` is an ISO 8601 UTC timestamp `YYYY-MM-DDTHH:MM:SS`, optionally followed by `.` and 1 to 9 digits, then `Z`, naming a real date and time.',
      '`source` and `approved_by` are non-empty free text.',
      'Every string is well-formed Unicode (no lone surrogates). Free text (`name`, `source`, `approved_by`) holds no control character (U+0000 to U+001F, U+007F to U+009F), no line or paragraph separator (U+2028, U+2029), no bidirectional embedding, override or isolate (U+202A to U+202E, U+2066 to U+2069) and neither U+FFFE nor U+FFFF.',
      'Value types: an enum value is one of the values listed in its criterion’s points column; a boolean is a JSON `true` or `false`; a decimal is a JSON number (not a string) of at most 15 significant digits, read exactly as written; an integer is a decimal with no fractional part (`7` and `7.0` are the same value, `7.5` is an error). The bounds are in the type / domain column of section 3, inclusive. `null` is never a value.',
      'Significant digits are counted in the number as written in the JSON text, before it is read: from its first non-zero digit to its last non-zero digit, the zeros between them included. Leading zeros, trailing zeros (after the decimal point or before it), the sign, the point and the exponent are not counted; zero has 1. So `0.000123` has 3, `1.50` and `1.5E2` have 2, `1234567890123450000` has 15 (accepted); `1234567890123456`, `123456789012345.6` and `1.0000000000000001` have 16 (refused). A number beyond the largest double, such as `1e400`, is refused too. Section 10 says why 15, and how an input number is written.',
      '`inputs` maps a criterion’s input key (section 3) to one approved value. A key that is absent means the input is missing. An unknown key, a value of the wrong type or outside its domain, or any other member or rule of this section broken is a validation error: the whole document is rejected with every problem listed as `{path, message}` (for example `{"path": "inputs.custody_model.value", "message": "..."}`), and nothing is scored.',
      '`source`, `approved_by` and `approved_at` are carried into the computation package; they do not change the score.',
      'The canonical inputs document is the document as read, with `provider.id` in lower case, written in RFC 8785 (section 10): numbers as their values (`7.0` is written `7`, `1.50` is written `1.5`), members sorted. It is what `inputs_sha256` hashes and what the package holds as `inputs`.',
    ),
  ];
}

function criteriaSection(framework: Framework): Block[] {
  const fw = framework.definition;
  const derived = fw.derived.map(
    (d) =>
      `\`${d.name}\` (${d.unit}) = \`${d.formula}\`, exact (never rounded), reading ${d.reads.map(code).join(' and ')}. A criterion whose scale reads it is missing when its own input is missing; its \`as_of\`, age and freshness are its own input’s.`,
  );
  return [
    h2('3. Criteria, weights and points'),
    p(
      'Each criterion turns its input into points between 0 and 100, then `contribution = weight x points / 100` (exact). Weights sum to 100.',
    ),
    table(
      ['id', 'module', 'input key', 'type / domain', 'weight', 'points'],
      fw.criteria.map((c) => [c.id, c.module_id, code(c.input_key), domainText(c), String(c.weight), scaleText(c)]),
    ),
    p(
      'Linear scales are anchor points `(x, points)`, sorted by x. At or below the first anchor, the first anchor’s points; above the last, the last’s; at an anchor exactly, that anchor’s points. Between two anchors `(x0, p0)` and `(x1, p1)` with `x0 < x < x1`: `points = r4(p0 + (x - x0) x (p1 - p0) / (x1 - x0))`, evaluated in the written order: the product first, then the division, then the sum. A table maps each allowed value to its points.',
    ),
    p('Modules, their labels and weights (a module’s weight is the sum of its criteria’s):'),
    table(
      ['module', 'label', 'weight'],
      fw.modules.map((m) => [m.id, m.label, String(m.weight)]),
    ),
    p('Criterion labels (used in `criterion_label` and in the texts):'),
    table(
      ['id', 'label'],
      fw.criteria.map((c) => [c.id, c.label]),
    ),
    ...derived.map(p),
    ...spreadText(framework),
    p('A missing input scores 0 points (contribution 0), has no `as_of` and no age, and is marked `missing: true`.'),
  ];
}

/**
 * How `spread_bps` is computed and written (issue 31: its formula and its template), with the engine's own values
 * for the worked example and two variants of its `yield_max`.
 */
function spreadText(framework: Framework): Block[] {
  const fw = framework.definition;
  const document = WORKED_EXAMPLES.get(fw.version);
  const criterion = fw.criteria.find((c) => c.scale.kind === 'linear' && c.scale.on === 'spread_bps');
  if (!document || !criterion || criterion.scale.kind !== 'linear') return [];
  const caps = fw.hard_caps.filter((cap) => operandsOf(cap.condition).includes('spread_bps')).map((cap) => cap.id);
  const spreadAt = (yieldMax: number) =>
    derive('spread_bps', { ...document, provider: { ...document.provider, yield_max: yieldMax } }) as Dec;
  const variant = (y: number) => ({ y, text: exact(spreadAt(y)) });
  const own = variant(document.provider.yield_max);
  const fractional = variant(7.2555);
  const negative = variant(3);
  const step = compute(document, framework).criteria.find((s) => s.criterion.id === criterion.id);
  const benchmark = document.inputs[criterion.input_key]?.value;
  const detail =
    step?.derived && benchmark !== undefined
      ? fill(
          'detail_derived_spread_bps',
          {
            criterion_label: criterion.label,
            spread_bps: step.derived.value,
            input_value: benchmark,
            points: step.points,
          },
          fw,
        )
      : null;
  const first = criterion.scale.anchors[0]?.[1];
  const where = [`${criterion.id}’s \`derived.value\``, ...caps.map((id) => `the \`spread_bps\` operand of ${id}`)];
  return [
    p(
      `How \`spread_bps\` is computed and written: \`provider.yield_max\` and \`${criterion.input_key}\` are the decimals written in the inputs document (section 2); the difference and the product by 100 are exact, so \`spread_bps\` can have decimals (\`yield_max\` ${fractional.y} with the benchmark ${String(benchmark)} gives ${fractional.text}) and is negative when the benchmark is above \`yield_max\` (${negative.y} with ${String(benchmark)} gives ${negative.text}, which scores the first anchor’s points, ${first}). It is written as exact text (section 1) wherever it appears: as ${where.join(' and as ')} in the package (\`"${own.text}"\`, \`"${fractional.text}"\`, \`"${negative.text}"\`), and as \`{spread_bps}\` in the template \`detail_derived_spread_bps\` (section 12).`,
    ),
    p(
      `That template, not \`detail\`, writes the \`detail\` of ${criterion.id} as a ceiling or floor factor whenever its input is present (\`detail_missing\` when it is missing); its \`{input_value}\` is \`${criterion.input_key}\` as written in the inputs (the \`input\` format of section 12), not the spread${detail ? `. With the worked example’s inputs it is \`${detail}\`` : ''}.`,
    ),
  ];
}

function domainText(c: CriterionDefinition): string {
  const d = c.input;
  if (d.type === 'enum' || d.type === 'boolean') return d.type;
  if (d.min !== undefined && d.max !== undefined) return `${d.type} ${d.min}..${d.max}`;
  if (d.min !== undefined) return `${d.type} >= ${d.min}`;
  if (d.max !== undefined) return `${d.type} <= ${d.max}`;
  return `${d.type} (may be negative)`;
}

function scaleText(c: CriterionDefinition): string {
  const s = c.scale;
  if (s.kind === 'table') return s.entries.map(([v, points]) => `${String(v)} ${points}`).join('; ');
  const anchors = s.anchors.map(([x, points]) => `(${x}, ${points})`).join(', ');
  return s.on === 'input' ? `linear: ${anchors}` : `linear on \`${s.on}\` (below): ${anchors}`;
}
