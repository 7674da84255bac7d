// The specification's sections 9 to 12: the result, the computation package, the worked example, the texts.
import { canonicalJson, sha256Hex } from '../canonical/canonical-json.js';
import { dec, fixed } from '../decimal.js';
import { placesOf, type SlotFormat, TEMPLATES, type TemplateName } from '../decision/templates.js';
import { ENGINE } from '../engine.js';
import type { Framework, FrameworkDefinition } from '../framework/schema.js';
import { PLACES } from '../indicator.js';
import { scoreWithPackage, serializePackage } from '../package/build.js';
import { type ComputationPackage, PACKAGE_FORMAT } from '../package/computation-package.js';
import type { Block } from './blocks.js';
import { code, h2, h3, json, p, slotPlaces, staleCapsText, table, ul } from './spec-blocks.js';
import { WORKED_EXAMPLES } from './worked-examples.js';

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

export function resultSection(): Block[] {
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

export function packageSection(framework: Framework): Block[] {
  return [...canonicalSection(), ...membersSection(framework), ...stepsSection(framework)];
}

/** Section 10's canonical JSON, its hashes and the identifier. */
function canonicalSection(): Block[] {
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
  ];
}

/** Section 10's package, member by member. */
function membersSection(framework: Framework): Block[] {
  const fw = framework.definition;
  return [
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
  ];
}

/** Section 10's `steps`, entry by entry, and the framework definition's own bytes. */
function stepsSection(framework: Framework): Block[] {
  const fw = framework.definition;
  return [
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

export function workedExampleSection(framework: Framework): Block[] {
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

export function textsSection(fw: FrameworkDefinition): Block[] {
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
