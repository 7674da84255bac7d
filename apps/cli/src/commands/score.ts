import { basename, join } from 'node:path';
import {
  futureDatedProblems,
  type Scored,
  scoreWithPackage,
  serializePackage,
  withEvaluationDate,
} from '@svc/methodology';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { calendarDate } from '../calendar-date.js';
import { asCliError, CliError } from '../errors.js';
import { ensureDirectory, listJsonFiles, pathKind, readJsonFile, writeText } from '../files.js';
import { always, type FrameworkFor, withFrameworkInForce } from '../framework-in-force.js';
import { FRAMEWORK_OPTION, selectFramework } from '../framework-option.js';
import { io, setExitCode, writeErr } from '../io.js';
import type { Environment } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface ScoreOptions {
  json?: boolean;
  package?: string;
  date?: string;
  framework?: string;
}

export type ScoreOutcome = { file: string; scored: Scored } | { file: string; failure: CliError };

export function registerScore(program: Command, env: Environment = {}): void {
  withOutputOptions(
    program
      .command('score')
      .description('score an approved-inputs document, or every *.json document in a folder')
      .argument('<path>', 'an approved-inputs document, or a folder of them')
      .option('--package <out>', 'write the computation package (a folder of packages for a folder of inputs)')
      .option('--date <YYYY-MM-DD>', "evaluate on this date instead of the document's evaluation_date", calendarDate)
      .option(
        FRAMEWORK_OPTION[0],
        `${FRAMEWORK_OPTION[1]}; by default the one in force on each document's evaluation date (with the releases recorded in the configured store, when there is one)`,
      ),
  ).action(async (path: string, options: ScoreOptions) => {
    // A framework named is the one; otherwise each document's is the one in force on its evaluation date.
    if (options.framework !== undefined)
      setExitCode(await score(path, always(selectFramework(options.framework)), options));
    else setExitCode(await withFrameworkInForce(env, (frameworkFor) => score(path, frameworkFor, options)));
  });
}

async function score(path: string, frameworkFor: FrameworkFor, options: ScoreOptions): Promise<number> {
  if ((await pathKind(path)) === 'directory') return scoreFolder(path, frameworkFor, options);
  const outcome = await scoreFile(path, frameworkFor, options.date);
  if ('failure' in outcome) throw outcome.failure;
  if (options.package !== undefined) await writeText(options.package, serializePackage(outcome.scored.package));
  if (options.json) printJson(outcome.scored.indicator);
  else {
    printLines(resultsTable([outcome]), ...decisionLines(outcome.scored));
    if (options.package !== undefined) printLines(`Computation package written to ${options.package}`);
  }
  return 0;
}

/**
 * Reads, validates (after --date, so an as_of after the new date is reported) and scores one file, under the
 * framework `frameworkFor` gives for its evaluation date.
 */
export async function scoreFile(file: string, frameworkFor: FrameworkFor, date?: string): Promise<ScoreOutcome> {
  try {
    const document = await readJsonFile(file);
    const dated = date === undefined ? document : withEvaluationDate(document, date);
    const scored = scoreWithPackage(dated, await frameworkFor(evaluationDateOf(dated)));
    warnIfFutureDated(file, dated);
    return { file, scored };
  } catch (error) {
    return { file, failure: asCliError(error, file) };
  }
}

/** The document's evaluation date when it has one written as a date (YYYY-MM-DD); validation judges the rest. */
function evaluationDateOf(document: unknown): string | undefined {
  const date = (document as { evaluation_date?: unknown } | null)?.evaluation_date;
  return typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined;
}

/**
 * Scoring offline explores, so a document dated after the present is scored; but it is said on stderr, since
 * import, approval and publication refuse it.
 */
function warnIfFutureDated(file: string, document: unknown): void {
  const future = futureDatedProblems(document, new Date());
  if (future.length === 0) return;
  writeErr(
    `warning: ${file}: dated after the present; scored for exploration only (svc inputs import and svc publish refuse it)\n`,
  );
  for (const p of future) writeErr(`  ${p.path}: ${p.message}\n`);
}

/** Scores files one after another, in the given order; reports each to `onScored` (the progress bar). */
export async function scoreFiles(
  files: readonly string[],
  frameworkFor: FrameworkFor,
  date: string | undefined,
  onScored: (file: string) => void = () => {},
): Promise<ScoreOutcome[]> {
  const outcomes: ScoreOutcome[] = [];
  for (const file of files) {
    outcomes.push(await scoreFile(file, frameworkFor, date));
    onScored(file);
  }
  return outcomes;
}

/** The valid documents are scored and reported even when others fail; the run then exits non-zero. */
async function scoreFolder(dir: string, frameworkFor: FrameworkFor, options: ScoreOptions): Promise<number> {
  const files = await listJsonFiles(dir);
  const outcomes = await withProgress(files.length, (tick) => scoreFiles(files, frameworkFor, options.date, tick));
  const scored = outcomes.flatMap((o) => ('scored' in o ? [o] : []));
  const failures = outcomes.flatMap((o) => ('failure' in o ? [o.failure] : []));
  if (options.package !== undefined) {
    await ensureDirectory(options.package);
    for (const o of scored)
      await writeText(join(options.package, packageFileName(o.file)), serializePackage(o.scored.package));
  }
  if (failures.length > 0) {
    if (!options.json && scored.length > 0) printLines(resultsTable(scored, true));
    throw folderFailure(dir, files.length, failures, scored);
  }
  if (options.json) printJson(scored.map((o) => o.scored.indicator));
  else {
    printLines(resultsTable(scored, true));
    if (options.package !== undefined)
      printLines(`${scored.length} computation packages written to ${options.package}`);
  }
  return 0;
}

/** The worst failure sets the exit code; every problem of every file is listed. */
function folderFailure(
  dir: string,
  total: number,
  failures: readonly CliError[],
  scored: readonly { scored: Scored }[],
): CliError {
  const worst = failures.reduce((a, b) => (b.exitCode > a.exitCode ? b : a));
  return new CliError(worst.code, `${failures.length} of ${total} files in ${dir} could not be scored`, {
    problems: failures.flatMap((f) => f.problemLines),
    details: { results: scored.map((o) => o.scored.indicator) },
  });
}

/** "lender-a.json" -> "lender-a.package.json". */
export function packageFileName(file: string): string {
  return `${basename(file, '.json')}.package.json`;
}

/** A progress bar on stderr, only for people watching a terminal. */
async function withProgress<T>(total: number, work: (tick: (file: string) => void) => Promise<T>): Promise<T> {
  if (!io().stderr.isTTY) return work(() => {});
  const bar = new SingleBar(
    {
      stream: io().stderr as NodeJS.WritableStream,
      format: 'scoring [{bar}] {value}/{total} {file}',
      clearOnComplete: true,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0, { file: '' });
  try {
    return await work((file) => bar.increment(1, { file: basename(file) }));
  } finally {
    bar.stop();
  }
}

function resultsTable(results: readonly { file: string; scored: Scored }[], withFile = false): string {
  const head = ['Provider', 'Score', 'Band', 'Confidence', 'Publishable', 'Hard caps', 'Risk indicator id'];
  const rows = results.map(({ file, scored }) => {
    const { result, steps } = scored.package;
    const row = [
      result.name,
      steps.final_score,
      steps.risk_band,
      steps.confidence,
      steps.publishable ? 'yes' : 'no',
      capsCell(scored),
      result.risk_indicator_id,
    ];
    return withFile ? [basename(file), ...row] : row;
  });
  return renderTable(withFile ? ['File', ...head] : head, rows);
}

/** Fired caps, the binding ones marked: "HC-04 64.99 (binding), HC-06 64.99". */
function capsCell(scored: Scored): string {
  const fired = scored.package.result.svc_decision_object.hard_caps_fired;
  if (fired.length === 0) return 'none';
  return fired.map((c) => `${c.cap_id} ${c.cap}${c.binding ? ' (binding)' : ''}`).join(', ');
}

function decisionLines(scored: Scored): string[] {
  const decision = scored.package.result.svc_decision_object;
  const next =
    decision.next_band === undefined
      ? 'Next band: none (lowest risk band)'
      : `Next band: ${decision.next_band}, ${decision.points_to_next_band} points away`;
  const factorRows = [
    ...decision.ceiling_factors.map((f) => ['ceiling', f.criterion_id, f.criterion_label, f.point_impact, f.detail]),
    ...decision.floor_factors.map((f) => ['floor', f.criterion_id, f.criterion_label, f.point_impact, f.detail]),
  ];
  const factors =
    factorRows.length > 0 ? [renderTable(['Factor', 'Id', 'Criterion', 'Impact', 'Detail'], factorRows)] : [];
  return ['', decision.summary, next, ...factors];
}
