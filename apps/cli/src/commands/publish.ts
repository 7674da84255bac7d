import type { RunOutcome, RunReport } from '@svc/api';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { calendarDate } from '../calendar-date.js';
import { CliError } from '../errors.js';
import { io, setExitCode } from '../io.js';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { providerIdsArgument } from '../provider-id.js';

interface PublishOptions {
  json?: boolean;
  all?: boolean;
  date?: string;
  dryRun?: boolean;
}

export function registerPublish(program: Command, env: Environment): void {
  withOutputOptions(
    program
      .command('publish')
      .description(
        'score providers from their approved inputs under the current framework and publish the results, each provider whole or untouched (fifty to a transaction)',
      )
      .argument('[provider_id...]', 'the providers to publish', providerIdsArgument)
      .option('--all', 'every provider with approved inputs')
      .option('--date <YYYY-MM-DD>', "evaluate on this date instead of each document's evaluation_date", calendarDate)
      .option('--dry-run', 'score and report what would happen; write nothing'),
  ).action(async (providerIds: string[], options: PublishOptions) => {
    setExitCode(await publish(env, providerIds, options));
  });
}

/** Exit 0 when every provider was published or unchanged, 1 when any was refused. */
async function publish(env: Environment, providerIds: readonly string[], options: PublishOptions): Promise<number> {
  if (providerIds.length > 0 && options.all) throw new CliError('usage', 'name providers or give --all, not both');
  if (providerIds.length === 0 && !options.all) throw new CliError('usage', 'name the providers to publish, or --all');
  const ops = await operations(env);
  const progress = progressBar();
  const report = await withOperator(
    ops,
    (ctx) =>
      ops.api.publishRun(ctx, {
        providers: options.all ? 'all' : providerIds,
        date: options.date,
        dryRun: options.dryRun === true,
        onProgress: progress.tick,
      }),
    options.dryRun === true ? {} : { changes: true, signsAs: { role: 'approver', doing: 'publishing' } },
  )
    .catch((error: unknown) => {
      // A run that stopped partway says what it published before the error (--json: in the error's `report`).
      const stopped = error instanceof CliError ? (error.details.report as StoppedReport | undefined) : undefined;
      if (stopped && !options.json) printLines(...reportLines(stopped), ...notAttemptedLines(stopped));
      throw error;
    })
    .finally(progress.stop);
  if (options.json) printJson(report);
  else printLines(...reportLines(report));
  return report.counts.refused > 0 ? 1 : 0;
}

type StoppedReport = RunReport & { not_attempted: string[] };

/** The providers a stopped run did not reach: untouched, published by running it again. */
function notAttemptedLines(report: StoppedReport): string[] {
  if (report.not_attempted.length === 0) return [];
  return [
    `Not attempted (the run stopped before them; nothing of theirs was written, run it again to publish them): ${report.not_attempted.length}`,
    ...report.not_attempted.map((id) => `  ${id}`),
  ];
}

/** A progress bar on stderr, only for people watching a terminal and only when there is more than one provider. */
function progressBar(): { tick(done: number, total: number, providerId: string): void; stop(): void } {
  let bar: SingleBar | undefined;
  return {
    tick(done, total, providerId) {
      if (!io().stderr.isTTY || total < 2) return;
      if (!bar) {
        bar = new SingleBar(
          {
            stream: io().stderr as NodeJS.WritableStream,
            format: 'publishing [{bar}] {value}/{total} {provider}',
            clearOnComplete: true,
            hideCursor: true,
          },
          Presets.shades_classic,
        );
        bar.start(total, 0, { provider: '' });
      }
      bar.update(done, { provider: providerId });
    },
    stop() {
      bar?.stop();
    },
  };
}

/** The run's report as people read it (also after `svc methodology publish`): every provider, then the refusals. */
export function reportLines(report: RunReport): string[] {
  const { published, unchanged, refused } = report.counts;
  const date = report.evaluation_date ? `evaluated on ${report.evaluation_date}` : "each document's evaluation date";
  const lines = [
    report.dry_run
      ? `Dry run (${report.framework_version}, ${date}): nothing was written; this is what publishing would do.`
      : `Published under ${report.framework_version}, ${date}.`,
  ];
  if (report.outcomes.length === 0) return [...lines, 'No provider has approved inputs: nothing to publish.'];
  const verb = report.dry_run ? 'would be ' : '';
  lines.push(
    `${verb}published ${published}, ${verb}unchanged ${unchanged}, ${verb}refused ${refused}:`,
    renderTable(
      ['Provider', 'Provider id', report.dry_run ? 'Would be' : 'Outcome', 'Score', 'Band', 'Move', 'Before'],
      report.outcomes.map((o) => [nameOf(o), o.provider_id, o.status, ...scoreCells(o)]),
    ),
  );
  const refusals = report.outcomes.filter((o) => o.status === 'refused');
  if (refusals.length > 0) {
    lines.push(
      'Refused (not published):',
      renderTable(
        ['Provider', 'Provider id', 'Reason'],
        refusals.map((o) => [nameOf(o), o.provider_id, o.reason ?? '']),
      ),
      ...refusals.flatMap((o) => o.problems.map((p) => `  ${o.provider_id}: ${p.path || '(document)'}: ${p.message}`)),
    );
  }
  return lines;
}

export type Move = 'new' | 'up' | 'down' | 'unchanged';

/**
 * How a provider's score moved from the indicator in force before: new when there was none (a first
 * publication, or one after a withdrawal), up or down with the score (a higher score is a lower risk),
 * unchanged when it stayed. A refused provider did not move.
 */
export function moveOf(o: RunOutcome): Move | null {
  if (o.status === 'refused' || o.final_score === null) return null;
  if (o.previous_score === null) return 'new';
  if (o.final_score > o.previous_score) return 'up';
  if (o.final_score < o.previous_score) return 'down';
  return 'unchanged';
}

/** Score, band, move and what it was before; dashes for a refused provider, which publishes nothing. */
function scoreCells(o: RunOutcome): string[] {
  const move = moveOf(o);
  if (move === null) return ['-', '-', '-', '-'];
  const before =
    o.previous_score === null ? '-' : `${o.previous_score.toFixed(2)} ${o.previous_band ?? o.risk_band ?? ''}`.trim();
  const bandMove =
    o.previous_band !== null && o.previous_band !== o.risk_band ? ` (${o.previous_band} -> ${o.risk_band})` : '';
  return [score(o), o.risk_band ?? '-', `${move}${bandMove}`, before];
}

function nameOf(o: RunOutcome): string {
  return o.provider_name ?? '-';
}

function score(o: RunOutcome): string {
  return o.final_score === null ? '-' : o.final_score.toFixed(2);
}
