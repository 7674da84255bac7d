import { existsSync } from 'node:fs';
import type { RunReport } from '@svc/api';
import type { CriterionDefinition, Framework } from '@svc/methodology';
import type { Command } from 'commander';
import { calendarDate } from '../calendar-date.js';
import { asCliError, CliError } from '../errors.js';
import { listJsonFiles } from '../files.js';
import { compareOnInputs, type InputsComparison, type ProviderMove } from '../framework-compare-inputs.js';
import { compareFrameworks, type DefinitionChange, type FrameworkComparison } from '../framework-diff.js';
import { FRAMEWORK_FILE_OPTION, FRAMEWORK_OPTION, loadFrameworkFiles, selectFramework } from '../framework-option.js';
import { setExitCode } from '../io.js';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { reportLines } from './publish.js';

interface ShowOptions {
  json?: boolean;
  framework?: string;
  frameworkFile?: string[];
}

interface DiffOptions {
  json?: boolean;
  inputs?: string;
  date?: string;
  frameworkFile?: string[];
}

interface PublishFrameworkOptions {
  json?: boolean;
  signedOffBy?: string;
}

export function registerMethodology(program: Command, env: Environment = {}): void {
  const group = program
    .command('methodology')
    .description('show a framework, compare two framework versions, or publish one');
  withOutputOptions(
    group
      .command('show')
      .description('print a framework: modules, criteria, scales, hard caps, bands, freshness, sign-off')
      .option(...FRAMEWORK_OPTION)
      .option(...FRAMEWORK_FILE_OPTION),
  ).action(async (options: ShowOptions) => {
    const drafts = await loadFrameworkFiles(options.frameworkFile);
    const chosen = selectFramework(options.framework, drafts);
    show(drafts.includes(chosen) ? chosen : await asPublished(env, chosen, options.framework), options);
  });
  withOutputOptions(
    group
      .command('diff')
      .description("compare two framework versions' definitions, and with --inputs their scores on the same inputs")
      .argument('<a>', 'the first framework version, e.g. 1.0')
      .argument('<b>', 'the second framework version')
      .option('--inputs <dir>', 'score every *.json approved-inputs document in this folder under both versions')
      .option('--date <YYYY-MM-DD>', "evaluate on this date instead of each document's evaluation_date", calendarDate)
      .option(...FRAMEWORK_FILE_OPTION),
  ).action(async (a: string, b: string, options: DiffOptions) => {
    if (options.date !== undefined && options.inputs === undefined)
      throw new CliError('usage', '--date needs --inputs');
    const drafts = await loadFrameworkFiles(options.frameworkFile);
    const fa = selectFramework(a, drafts);
    const fb = selectFramework(b, drafts);
    const comparison = compareFrameworks(fa, fb);
    if (options.inputs === undefined) {
      if (options.json) printJson(comparison);
      else printLines(...comparisonLines(comparison));
      return;
    }
    const scores = await compareOnInputs(await listJsonFiles(options.inputs), fa, fb, options.date);
    if (scores.failures.length > 0) {
      if (!options.json && scores.providers.length > 0) printLines(...movesLines(scores));
      throw inputsFailure(options.inputs, scores);
    }
    if (options.json) printJson({ ...comparison, inputs: options.inputs, providers: scores.providers });
    else printLines(...comparisonLines(comparison), '', ...movesLines(scores));
  });
  withOutputOptions(
    group
      .command('publish')
      .description(
        "record the chief risk officer's sign-off of a framework version, make it current from its effective date and re-score every provider under it",
      )
      .argument('<version>', 'the framework version, e.g. 1.0')
      .option(
        '--signed-off-by <name>',
        'the chief risk officer signing the framework off, in open mode (otherwise the holder of SVC_OPERATOR_TOKEN, with the chief_risk_officer role)',
      ),
  ).action(async (version: string, options: PublishFrameworkOptions) => {
    setExitCode(await publishFrameworkVersion(env, selectFramework(version), options));
  });
}

/**
 * The framework with the sign-off every reader shows (the API's frameworkInForce, or frameworkNamed for a named version): the one recorded in
 * the configured store when the version was published there, the engine's built-in one while none is
 * recorded. With no store yet (no DATABASE_URL, no SQLite file under SVC_DATA_DIR) there is nothing
 * recorded, and the command stays offline.
 */
async function asPublished(env: Environment, framework: Framework, named: string | undefined): Promise<Framework> {
  const ops = await operations(env);
  if (ops.config.store.kind === 'sqlite' && !existsSync(ops.config.store.file)) return framework;
  const version = named === undefined ? undefined : framework.definition.version;
  const published = await withOperator(ops, (ctx) =>
    version === undefined ? ops.api.frameworkInForce(ctx) : ops.api.frameworkNamed(ctx, { version }),
  );
  return published ?? framework;
}

/** Exit 0 when every provider was re-scored, published or unchanged; 1 when any was refused (as `svc publish`). */
async function publishFrameworkVersion(
  env: Environment,
  framework: Framework,
  options: PublishFrameworkOptions,
): Promise<number> {
  const ops = await operations(env);
  const result = await withOperator(
    ops,
    async (ctx) => {
      let published: Awaited<ReturnType<typeof ops.api.publishFramework>>;
      try {
        published = await ops.api.publishFramework(ctx, { framework, signedOffBy: options.signedOffBy });
      } catch (error) {
        const cli = asCliError(error);
        if (cli.code !== 'unknown_framework') throw error;
        throw new CliError('invalid_value', cli.message, { cause: error });
      }
      // Re-score only when this release is the one in force today (not before its date, nor under a later release).
      const inForce = (await ops.api.frameworkInForce(ctx)).definition.version === published.release.version;
      const rescore = inForce
        ? await ops.api.publishRun(ctx, { providers: 'all', framework: published.framework, releaseRescore: true })
        : null;
      return { ...published, rescore };
    },
    {
      changes: true,
      by: options.signedOffBy,
      byOption: '--signed-off-by',
      signsAs: { role: 'chief_risk_officer', doing: 'signing off a framework release' },
    },
  );
  const { release, created, rescore } = result;
  const exit = rescore !== null && rescore.counts.refused > 0 ? 1 : 0;
  if (options.json) {
    printJson({ created, release, rescore });
    return exit;
  }
  printLines(
    created
      ? `${release.framework_version} published: signed off by ${release.signed_off_by} on ${release.signed_off_at.slice(0, 10)}, current from ${release.effective_date}`
      : `${release.framework_version} was already published (signed off by ${release.signed_off_by} on ${release.signed_off_at.slice(0, 10)}); nothing changed`,
    `sha256 ${release.framework_sha256}`,
    ...rescoreLines(rescore, release.effective_date),
  );
  return exit;
}

function rescoreLines(report: RunReport | null, effective: string): string[] {
  if (report === null) return [`Not yet in force: providers are re-scored under it from ${effective}.`];
  return ['', 'Re-score of every provider with approved inputs:', ...reportLines(report)];
}

function movesLines(c: InputsComparison): string[] {
  const a = c.from.framework_version;
  const b = c.to.framework_version;
  const moved = c.providers.filter((p) => p.band_move !== null).length;
  return [
    `Scores on the same inputs: ${a} -> ${b}; ${c.providers.length} providers, ${moved} band ${moved === 1 ? 'move' : 'moves'}`,
    renderTable(
      ['Provider', `Score ${a}`, `Band ${a}`, `Score ${b}`, `Band ${b}`, 'Delta', 'Band move'],
      c.providers.map(moveRow),
    ),
  ];
}

function moveRow(p: ProviderMove): string[] {
  return [p.name, p.a.final_score, p.a.risk_band, p.b.final_score, p.b.risk_band, p.delta, p.band_move ?? 'none'];
}

/** As `svc score` on a folder: every problem of every file; the worst failure sets the exit code. */
function inputsFailure(dir: string, c: InputsComparison): CliError {
  const worst = c.failures.reduce((x, y) => (y.exitCode > x.exitCode ? y : x));
  const total = c.failures.length + c.providers.length;
  return new CliError(worst.code, `${c.failures.length} of ${total} files in ${dir} could not be scored`, {
    problems: c.failures.flatMap((f) => f.problemLines),
    details: { providers: c.providers },
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
