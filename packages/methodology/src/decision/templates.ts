import { type Dec, fixed } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import { exact, listOf } from './wording.js';

/**
 * Every text the engine writes into a Risk Indicator (`summary`, each factor's `detail`, the commentary's
 * `overview` and module texts), as data: a template with `{slot}` placeholders, and for each slot the format
 * its value is written in. The engine fills these templates and the methodology page prints them, so the
 * published wording and the wording in every package are one definition.
 */

/** How a slot's value is written into a text. */
export type SlotFormat =
  /** A string written as it is (a label, an id, a band, a text the framework data holds). */
  | { kind: 'text' }
  /** A whole number in decimal digits (a count, a weight, days). */
  | { kind: 'integer' }
  /** A decimal rounded half-even to `places` (a number, or the framework's `arithmetic` member), never "-0". */
  | { kind: 'fixed'; places: number | 'points_places' | 'final_score_places' }
  /** A decimal's exact value, no exponent, no trailing zeros. */
  | { kind: 'exact' }
  /** An input value as the inputs document holds it: a number as ECMAScript String() writes it, else the enum or boolean. */
  | { kind: 'input' }
  /** Labels joined: "a", "a and b", "a, b and c". */
  | { kind: 'list' }
  /** Another template of this list, filled, or the empty string where the rule says so. */
  | { kind: 'template'; of: readonly TemplateName[] };

export interface Slot {
  format: SlotFormat;
  /** What the value is, for the methodology page. */
  about: string;
}

export interface TextTemplate {
  /** Where the text goes and when this template (rather than another) is used. */
  use: string;
  text: string;
  slots: Readonly<Record<string, Slot>>;
}

const text = (about: string): Slot => ({ format: { kind: 'text' }, about });
const integer = (about: string): Slot => ({ format: { kind: 'integer' }, about });
const fixedTo = (places: number | 'points_places' | 'final_score_places', about: string): Slot => ({
  format: { kind: 'fixed', places },
  about,
});
const list = (about: string): Slot => ({ format: { kind: 'list' }, about });
const filled = (of: readonly TemplateName[], about: string): Slot => ({ format: { kind: 'template', of }, about });

const FRAMEWORK_VERSION = text('the framework version string, `framework_version`');
const CRITERION_LABEL = text('the criterion label');

export type TemplateName =
  | 'summary'
  | 'summary_where_next'
  | 'summary_where_lowest'
  | 'summary_anchored'
  | 'summary_anchored_none'
  | 'summary_held'
  | 'summary_held_none'
  | 'summary_capped'
  | 'summary_capped_none'
  | 'summary_cap_named'
  | 'detail'
  | 'detail_derived_spread_bps'
  | 'detail_missing'
  | 'overview'
  | 'overview_publishable'
  | 'overview_not_publishable'
  | 'module'
  | 'module_strongest'
  | 'module_weakest'
  | 'module_missing';

export const TEMPLATES: Readonly<Record<TemplateName, TextTemplate>> = {
  summary: {
    use: '`svc_decision_object.summary`: one sentence per Risk Indicator.',
    text: '{provider_name} scores {final_score} ({risk_band}, {where}) under {framework_version}, {anchored}, {held}; {capped}.',
    slots: {
      provider_name: text('`provider.name` of the inputs document'),
      final_score: fixedTo('final_score_places', '`final_score`'),
      risk_band: text('`risk_band`'),
      where: filled(['summary_where_next', 'summary_where_lowest'], 'where the score stands'),
      framework_version: FRAMEWORK_VERSION,
      anchored: filled(['summary_anchored', 'summary_anchored_none'], 'the floor factors'),
      held: filled(['summary_held', 'summary_held_none'], 'the ceiling factors'),
      capped: filled(['summary_capped', 'summary_capped_none'], 'the binding caps'),
    },
  },
  summary_where_next: {
    use: 'In `summary`, when there is a next band (every band but the lowest-risk one).',
    text: '{points_to_next_band} points below {next_band}',
    slots: {
      points_to_next_band: fixedTo(2, '`points_to_next_band`'),
      next_band: text('`next_band`'),
    },
  },
  summary_where_lowest: {
    use: 'In `summary`, for the lowest-risk band (no next band).',
    text: 'the lowest-risk band',
    slots: {},
  },
  summary_anchored: {
    use: 'In `summary`, when there is at least one floor factor.',
    text: 'anchored by {floor_labels}',
    slots: { floor_labels: list('the `criterion_label` of every floor factor, in `floor_factors` order') },
  },
  summary_anchored_none: {
    use: 'In `summary`, when there is no floor factor.',
    text: 'with no criterion at {floor_min_points} points or more',
    slots: { floor_min_points: text('`decision.floor_min_points` of the framework data, as it is written there') },
  },
  summary_held: {
    use: 'In `summary`, when there is at least one ceiling factor.',
    text: 'held back by {ceiling_labels}',
    slots: { ceiling_labels: list('the `criterion_label` of every ceiling factor, in `ceiling_factors` order') },
  },
  summary_held_none: {
    use: 'In `summary`, when there is no ceiling factor.',
    text: 'with nothing holding it back',
    slots: {},
  },
  summary_capped: {
    use: 'In `summary`, when at least one fired cap is binding.',
    text: 'capped at {lowest_cap} by {binding_caps}',
    slots: {
      lowest_cap: fixedTo(2, 'the lowest `cap` among the binding caps'),
      binding_caps: list('`summary_cap_named` of every binding cap, in hard-cap table order'),
    },
  },
  summary_capped_none: {
    use: 'In `summary`, when no cap is binding (none fired, or none lower than the uncapped score).',
    text: 'no hard cap binds',
    slots: {},
  },
  summary_cap_named: {
    use: 'One binding cap in `summary_capped`.',
    text: '{cap_id} {cap_label}',
    slots: { cap_id: text('the cap id'), cap_label: text('the cap label') },
  },
  detail: {
    use: "`detail` of a ceiling or floor factor whose input is present and whose scale reads the input's own value.",
    text: '{criterion_label} {input_value} scores {points} of 100',
    slots: {
      criterion_label: CRITERION_LABEL,
      input_value: { format: { kind: 'input' }, about: 'the input value' },
      points: fixedTo('points_places', "the criterion's points"),
    },
  },
  detail_derived_spread_bps: {
    use: '`detail` of a factor whose input is present and whose scale reads the derived quantity `spread_bps` (C3).',
    text: '{criterion_label} {spread_bps} bps (benchmark {input_value}%) scores {points} of 100',
    slots: {
      criterion_label: CRITERION_LABEL,
      spread_bps: { format: { kind: 'exact' }, about: 'the derived `spread_bps`' },
      input_value: { format: { kind: 'input' }, about: 'the input value (`benchmark_rate_pct`)' },
      points: fixedTo('points_places', "the criterion's points"),
    },
  },
  detail_missing: {
    use: '`detail` of a factor whose input is missing.',
    text: '{criterion_label} is missing ({input_key}) and scores 0 of 100',
    slots: { criterion_label: CRITERION_LABEL, input_key: text("the criterion's input key") },
  },
  overview: {
    use: '`score_commentary.overview`: one sentence per Risk Indicator.',
    text:
      'Scored under {framework_version} as of {evaluation_date}: final score {final_score} ({risk_band}) from an ' +
      'uncapped {uncapped}; confidence {confidence} with {present} of {criteria} inputs present and {stale} older ' +
      'than {full_until_days} days; {publication}.',
    slots: {
      framework_version: FRAMEWORK_VERSION,
      evaluation_date: text('`evaluation_date` of the inputs document'),
      final_score: fixedTo(2, '`final_score`'),
      risk_band: text('`risk_band`'),
      uncapped: fixedTo(4, 'the uncapped score (exact, then rounded to 4 places here)'),
      confidence: fixedTo(4, '`confidence`'),
      present: integer('how many criteria have their input present'),
      criteria: integer('how many criteria the framework has'),
      stale: integer('how many present criteria have `age_days` greater than `freshness.full_until_days`'),
      full_until_days: integer('`freshness.full_until_days` of the framework data'),
      publication: filled(['overview_publishable', 'overview_not_publishable'], 'whether the result is publishable'),
    },
  },
  overview_publishable: {
    use: 'In `overview`, when `publishable` is true.',
    text: 'publishable',
    slots: {},
  },
  overview_not_publishable: {
    use: 'In `overview`, when `publishable` is false.',
    text: 'not publishable (confidence below {min_confidence})',
    slots: { min_confidence: text('`publication.min_confidence` of the framework data, as it is written there') },
  },
  module: {
    use: '`text` of each `score_commentary.modules` entry, one per module in framework order.',
    text: '{module_label}: {module_score} of {module_max} points{strongest}{weakest}{missing}.',
    slots: {
      module_label: text('the module label'),
      module_score: fixedTo(2, "the sum of the contributions of the module's criteria (its `score`)"),
      module_max: integer("the module's weight (its `max`)"),
      strongest: filled(['module_strongest'], 'empty when no input of the module is present'),
      weakest: filled(
        ['module_weakest'],
        'empty when no input of the module is present, or when the weakest is the strongest',
      ),
      missing: filled(['module_missing'], 'empty when no input of the module is missing'),
    },
  },
  module_strongest: {
    use: "In `module`: among the module's criteria whose input is present, in framework order, the first with the most points.",
    text: '; strongest {criterion_label} ({points})',
    slots: { criterion_label: CRITERION_LABEL, points: fixedTo(4, "the criterion's points") },
  },
  module_weakest: {
    use: "In `module`: among the module's criteria whose input is present, in framework order, the first with the fewest points; left out when it is the same criterion as the strongest (one input present, or all present inputs at equal points).",
    text: '; weakest {criterion_label} ({points})',
    slots: { criterion_label: CRITERION_LABEL, points: fixedTo(4, "the criterion's points") },
  },
  module_missing: {
    use: "In `module`, when some of the module's criteria have their input missing.",
    text: '; missing {missing_labels}',
    slots: { missing_labels: list("the labels of the module's missing criteria, in framework order") },
  },
};

/** A slot's value before it is written: the engine's own figures and texts. */
export type SlotValue = string | number | boolean | Dec | readonly string[];

type Part = string | { slot: string; format: SlotFormat };

const SLOT = /\{([a-z_]+)\}/g;

/** A template split into literal text and slots, once. */
function partsOf(template: TextTemplate): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (const match of template.text.matchAll(SLOT)) {
    const name = match[1] as string;
    const slot = template.slots[name];
    if (!slot) throw new RangeError(`template slot {${name}} is not declared`);
    if (match.index > at) parts.push(template.text.slice(at, match.index));
    parts.push({ slot: name, format: slot.format });
    at = match.index + match[0].length;
  }
  if (at < template.text.length) parts.push(template.text.slice(at));
  return parts;
}

const COMPILED = new Map(Object.entries(TEMPLATES).map(([name, t]) => [name, partsOf(t)]));

/** The places a `fixed` slot is written to under a framework. */
export function placesOf(format: { places: number | 'points_places' | 'final_score_places' }, fw: FrameworkDefinition) {
  return typeof format.places === 'number' ? format.places : fw.arithmetic[format.places];
}

function written(value: SlotValue, format: SlotFormat, fw: FrameworkDefinition): string {
  switch (format.kind) {
    case 'fixed':
      return fixed(value as Dec, placesOf(format, fw));
    case 'exact':
      return exact(value as Dec);
    case 'list':
      return listOf(value as string[]);
    default:
      return String(value);
  }
}

/** A template filled with these values, each written in its slot's format. */
export function fill(name: TemplateName, values: Readonly<Record<string, SlotValue>>, fw: FrameworkDefinition): string {
  let out = '';
  for (const part of COMPILED.get(name) as Part[]) {
    if (typeof part === 'string') out += part;
    else {
      const value = values[part.slot];
      if (value === undefined) throw new RangeError(`template ${name} has no value for {${part.slot}}`);
      out += written(value, part.format, fw);
    }
  }
  return out;
}
