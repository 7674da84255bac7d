import type { SubmissionRecord } from '@svc/api';
import type { Command } from 'commander';
import { calendarDate } from '../calendar-date.js';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, withOutputOptions } from '../output.js';
import { providerIdArgument } from '../provider-id.js';
import type { InputsOptions } from './inputs-review.js';

interface RedateOptions extends InputsOptions {
  by?: string;
  date?: string;
}

/**
 * `svc inputs redate`: a copy of a provider's approved inputs with a new evaluation date, for approval (decision 0053);
 * printed as `svc inputs import` prints its submissions (`table`, theirs).
 */
export function registerRedate(
  group: Command,
  env: Environment,
  table: (records: readonly SubmissionRecord[]) => string,
): void {
  withOutputOptions(
    group
      .command('redate')
      .description(
        "submit a copy of a provider's latest approved inputs with a new evaluation_date (the evidence and its as_of dates unchanged), pending approval by another operator like any import",
      )
      .argument('<provider_id>', 'the provider whose approved inputs to redate', providerIdArgument)
      .option(
        '--date <YYYY-MM-DD>',
        "the new evaluation date (default today, UTC): not after today, not before any input's as_of, after the current one",
        calendarDate,
      )
      .option(
        '--by <name>',
        'the analyst submitting it, in open mode (a store without operators; otherwise SVC_OPERATOR_TOKEN)',
      ),
  ).action(async (providerId: string, options: RedateOptions) => {
    const ops = await operations(env);
    const record = await withOperator(ops, (ctx) => ops.api.redateInputs(ctx, { providerId, date: options.date }), {
      by: options.by,
      changes: true,
    });
    if (options.json) {
      printJson([record]);
      return;
    }
    printLines(
      `1 submission by ${record.submitted_by} (the approved inputs re-dated), pending approval by another operator with the approver role:`,
      table([record]),
      `inputs_sha256 ${record.inputs_sha256}`,
      `Review with: svc inputs show ${record.provider_id}; approve with: svc inputs approve ${record.provider_id} --sha256 ${record.inputs_sha256} (by another operator, with the approver role)`,
    );
  });
}
