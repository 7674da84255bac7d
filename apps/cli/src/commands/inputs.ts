import type { SubmissionRecord, SubmittedDocument } from '@svc/api';
import type { Command } from 'commander';
import { asCliError, CliError, type ProblemLine } from '../errors.js';
import { listJsonFiles, pathKind, readJsonFile } from '../files.js';
import { type Environment, type Operations, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable, withOutputOptions } from '../output.js';

interface InputsOptions {
  json?: boolean;
}

interface ByOptions extends InputsOptions {
  by: string;
}

interface ApproveOptions extends ByOptions {
  allPending?: boolean;
}

interface ListOptions extends InputsOptions {
  pending?: boolean;
}

/** How much of inputs_sha256 a table shows: enough to tell submissions apart. */
const SHA_SHOWN = 12;

export function registerInputs(program: Command, env: Environment): void {
  const group = program
    .command('inputs')
    .description('approved inputs, maker-checker: one analyst submits documents, another approves them');
  withOutputOptions(
    group
      .command('import')
      .description(
        'submit an approved-inputs document, or every *.json document in a folder, for approval; nothing is stored unless every document is valid',
      )
      .argument('<path>', 'an approved-inputs document, or a folder of them')
      .requiredOption('--by <name>', 'the analyst submitting them'),
  ).action(async (path: string, options: ByOptions) => {
    await importInputs(env, path, options);
  });
  withOutputOptions(
    group
      .command('approve')
      .description(
        "approve each named provider's pending submission (all or none), or with --all-pending every pending one; the approver must not be the submitter",
      )
      .argument('[provider_id...]', 'the providers whose pending submissions to approve')
      .option(
        '--all-pending',
        'every pending submission, listing each; those the approver submitted stay pending for another analyst (exit 1)',
      )
      .requiredOption('--by <name>', 'the analyst approving them'),
  ).action(async (providerIds: string[], options: ApproveOptions) => {
    if (providerIds.length > 0 && options.allPending) {
      throw new CliError('usage', 'name providers or give --all-pending, not both');
    }
    if (providerIds.length === 0 && !options.allPending) {
      throw new CliError('usage', 'name the providers whose submissions to approve, or --all-pending');
    }
    if (options.allPending) process.exitCode = await approveAllPending(env, options);
    else await approveInputs(env, providerIds, options);
  });
  withOutputOptions(
    group
      .command('list')
      .description('submissions: provider, status, submitted by/at, approved by/at, inputs SHA-256')
      .option('--pending', 'only the submissions waiting for approval'),
  ).action(async (options: ListOptions) => {
    await listInputs(env, options);
  });
}

async function importInputs(env: Environment, path: string, options: ByOptions): Promise<void> {
  const ops = await operations(env);
  const files = (await pathKind(path)) === 'directory' ? await listJsonFiles(path) : [path];
  const documents = await readAll(ops, path, files);
  const records = await withOperator(ops, (ctx) => ops.api.submitInputs(ctx, { documents }), { by: options.by });
  if (options.json) {
    printJson(records);
    return;
  }
  const by = records[0]?.submitted_by ?? options.by;
  printLines(
    `${records.length} ${plural(records.length, 'submission')} by ${by}, pending approval by another analyst:`,
    submissionsTable(records),
    'Approve with: svc inputs approve PROVIDER_ID... --by ANOTHER_ANALYST',
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

async function approveInputs(env: Environment, providerIds: readonly string[], options: ByOptions): Promise<void> {
  const ops = await operations(env);
  const records = await withOperator(ops, (ctx) => ops.api.approveInputs(ctx, { providerIds }), {
    by: options.by,
  });
  if (options.json) {
    printJson(records);
    return;
  }
  printLines(
    `${records.length} ${plural(records.length, 'submission')} approved by ${records[0]?.approved_by ?? options.by}; publish with: svc publish PROVIDER_ID... (or --all)`,
    submissionsTable(records),
  );
}

/** Exit 0 when every pending submission was approved (or none was pending), 1 when the maker-checker rule kept any. */
async function approveAllPending(env: Environment, options: ByOptions): Promise<number> {
  const ops = await operations(env);
  const { approved, refused } = await withOperator(ops, (ctx) => ops.api.approveAllPending(ctx), { by: options.by });
  const exit = refused.length > 0 ? 1 : 0;
  if (options.json) {
    printJson({ approved, refused });
    return exit;
  }
  const by = approved[0]?.approved_by ?? options.by.trim();
  if (approved.length === 0 && refused.length === 0) {
    printLines('no submissions are pending approval');
    return exit;
  }
  printLines(
    approved.length === 0
      ? `no submission approved by ${by}`
      : `${approved.length} ${plural(approved.length, 'submission')} approved by ${by}; publish with: svc publish PROVIDER_ID... (or --all)`,
  );
  if (approved.length > 0) printLines(submissionsTable(approved));
  if (refused.length > 0) {
    printLines(
      `${refused.length} ${plural(refused.length, 'submission')} not approved: ${by} submitted ${refused.length === 1 ? 'it' : 'them'}, so another analyst must approve (maker-checker):`,
      submissionsTable(refused),
    );
  }
  return exit;
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

function submissionsTable(records: readonly SubmissionRecord[]): string {
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

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
