import { canonicalJson, sha256Hex } from '../canonical/canonical-json.js';
import { placesOf, type SlotFormat, TEMPLATES } from '../decision/templates.js';
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
    ...arithmeticSection(fw),
    ...inputsSection(fw),
    ...criteriaSection(fw),
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
      '`inputs` maps a criterion’s input key (section 3) to one approved value. A key that is absent means the input is missing. An unknown key, a value of the wrong type or outside its domain, or any other member or rule of this section broken is a validation error: the whole document is rejected with every problem listed as `{path, message}` (for example `{"path": "inputs.custody_model.value", "message": "..."}`), and nothing is scored.',
      '`source`, `approved_by` and `approved_at` are carried into the computation package; they do not change the score.',
      'The canonical inputs document is the document as read, with `provider.id` in lower case, written in RFC 8785 (section 10): numbers as their values (`7.0` is written `7`, `1.50` is written `1.5`), members sorted. It is what `inputs_sha256` hashes and what the package holds as `inputs`.',
    ),
  ];
}

function criteriaSection(fw: FrameworkDefinition): Block[] {
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
    p('A missing input scores 0 points (contribution 0), has no `as_of` and no age, and is marked `missing: true`.'),
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
  return [
    h2('7. Confidence'),
    p('For each criterion, a freshness factor `f`:'),
    ul(
      'missing: 0;',
      `\`age_days <= ${f.full_until_days}\`: 1;`,
      `\`${f.full_until_days} < age_days <= ${f.decay_until_days}\`: \`r4(1 - ${f.decay} x (age_days - ${f.full_until_days}) / ${f.decay_until_days - f.full_until_days})\` (the product, then the division, then the difference);`,
      `\`age_days > ${f.decay_until_days}\`: ${f.stale_factor}.`,
    ),
    p(
      `\`confidence = r4(sum of weight x f / 100)\`, a fraction between 0 and 1. A result is publishable (\`publishable: true\`) only when \`confidence >= ${fw.publication.min_confidence}\`.`,
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
    ),
  ];
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
      `Decimal figures inside a package travel as strings of fixed-place text (section 1), so no reader has to trust binary floating point: points, freshness and confidence ${PLACES.points} places (\`"80.0000"\`); contributions, module scores and the uncapped and capped scores ${PLACES.contribution} places (\`"9.000000"\`); final score, caps, point impacts and points to next band ${PLACES.score} places (\`"-3.00"\`, \`"0.00"\`). Input values stay JSON numbers, booleans and strings as in the inputs document; derived quantities travel as exact text (\`"300"\`).`,
    ),
    h3('The hashes and the identifier'),
    ul(
      '`framework_sha256` = SHA-256 of the canonical framework definition (its bytes are printed below).',
      '`inputs_sha256` = SHA-256 of the canonical inputs document (section 2).',
      '`result_sha256` = SHA-256 of the canonical `result` (section 9 with figures as fixed-place text).',
      '`risk_indicator_id` = `ri_` + the first 24 hexadecimal digits of SHA-256 of the canonical `{"evaluation_date": ..., "framework_sha256": ..., "inputs_sha256": ...}`. The same inputs under the same framework always give the same identifier.',
      '`package_sha256` = SHA-256 of the whole package’s canonical bytes: exactly the bytes `svc score --package` writes and `GET /api/v1/computation/{id}` returns. It is not a member of the package (a package cannot hold its own hash); signed statements name it.',
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
          `\`{name, version}\` of the engine that built it (this engine: \`{"name":"${ENGINE.name}","version":"${ENGINE.version}"}\`); informational: verification does not compare it, so a reproduction copies it from the package`,
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
    ]),
  ];
}

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
