import type { PendingApproval, PendingSummary, SubmissionRecord, SubmittedDocument } from '@svc/api';
import type { Command } from 'commander';
import { atTerminal, confirmed } from '../confirm.js';
import { asCliError, CliError, type ProblemLine } from '../errors.js';
import { listJsonFiles, pathKind, readJsonFile } from '../files.js';
import { setExitCode } from '../io.js';
import { type Environment, type Operations, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';
import { providerIdArgument, providerIdsArgument } from '../provider-id.js';
import { registerRedate } from './inputs-redate.js';
import {
  capsCell,
  diffPending,
  type InputsOptions,
  move,
  pendingLines,
  plural,
  SHA_SHOWN,
  showPending,
} from './inputs-review.js';

interface ByOptions extends InputsOptions {
  by?: string;
}

interface ApproveOptions extends ByOptions {
  allPending?: boolean;
  yes?: boolean;
  sha256: string[];
}

interface ListOptions extends InputsOptions {
  pending?: boolean;
}

export function registerInputs(program: Command, env: Environment): void {
  const group = program
    .command('inputs')
    .description(
      'approved inputs, maker-checker: an analyst submits documents, an approver who did not submit them approves them',
    );
  withOutputOptions(
    group
      .command('import')
      .description(
        'submit an approved-inputs document, or every *.json document in a folder, for approval; nothing is stored unless every document is valid',
      )
      .argument('<path>', 'an approved-inputs document, or a folder of them')
      .option(
        '--by <name>',
        'the analyst submitting them, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)',
      ),
  ).action(async (path: string, options: ByOptions) => {
    await importInputs(env, path, options);
  });
  withOutputOptions(
    group
      .command('approve')
      .description(
        "approve each named provider's pending submission (all or none), or with --all-pending every pending one; the approver must not be the submitter",
      )
      .argument('[provider_id...]', 'the providers whose pending submissions to approve', providerIdsArgument)
      .option(
        '--sha256 <hash>',
        'the inputs_sha256 that `svc inputs show` printed (12 hex digits or more), once for each provider: a pending submission that is not one of them is refused and nothing is approved; without it a terminal shows each submission and asks',
        (value: string, previous: string[]) => [...previous, value],
        [],
      )
      .option(
        '--all-pending',
        'every pending submission: shows the review (changes, score and band old -> new), asks, approves exactly those shown; those the approver submitted, or that arrived after the review, stay pending (exit 1)',
      )
      .option('--yes', 'with --all-pending: approve without asking (needed when not on a terminal)')
      .option(
        '--by <name>',
        'the analyst approving them, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)',
      ),
  ).action(async (providerIds: string[], options: ApproveOptions) => {
    if (providerIds.length > 0 && options.allPending) {
      throw new CliError('usage', 'name providers or give --all-pending, not both');
    }
    if (providerIds.length === 0 && !options.allPending) {
      throw new CliError('usage', 'name the providers whose submissions to approve, or --all-pending');
    }
    if (options.yes && !options.allPending) throw new CliError('usage', '--yes goes with --all-pending');
    if (options.allPending && options.sha256.length > 0) {
      throw new CliError(
        'usage',
        '--sha256 goes with named providers; --all-pending approves exactly the review it shows',
      );
    }
    if (options.allPending) setExitCode(await approveAllPending(env, options));
    else await approveInputs(env, providerIds, options);
  });
  withOutputOptions(
    group
      .command('show')
      .description("a provider's pending submission: who submitted it and when, its inputs SHA-256, then its inputs")
      .argument('<provider_id>', 'the provider whose pending submission to show', providerIdArgument),
  ).action(async (providerId: string, options: InputsOptions) => {
    await showPending(env, providerId, options);
  });
  withOutputOptions(
    group
      .command('diff')
      .description(
        "what a provider's pending submission changes against the inputs of its indicator in force: each changed input (old and new value and as_of), then score, band, confidence and hard caps old -> new under the framework in force",
      )
      .argument('<provider_id>', 'the provider whose pending submission to review', providerIdArgument),
  ).action(async (providerId: string, options: InputsOptions) => {
    await diffPending(env, providerId, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description('submissions: provider, status, submitted by/at, approved by/at, inputs SHA-256')
      .option('--pending', 'only the submissions waiting for approval'),
  ).action(async (options: ListOptions) => {
    await listInputs(env, options);
  });
  registerRedate(group, env, submissionsTable);
}

async function importInputs(env: Environment, path: string, options: ByOptions): Promise<void> {
  const ops = await operations(env);
  const files = (await pathKind(path)) === 'directory' ? await listJsonFiles(path) : [path];
  const documents = await readAll(ops, path, files);
  const records = await withOperator(ops, (ctx) => ops.api.submitInputs(ctx, { documents }), {
    by: options.by,
    changes: true,
  });
  if (options.json) {
    printJson(records);
    return;
  }
  const by = records[0]?.submitted_by ?? options.by ?? 'the submitter';
  printLines(
    `${records.length} ${plural(records.length, 'submission')} by ${by}, pending approval by another operator with the approver role:`,
    submissionsTable(records),
    'Review with: svc inputs show PROVIDER_ID; approve with: svc inputs approve PROVIDER_ID --sha256 INPUTS_SHA256 (by another operator, with the approver role)',
  );
}

/**
 * Reads every file before anything is stored. When some cannot be read, the
 * others are still validated, so one report lists every problem of every file.
 */
async function readAll(ops: Operations, path: string, files: readonly string[]): Promise<SubmittedDocument[]> {
  const documents: SubmittedDocument[] = [];
  const failures: CliError[] = [];
  for (const file of files) {
    try {
      documents.push({ source: file, document: await readJsonFile(file) });
    } catch (error) {
      failures.push(asCliError(error, file));
    }
  }
  if (failures.length === 0) return documents;
  if (files.length === 1 && failures[0]) throw failures[0];
  const invalid: ProblemLine[] = (await withOperator(ops, (ctx) => ops.api.submissionProblems(ctx, { documents }))).map(
    (p) => ({ file: p.source, path: p.path, message: p.message }),
  );
  const problems = [...failures.flatMap((f) => f.problemLines), ...invalid];
  const bad = new Set(problems.map((p) => p.file)).size;
  const worst = failures.reduce((a, b) => (b.exitCode > a.exitCode ? b : a));
  throw new CliError(
    worst.code,
    `${bad} of ${files.length} files in ${path} could not be submitted; nothing was stored`,
    {
      problems,
    },
  );
}

/**
 * Approves the named providers' pending submissions, pinned to the content the approver saw: the inputs_sha256 given
 * with --sha256, or, on a terminal, each submission shown and confirmed. Off a terminal without --sha256 nobody has
 * seen what would be approved, so it is bad usage and nothing is approved.
 */
async function approveInputs(env: Environment, providerIds: readonly string[], options: ApproveOptions): Promise<void> {
  const asking = options.sha256.length === 0;
  if (asking && (options.json || !atTerminal())) {
    throw new CliError(
      'usage',
      `${options.json ? 'with --json' : 'not on a terminal'}, nobody is shown what would be approved: pin each submission with --sha256 HASH, the inputs sha256 that \`svc inputs show PROVIDER_ID\` printed (${SHA_SHOWN} hex digits or more); nothing was approved`,
    );
  }
  const ops = await operations(env);
  const records = await withOperator(
    ops,
    async (ctx) => {
      const pins = asking ? await confirmShown(ops, ctx, providerIds) : options.sha256;
      return ops.api.approveInputs(ctx, { providerIds, inputsSha256: pins });
    },
    { by: options.by, changes: true },
  );
  if (options.json) {
    printJson(records);
    return;
  }
  printLines(
    `${records.length} ${plural(records.length, 'submission')} approved by ${records[0]?.approved_by ?? options.by}; publish with: svc publish PROVIDER_ID... (or --all)`,
    submissionsTable(records),
  );
}

/** On a terminal: shows each provider's pending submission as `inputs show` does, asks, and returns the hashes shown. */
async function confirmShown(
  ops: Operations,
  ctx: Parameters<Operations['api']['showPending']>[0],
  providerIds: readonly string[],
): Promise<string[]> {
  // Refused before anything is shown to someone who could not approve it.
  await ops.api.authorise(ctx, 'approver', 'approving inputs');
  const shown: string[] = [];
  for (const providerId of new Set(providerIds)) {
    const pending = await ops.api.showPending(ctx, { providerId });
    printLines(...pendingLines(pending), '');
    shown.push(pending.inputs_sha256);
  }
  const question = `Approve ${shown.length === 1 ? 'this submission' : `these ${shown.length} submissions`}, exactly as shown? [y/N] `;
  if (!(await confirmed(question))) throw new CliError('refused', 'not confirmed; nothing was approved');
  return shown;
}

/**
 * Shows the review of every pending submission, asks on a terminal (not with --yes or --json), then approves exactly
 * the submissions shown. Exit 0 when all were approved (or none was pending), 1 when any stays pending: the
 * approver's own (maker-checker) or one that arrived after the review.
 */
async function approveAllPending(env: Environment, options: ApproveOptions): Promise<number> {
  if (!options.yes && !atTerminal()) {
    throw new CliError(
      'usage',
      'not on a terminal, so nobody can confirm the review: pass --yes to approve every pending submission it lists; nothing was approved',
    );
  }
  const ops = await operations(env);
  return withOperator(
    ops,
    async (ctx) => {
      // Refused before the review is shown to someone who could not approve it.
      await ops.api.authorise(ctx, 'approver', 'approving inputs');
      const review = await ops.api.reviewAllPending(ctx);
      if (review.length === 0) {
        if (options.json) printJson({ review, approved: [], refused: [], unreviewed: [] });
        else printLines('no submissions are pending approval');
        return 0;
      }
      if (!options.json) printLines(reviewTable(review));
      const question = `Approve ${review.length} ${plural(review.length, 'submission')}? [y/N] `;
      if (!options.yes && !options.json && !(await confirmed(question))) {
        throw new CliError('refused', 'not confirmed; nothing was approved');
      }
      const submissionIds = review.map((r) => r.submission_id);
      const outcome = await ops.api.approveAllPending(ctx, { submissionIds });
      if (options.json) printJson({ review, ...outcome });
      else printApproval(outcome, ctx.actor.kind === 'operator' ? ctx.actor.name : null);
      return outcome.refused.length > 0 || outcome.unreviewed.length > 0 ? 1 : 0;
    },
    { by: options.by, changes: true },
  );
}

/** What --all-pending approved, and what it left pending: the approver's own, and any that arrived after the review. */
function printApproval(outcome: PendingApproval, name: string | null): void {
  const { approved, refused, unreviewed } = outcome;
  const by = approved[0]?.approved_by ?? name ?? 'the approver';
  printLines(
    approved.length === 0
      ? `no submission approved by ${by}`
      : `${approved.length} ${plural(approved.length, 'submission')} approved by ${by}; publish with: svc publish PROVIDER_ID... (or --all)`,
  );
  if (approved.length > 0) printLines(submissionsTable(approved));
  if (refused.length > 0) {
    printLines(
      `${refused.length} ${plural(refused.length, 'submission')} not approved: ${by} submitted ${refused.length === 1 ? 'it' : 'them'}, so another operator with the approver role must approve (maker-checker):`,
      submissionsTable(refused),
    );
  }
  if (unreviewed.length > 0) {
    printLines(
      `${unreviewed.length} ${plural(unreviewed.length, 'submission')} not approved: submitted after the review, still pending (review with: svc inputs diff PROVIDER_ID):`,
      submissionsTable(unreviewed),
    );
  }
}

/** One row per pending submission: who submitted it, how many inputs it changes, score, band and caps old -> new. */
function reviewTable(review: readonly PendingSummary[]): string {
  return renderTable(
    ['Provider', 'Submitted by', 'Inputs changed', 'Score', 'Band', 'Caps'],
    review.map((r) => [
      r.provider_name,
      r.submitted_by,
      String(r.inputs_changed),
      r.outcome
        ? move(r.outcome.final_score)
        : `not valid (${r.problems.length} ${plural(r.problems.length, 'problem')})`,
      r.outcome ? move(r.outcome.risk_band) : '-',
      r.outcome ? capsCell(r.outcome) : '-',
    ]),
  );
}

async function listInputs(env: Environment, options: ListOptions): Promise<void> {
  const ops = await operations(env);
  const records = await withOperator(ops, (ctx) => ops.api.listInputs(ctx, { pendingOnly: options.pending === true }));
  if (options.json) {
    printJson(records);
    return;
  }
  if (records.length === 0) {
    printLines(options.pending ? 'no submissions are pending approval' : 'no submissions yet');
    return;
  }
  printLines(submissionsTable(records));
}

export function submissionsTable(records: readonly SubmissionRecord[]): string {
  return renderTable(
    [
      'Provider',
      'Provider id',
      'Status',
      'Submitted by',
      'Submitted at',
      'Approved by',
      'Approved at',
      'Inputs sha256',
    ],
    records.map((r) => [
      r.provider_name,
      r.provider_id,
      r.status,
      r.submitted_by,
      r.submitted_at,
      r.approved_by ?? '-',
      r.approved_at ?? '-',
      r.inputs_sha256.slice(0, SHA_SHOWN),
    ]),
  );
}
