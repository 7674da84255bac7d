import type { CriterionDefinition, Framework } from '@svc/methodology';
import type { Command } from 'commander';
import { compareFrameworks, type DefinitionChange, type FrameworkComparison } from '../framework-diff.js';
import { FRAMEWORK_OPTION, selectFramework } from '../framework-option.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface ShowOptions {
  json?: boolean;
  framework?: string;
}

interface DiffOptions {
  json?: boolean;
}

export function registerMethodology(program: Command): void {
  const group = program.command('methodology').description('show a framework, or compare two framework versions');
  withOutputOptions(
    group
      .command('show')
      .description('print a framework: modules, criteria, scales, hard caps, bands, freshness, sign-off')
      .option(...FRAMEWORK_OPTION),
  ).action((options: ShowOptions) => {
    show(selectFramework(options.framework), options);
  });
  withOutputOptions(
    group
      .command('diff')
      .description("compare two framework versions' definitions")
      .argument('<a>', 'the first framework version, e.g. 1.0')
      .argument('<b>', 'the second framework version'),
  ).action((a: string, b: string, options: DiffOptions) => {
    const comparison = compareFrameworks(selectFramework(a), selectFramework(b));
    if (options.json) printJson(comparison);
    else printLines(...comparisonLines(comparison));
  });
}

function show(framework: Framework, options: ShowOptions): void {
  const { definition: fw, sha256, signOff } = framework;
  if (options.json) {
    printJson({
      framework_version: fw.framework_version,
      version: fw.version,
      sha256,
      sign_off: signOff,
      definition: fw,
    });
    return;
  }
  const signed = signOff
    ? `signed off by ${signOff.signed_off_by} (${signOff.role}) on ${signOff.signed_off_on}`
    : 'no sign-off: a draft, it can score but not publish';
  const { freshness: f } = fw;
  printLines(
    `${fw.name} (${fw.framework_version})`,
    `Version ${fw.version}, effective ${fw.effective_date}, ${signed}`,
    `sha256 ${sha256}`,
    `Score ${fw.score_range.min} to ${fw.score_range.max}; a higher score means a lower risk`,
    '',
    'Modules',
    renderTable(
      ['Id', 'Module', 'Weight'],
      fw.modules.map((m) => [m.id, m.label, String(m.weight)]),
    ),
    '',
    'Criteria',
    renderTable(
      ['Id', 'Module', 'Criterion', 'Input key', 'Domain', 'Weight'],
      fw.criteria.map((c) => [c.id, c.module_id, c.label, c.input_key, domainText(c), String(c.weight)]),
    ),
    '',
    'Points (linear: anchors (x, points), interpolated between them; table: value points)',
    renderTable(
      ['Id', 'Points'],
      fw.criteria.map((c) => [c.id, scaleText(c)]),
      [6, 80],
    ),
    '',
    'Hard caps',
    renderTable(
      ['Id', 'Cap', 'Label', 'Condition'],
      fw.hard_caps.map((h) => [h.id, h.cap, h.label, h.condition_text]),
    ),
    '',
    'Bands',
    renderTable(
      ['Band', 'Final score'],
      fw.bands.map((b, i) => {
        const above = fw.bands[i - 1];
        return [b.band, above ? `>= ${b.min} and < ${above.min}` : `>= ${b.min}`];
      }),
    ),
    '',
    `Freshness: factor 1 up to ${f.full_until_days} days old; falling linearly by ${f.decay} until ${f.decay_until_days} days; ${f.stale_factor} when older; 0 when missing`,
    `Publishable when confidence >= ${fw.publication.min_confidence}`,
  );
}

function domainText(c: CriterionDefinition): string {
  const { input } = c;
  if (input.type === 'enum' || input.type === 'boolean') return input.type;
  if (input.min !== undefined && input.max !== undefined) return `${input.type} ${input.min}..${input.max}`;
  if (input.min !== undefined) return `${input.type} >= ${input.min}`;
  if (input.max !== undefined) return `${input.type} <= ${input.max}`;
  return input.type;
}

function scaleText(c: CriterionDefinition): string {
  const { scale } = c;
  if (scale.kind === 'table') return scale.entries.map(([value, points]) => `${String(value)} ${points}`).join('; ');
  const anchors = scale.anchors.map(([x, points]) => `(${x}, ${points})`).join(' ');
  return scale.on === 'input' ? `linear ${anchors}` : `linear on ${scale.on} ${anchors}`;
}

function comparisonLines(c: FrameworkComparison): string[] {
  const heading = `${c.from.framework_version} (sha256 ${c.from.sha256}) -> ${c.to.framework_version} (sha256 ${c.to.sha256})`;
  if (c.identical) return [heading, 'no differences'];
  const count = `${c.changes.length} ${c.changes.length === 1 ? 'difference' : 'differences'}`;
  return [heading, count, renderTable(['Where', 'Change', 'Before', 'After'], c.changes.map(changeRow))];
}

function changeRow(change: DefinitionChange): string[] {
  return [change.path, change.change, valueText(change.before), valueText(change.after)];
}

/** Decimal text shown bare ("0.90"), a whole criterion, module or cap by id and label, anything else as short JSON. */
function valueText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (isLabelled(value)) return `${value.id} ${value.label}`;
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isLabelled(value: unknown): value is { id: string; label: string } {
  if (value === null || typeof value !== 'object') return false;
  const { id, label } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof label === 'string';
}
