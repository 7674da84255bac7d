import { canonicalJson, sha256Hex } from '../canonical/canonical-json.js';
import { compile } from '../compute/compiled.js';
import { compute } from '../compute/compute.js';
import { derive } from '../compute/derived.js';
import { compare, type Dec, dec, fixed, r2, r4, ZERO } from '../decimal.js';
import { fill, placesOf, type SlotFormat, TEMPLATES, type TemplateName } from '../decision/templates.js';
import { exact } from '../decision/wording.js';
import { ENGINE } from '../engine.js';
import type { CapCondition, CriterionDefinition, Framework, FrameworkDefinition } from '../framework/schema.js';
import { PLACES } from '../indicator.js';
import { PLANNER_TYPES } from '../inputs/document.js';
import { scoreWithPackage, serializePackage } from '../package/build.js';
import { type ComputationPackage, PACKAGE_FORMAT } from '../package/computation-package.js';
import type { Block } from './blocks.js';
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

const h2 = (text: string): Block => ({ kind: 'heading', level: 2, text });
const h3 = (text: string): Block => ({ kind: 'heading', level: 3, text });
const p = (text: string): Block => ({ kind: 'paragraph', text });
const ul = (...items: string[]): Block => ({ kind: 'list', items });
const table = (head: string[], rows: string[][]): Block => ({ kind: 'table', head, rows });
const json = (value: unknown): Block => ({ kind: 'code', language: 'json', text: JSON.stringify(value, null, 2) });
const code = (text: string) => `\`${text}\``;

function signOffText(framework: Framework): string {
  const s = framework.signOff;
  return s
    ? `approved by the chief risk officer (${s.signed_off_by}, ${s.signed_off_on})`
    : 'none: a draft, which can score but not publish';
}

/** The `stale` parts of the cap conditions, with their cap: HC-07's "age_days > 365" is one. */
function staleConditions(fw: FrameworkDefinition): { capId: string; over: number }[] {
  const of = (cond: CapCondition): number[] =>
    cond.op === 'all' ? cond.of.flatMap(of) : cond.op === 'stale' ? [cond.age_days_over] : [];
  return fw.hard_caps.flatMap((cap) => of(cap.condition).map((over) => ({ capId: cap.id, over })));
}

/** "HC-07’s `age_days_over` (365 days)", for every stale condition; empty when no cap has one. */
function staleCapsText(fw: FrameworkDefinition): string {
  return staleConditions(fw)
    .map((s) => `${s.capId}’s \`age_days_over\` (${s.over} days)`)
    .join(' and ');
}

/** The operators of the cap conditions, in the order of section 5's table. */
const CONDITION_OPS = ['eq', 'in', 'lt', 'gt', 'all', 'stale'] as const;

/** What a reimplementation from this page most often gets wrong (issue 31), each pointing to its section. */
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

/** The places a `fixed` slot of a template is written with. */
function slotPlaces(name: TemplateName, slot: string, fw: FrameworkDefinition): number {
  const format = TEMPLATES[name].slots[slot]?.format;
  if (format?.kind !== 'fixed') throw new RangeError(`{${slot}} of ${name} is not a fixed-place slot`);
  return placesOf(format, fw);
}

/** Which figure each rounding applies to, and the places each figure is written with (issue 31). */
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

function uncappedSection(): Block[] {
  return [h2('4. Uncapped score'), p('`uncapped = sum of contributions` (exact; no rounding before the caps).')];
}

function capsSection(fw: FrameworkDefinition): Block[] {
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
function operandsOf(cond: CapCondition): string[] {
  if (cond.op === 'all') return cond.of.flatMap(operandsOf);
  if (cond.op === 'stale') return cond.criteria.map((id) => `${id}.age_days`);
  return [cond.operand];
}

function bandsSection(fw: FrameworkDefinition): Block[] {
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

function confidenceSection(fw: FrameworkDefinition): Block[] {
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

function decisionSection(fw: FrameworkDefinition): Block[] {
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

/** Members of the result, with their type and content; `places` of a figure when it has some. */
const RESULT_MEMBERS: [string, string, string][] = [
  ['risk_indicator_id', 'string', 'the verification identifier (section 10)'],
  ['id', 'string', '`provider.id` (lower case)'],
  ['provider_id', 'string', '`provider.id` (lower case), the same as `id`'],
  ['name', 'string', '`provider.name`'],
  ['planner_type', 'string', '`provider.planner_type`'],
  ['provider_subtype', 'string', '`provider.provider_subtype`'],
  ['yield_min', 'number', '`provider.yield_min`, as in the inputs'],
  ['yield_max', 'number', '`provider.yield_max`, as in the inputs'],
  ['final_score', `figure, ${PLACES.score} places`, 'section 6'],
  ['risk_band', 'string', 'section 6'],
  ['confidence', `figure, ${PLACES.confidence} places`, 'section 7'],
  ['publishable', 'boolean', 'section 7'],
  ['framework_version', 'string', 'the framework version string'],
  ['scored_at', 'string', '`evaluation_date` followed by `T00:00:00Z`'],
  ['criterion_scores', 'array', 'one entry per criterion, in framework order (below)'],
  ['svc_decision_object', 'object', 'section 8 (below)'],
  ['score_commentary', 'object', '`{overview, modules}` (below)'],
];

function resultSection(): Block[] {
  return [
    h2('9. The result'),
    p(
      'The authenticated form of a Risk Indicator. Over HTTP and in the CLI’s `--json` output its figures are JSON numbers (the decimal’s value: `78.46`, `1`, `61.25`); inside a computation package (section 10) they are strings of fixed-place text with the places given here. Every other value is the same in both.',
    ),
    table(
      ['member', 'type', 'content'],
      RESULT_MEMBERS.map((m) => [code(m[0]), m[1], m[2]]),
    ),
    p('Each `criterion_scores` entry:'),
    table(
      ['member', 'type', 'content'],
      [
        ['`criterion_id`, `criterion_label`, `module_id`', 'string', 'from the criteria tables of section 3'],
        ['`weight`', 'integer', 'the criterion’s weight'],
        ['`input_key`', 'string', 'the criterion’s input key'],
        ['`input_value`', 'as in the inputs, or null', 'the approved value; `null` when missing'],
        ['`points`', `figure, ${PLACES.points} places`, 'section 3'],
        ['`contribution`', `figure, ${PLACES.contribution} places`, 'section 3'],
        ['`as_of`', 'string or null', 'the input’s `as_of`; `null` when missing'],
        ['`age_days`', 'integer or null', 'section 1; `null` when missing'],
        ['`freshness`', `figure, ${PLACES.freshness} places`, 'section 7'],
        ['`missing`', 'boolean', 'whether the input is missing'],
      ],
    ),
    p(
      `\`svc_decision_object\`: \`summary\` (string); \`ceiling_factors\` and \`floor_factors\`, arrays of \`{criterion_id, criterion_label, point_impact (figure, ${PLACES.score} places), detail (string)}\`; \`hard_caps_fired\`, an array of \`{cap_id, label, cap (figure, ${PLACES.score} places), binding (boolean), point_impact (figure, ${PLACES.score} places)}\`; and, only when there is a next band, \`next_band\` (string) and \`points_to_next_band\` (figure, ${PLACES.score} places).`,
    ),
    p(
      `\`score_commentary\`: \`overview\` (string, template \`overview\`) and \`modules\`, one entry per module in framework order: \`{module_id, label, score, max, text}\`, where \`score\` is the sum of the contributions of the module’s criteria (figure, ${PLACES.contribution} places), \`max\` the module’s weight (integer) and \`text\` template \`module\` (section 12).`,
    ),
  ];
}

/** A package member: its name, its JSON type and what it holds. */
type Member = [string, string, string];

/** Rows in the order RFC 8785 writes the members (by UTF-16 code units). */
function inByteOrder(members: Member[]): string[][] {
  return [...members].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((m) => [code(m[0]), m[1], m[2]]);
}

function packageSection(framework: Framework): Block[] {
  const fw = framework.definition;
  return [
    h2('10. Computation package and verification identifier'),
    p(
      'Canonical JSON is RFC 8785 (JSON Canonicalization Scheme), UTF-8, with no byte order mark and no trailing newline:',
    ),
    ul(
      'no whitespace between tokens; object members sorted by their names compared as UTF-16 code units; array items in their order;',
      'strings between `"`, with `"` and `\\` escaped by a backslash, the controls U+0008, U+0009, U+000A, U+000C, U+000D written `\\b`, `\\t`, `\\n`, `\\f`, `\\r`, the other controls below U+0020 as `\\u00xx` (lower-case hexadecimal), and every other character as itself;',
      'numbers as ECMAScript writes them (`Number.prototype.toString`): the shortest decimal that reads back as the same double, no trailing zeros, an exponent only below 1e-6 or from 1e21 (`1e-7`, `1e+21`); so `7.0` is `7` and `1.50` is `1.5`;',
      '`true`, `false` and `null` as themselves.',
    ),
    p(
      'The numbers of a package are whole numbers (weights, ages) and the numbers of the inputs document (`yield_min`, `yield_max`, input values). An input number is held as the double nearest to it and written in that double’s shortest form, above. That form has exactly the value written in the inputs only because an input number has at most 15 significant digits (section 2): in the double’s normal range, a decimal of at most 15 significant digits is the shortest decimal that reads back as its double, so it is written with its own value (`1.50` as `1.5`, `1.5E2` as `150`, `1e20` as `100000000000000000000`, `-0` as `0`), and that value is the one computed with. A longer number could come back as another value (`1.0000000000000001` would be written `1`), which is why it is refused. Below the normal range (magnitudes under 2.2250738585072014e-308) a double holds fewer digits, and the engine reads and writes the double’s shortest form even where it differs from the text: `1.23456789012345e-310` is written `1.23456789012346e-310`, and `1e-400` is read and written as `0`.',
    ),
    p(
      `Decimal figures inside a package travel as strings of fixed-place text (section 1), so no reader has to trust binary floating point: points, freshness and confidence ${PLACES.points} places (\`"80.0000"\`); contributions, module scores and the uncapped and capped scores ${PLACES.contribution} places (\`"9.000000"\`); final score, caps, point impacts and points to next band ${PLACES.score} places (\`"-3.00"\`, \`"0.00"\`). Input values stay JSON numbers, booleans and strings as in the inputs document; derived quantities travel as exact text (\`"300"\`).`,
    ),
    h3('The hashes and the identifier'),
    ul(
      '`framework_sha256` = SHA-256 of the canonical framework definition (its bytes are printed below).',
      '`inputs_sha256` = SHA-256 of the canonical inputs document (section 2).',
      '`result_sha256` = SHA-256 of the canonical `result` (section 9 with figures as fixed-place text).',
      '`risk_indicator_id` = `ri_` + the first 24 hexadecimal digits of SHA-256 of the canonical `{"evaluation_date": ..., "framework_sha256": ..., "inputs_sha256": ...}`. The same inputs under the same framework always give the same identifier.',
      '`package_sha256` = SHA-256 of the whole package’s canonical bytes, `engine` included: exactly the bytes `svc score --package` writes and `GET /api/v1/computation/{id}` returns. It is not a member of the package (a package cannot hold its own hash); signed statements name it.',
      'Every SHA-256 is written as 64 lower-case hexadecimal digits, of the UTF-8 bytes of the canonical text.',
    ),
    h3('The package'),
    p(
      'The computation package holds the inputs, the framework’s version and hash, every intermediate step, the result and the hashes. Reproducing a package means recomputing it from its own inputs under the framework it names and getting identical bytes. Its members, in the order of its bytes:',
    ),
    table(
      ['member', 'type', 'content'],
      inByteOrder([
        ['package_format', 'string', code(PACKAGE_FORMAT)],
        [
          'engine',
          'object',
          `\`{name, version}\` of the engine that built it (this engine: \`{"name":"${ENGINE.name}","version":"${ENGINE.version}"}\`); informational: verification does not compare it. It is part of the package’s bytes, so \`package_sha256\` covers it (\`inputs_sha256\`, \`result_sha256\` and the identifier do not): a reproduction copies it from the package it reproduces, since another name or version gives other bytes and another \`package_sha256\``,
        ],
        [
          'framework',
          'object',
          `\`{framework_version, version, sha256}\`: \`"${fw.framework_version}"\`, \`"${fw.version}"\` and \`framework_sha256\`; the definition itself is not in the package`,
        ],
        ['inputs', 'object', 'the canonical inputs document'],
        ['inputs_sha256', 'string', 'SHA-256 hex'],
        ['evaluation_date', 'string', '`evaluation_date` of the inputs'],
        ['risk_indicator_id', 'string', 'the identifier'],
        ['steps', 'object', 'every intermediate step (below)'],
        ['result', 'object', 'the result of section 9, figures as fixed-place text'],
        ['result_sha256', 'string', 'SHA-256 hex'],
      ]),
    ),
    p('`steps`:'),
    table(
      ['member', 'type', 'content'],
      inByteOrder([
        ['criteria', 'array', 'one entry per criterion, in framework order (below)'],
        ['uncapped', `text, ${PLACES.contribution} places`, 'section 4'],
        ['hard_caps', 'array', 'every cap of the table, fired or not, in table order (below)'],
        ['capped', `text, ${PLACES.contribution} places`, 'section 5'],
        ['final_score', `text, ${PLACES.score} places`, 'section 6'],
        ['risk_band', 'string', 'section 6'],
        ['next_band', 'string or null', '`null` for the lowest-risk band'],
        ['points_to_next_band', `text, ${PLACES.score} places, or null`, '`null` for the lowest-risk band'],
        ['confidence', `text, ${PLACES.confidence} places`, 'section 7'],
        ['publishable', 'boolean', 'section 7'],
      ]),
    ),
    p('Each `steps.criteria` entry:'),
    table(
      ['member', 'type', 'content'],
      inByteOrder([
        ['criterion_id', 'string', 'the criterion id'],
        ['input_key', 'string', 'its input key'],
        ['input_value', 'as in the inputs, or null', '`null` when missing'],
        [
          'derived',
          'object or null',
          '`{name, value}` when the scale reads a derived quantity and the input is present: its name and exact text; else `null`',
        ],
        ['missing', 'boolean', ''],
        ['as_of', 'string or null', '`null` when missing'],
        ['age_days', 'integer or null', '`null` when missing'],
        ['freshness', `text, ${PLACES.freshness} places`, ''],
        ['points', `text, ${PLACES.points} places`, ''],
        ['weight', 'integer', ''],
        ['contribution', `text, ${PLACES.contribution} places`, ''],
      ]),
    ),
    p('Each `steps.hard_caps` entry:'),
    table(
      ['member', 'type', 'content'],
      inByteOrder([
        ['cap_id', 'string', 'the cap id'],
        ['label', 'string', 'the cap label'],
        ['condition', 'string', 'the condition as the table of section 5 writes it'],
        [
          'operands',
          'array',
          '`{operand, value}` for each operand the condition reads, in the order of section 5: an input’s value as in the inputs, a derived quantity as exact text, an age as an integer, `null` when missing',
        ],
        ['fired', 'boolean', ''],
        ['cap', `text, ${PLACES.score} places`, 'the cap value'],
        ['binding', 'boolean', ''],
        ['point_impact', `text, ${PLACES.score} places`, '`r2(cap - uncapped)` when binding, else `0.00`'],
      ]),
    ),
    h3('The framework definition'),
    p(
      `The definition’s canonical bytes, exactly (one line), whose SHA-256 is \`framework_sha256\` = \`${framework.sha256}\`. Its members are the tables of this page as data; the chief risk officer’s sign-off is not part of it.`,
    ),
    { kind: 'code', language: 'json', text: canonicalJson(fw) },
  ];
}

function workedExampleSection(framework: Framework): Block[] {
  const fw = framework.definition;
  const document = WORKED_EXAMPLES.get(fw.version);
  if (!document) return [h2('11. Worked example'), p(`No worked example is published for ${fw.framework_version}.`)];
  const { package: pkg } = scoreWithPackage(document, framework);
  const bytes = serializePackage(pkg);
  const s = pkg.steps;
  const d = pkg.result.svc_decision_object;
  const factors = (list: typeof d.ceiling_factors) =>
    list.map((f) => `${f.criterion_id} ${f.point_impact}: ${code(f.detail)}`);
  const fired = s.hard_caps.filter((c) => c.fired);
  return [
    h2('11. Worked example'),
    p(
      `The engine’s output for the inputs below (\`examples/dcrf-${fw.version}/worked-example.json\`), evaluated on ${document.evaluation_date}.`,
    ),
    json(document),
    table(
      ['criterion', 'input', 'age_days', 'freshness', 'points', 'contribution'],
      s.criteria.map((c) => [
        c.criterion_id,
        c.derived
          ? `${JSON.stringify(c.input_value)} (${c.derived.name} ${c.derived.value})`
          : JSON.stringify(c.input_value),
        String(c.age_days),
        c.freshness,
        c.points,
        c.contribution,
      ]),
    ),
    ul(
      `uncapped = ${s.uncapped}; ${fired.length === 0 ? 'no cap fires' : `caps fired: ${fired.map((c) => `${c.cap_id} (${c.binding ? `binding, ${c.point_impact}` : 'not binding'})`).join(', ')}`}; capped = ${s.capped}.`,
      `final_score ${s.final_score}, band ${s.risk_band}${s.next_band ? `, next_band ${s.next_band}, points_to_next_band ${s.points_to_next_band}` : ''}, confidence ${s.confidence}, ${s.publishable ? 'publishable' : 'not publishable'}.`,
      `Ceiling factors, in order: ${factors(d.ceiling_factors).join('; ')}.`,
      `Floor factors, in order: ${factors(d.floor_factors).join('; ')}.`,
    ),
    p('The texts:'),
    {
      kind: 'code',
      language: 'text',
      text: [
        d.summary,
        pkg.result.score_commentary.overview,
        ...pkg.result.score_commentary.modules.map((m) => m.text),
      ].join('\n'),
    },
    ul(
      `\`inputs_sha256\`: \`${pkg.inputs_sha256}\``,
      `\`framework_sha256\`: \`${pkg.framework.sha256}\``,
      `\`result_sha256\`: \`${pkg.result_sha256}\``,
      `\`risk_indicator_id\`: \`${pkg.risk_indicator_id}\``,
      `\`package_sha256\`: \`${sha256Hex(bytes)}\` (${new TextEncoder().encode(bytes).length} bytes)`,
    ),
    p('The package, indented here for reading (its canonical bytes hash to `package_sha256` above):'),
    json(JSON.parse(bytes) as ComputationPackage),
  ];
}

function textsSection(fw: FrameworkDefinition): Block[] {
  return [
    h2('12. Texts'),
    p(
      'Every text of a result (`summary`, each factor’s `detail`, the commentary’s `overview` and each module’s `text`) is a template below with its `{slot}`s filled; all the other characters are written as they stand. A slot whose format is a template holds that template filled (or nothing, where its rule says so). No template has a singular form: `points`, `inputs` and `days` are written so whatever the count.',
    ),
    p('How a slot’s value is written, by format:'),
    table(
      ['format', 'written as'],
      [
        ['text', 'the string as it is'],
        ['integer', 'the whole number in decimal digits'],
        ['fixed N', 'fixed-place text with N places (section 1)'],
        ['exact', 'exact text (section 1)'],
        [
          'input',
          'the input value: a number as ECMAScript’s `String()` writes it (the same text as RFC 8785, section 10: `1.35`, `20`, `1e-7`), a string as it is, a boolean as `true` or `false`',
        ],
        [
          'list',
          'the items in order: one item as it is; two as `a and b`; more as `a, b and c` (commas, then `and` before the last)',
        ],
      ],
    ),
    ...Object.entries(TEMPLATES).flatMap(([name, t]) => [
      h3(code(name)),
      p(t.use),
      { kind: 'code', language: 'text', text: t.text } satisfies Block,
      ...(Object.keys(t.slots).length === 0
        ? []
        : [
            table(
              ['slot', 'format', 'value'],
              Object.entries(t.slots).map(([slot, s]) => [code(`{${slot}}`), formatText(s.format, fw), s.about]),
            ),
          ]),
      ...(TEXT_NOTES[name as TemplateName]?.(fw) ?? []).map(p),
    ]),
  ];
}

/** What a template's slots count or round that their one-line description cannot say (issue 31). */
const TEXT_NOTES: Partial<Record<TemplateName, (fw: FrameworkDefinition) => string[]>> = {
  overview: (fw) => {
    const f = fw.freshness;
    const staleCaps = staleCapsText(fw);
    return [
      `\`{stale}\` counts the present inputs older than \`freshness.full_until_days\` (${f.full_until_days} days), those whose freshness factor is below 1. It is not the count of inputs older than \`freshness.decay_until_days\` (${f.decay_until_days} days), where the stale factor applies${staleCaps ? `, or than ${staleCaps}` : ''}: an input ${f.full_until_days + 1} days old is counted, as is one ${f.decay_until_days + 1} days old (section 7).`,
      `\`{uncapped}\` is the exact uncapped score rounded half-even to ${slotPlaces('overview', 'uncapped', fw)} places for this text only (\`steps.uncapped\` keeps ${PLACES.contribution}).`,
    ];
  },
  module: (fw) => {
    const places = slotPlaces('module', 'module_score', fw);
    const example = (text: string) => `\`${fixed(dec(text), places)}\` for ${text}`;
    return [
      `\`{module_score}\` is the module’s exact score rounded half-even to ${places} places for this text only (its \`score\` keeps ${PLACES.contribution}): ${example('10.6875')}, ${example('4.125')}.`,
    ];
  },
};

function formatText(format: SlotFormat, fw: FrameworkDefinition): string {
  switch (format.kind) {
    case 'fixed':
      return typeof format.places === 'number'
        ? `fixed ${format.places}`
        : `fixed ${placesOf(format, fw)} (\`arithmetic.${format.places}\`)`;
    case 'template':
      return format.of.map(code).join(' or ');
    default:
      return format.kind;
  }
}
