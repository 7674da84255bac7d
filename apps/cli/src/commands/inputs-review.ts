import type { InputChange, PendingDiff, PendingOutcome, PendingSubmission } from '@svc/api';
import { type Environment, operations, withOperator } from '../operations.js';
import { printJson, printLines, renderTable } from '../output.js';

/** `svc inputs show` and `svc inputs diff`: a pending submission, and what approving it would change. */

export interface InputsOptions {
  json?: boolean;
}

/** How many hex digits of an inputs_sha256 the tables show (enough to pin an approval: `--sha256`). */
export const SHA_SHOWN = 12;

export async function showPending(env: Environment, providerId: string, options: InputsOptions): Promise<void> {
  const ops = await operations(env);
  const pending = await withOperator(ops, (ctx) => ops.api.showPending(ctx, { providerId }));
  if (options.json) {
    printJson(pending);
    return;
  }
  printLines(
    ...pendingLines(pending),
    `Approve exactly this submission with: svc inputs approve ${pending.provider_id} --sha256 ${pending.inputs_sha256.slice(0, SHA_SHOWN)}`,
  );
}

export function pendingLines(pending: PendingSubmission): string[] {
  return [
    `Pending submission ${pending.id} for ${pending.provider_name} (${pending.provider_id})`,
    `Submitted by ${pending.submitted_by} at ${pending.submitted_at}`,
    `Inputs sha256 ${pending.inputs_sha256}`,
    `Evaluation date ${pending.document.evaluation_date}`,
    pendingInputsTable(pending),
  ];
}

function pendingInputsTable(pending: PendingSubmission): string {
  return renderTable(
    ['Input', 'Value', 'As of', 'Source', 'Approved by', 'Approved at'],
    Object.entries(pending.document.inputs).map(([key, item]) => [
      key,
      valueText(item.value),
      item.as_of,
      item.source,
      item.approved_by,
      item.approved_at,
    ]),
  );
}

export async function diffPending(env: Environment, providerId: string, options: InputsOptions): Promise<void> {
  const ops = await operations(env);
  const diff = await withOperator(ops, (ctx) => ops.api.diffPending(ctx, { providerId }));
  if (options.json) {
    printJson(diff);
    return;
  }
  const { published } = diff;
  printLines(
    `Pending submission ${diff.submission_id} for ${diff.provider_name} (${diff.provider_id}), by ${diff.submitted_by} at ${diff.submitted_at}`,
    published
      ? `against the indicator in force ${published.risk_indicator_id} (${published.framework_version}, approved submission ${published.submission_id ?? 'unknown'})`
      : 'no indicator in force: every input is added',
    diff.inputs.length === 0 ? 'no input changed' : changesTable(diff.inputs),
    ...outcomeLines(diff),
  );
}

function changesTable(changes: readonly InputChange[]): string {
  return renderTable(
    ['Input', 'Old value', 'Old as_of', 'New value', 'New as_of'],
    changes.map((c) => [
      c.criterion_id ? `${c.input_key} (${c.criterion_id})` : c.input_key,
      valueText(c.old_value),
      c.old_as_of ?? '-',
      valueText(c.new_value),
      c.new_as_of ?? '-',
    ]),
  );
}

/** Score, band, confidence and caps old -> new; or why the engine cannot score the pending inputs. */
function outcomeLines(diff: PendingDiff): string[] {
  const { outcome } = diff;
  if (!outcome) {
    return [
      `the pending inputs are not valid under ${diff.framework_version} (${diff.problems.length} ${plural(diff.problems.length, 'problem')}):`,
      ...diff.problems.map((p) => `  ${p.path}: ${p.message}`),
    ];
  }
  const caps = (list: PendingOutcome['caps_started']) =>
    list.length === 0 ? 'none' : list.map((c) => `${c.cap_id} (${c.label})`).join(', ');
  return [
    `Under ${diff.framework_version}:`,
    `  Evaluation date  ${move(outcome.evaluation_date)}`,
    `  Score            ${move(outcome.final_score)}`,
    `  Band             ${move(outcome.risk_band)}`,
    `  Confidence       ${move(outcome.confidence)}`,
    `  Caps starting    ${caps(outcome.caps_started)}`,
    `  Caps stopping    ${caps(outcome.caps_stopped)}`,
    ...(outcome.publishable ? [] : ['  publishing would refuse it: confidence below the publication threshold']),
  ];
}

/** "78.46 -> 40.00", or "- -> 78.46" when nothing was in force. */
export function move(m: { old: string | null; new: string }): string {
  return `${m.old ?? '-'} -> ${m.new}`;
}

export function capsCell(outcome: PendingOutcome): string {
  const started = outcome.caps_started.map((c) => `+${c.cap_id}`);
  const stopped = outcome.caps_stopped.map((c) => `-${c.cap_id}`);
  return [...started, ...stopped].join(' ') || '-';
}

/** An input's value as the document writes it; "-" for none. */
function valueText(value: string | number | boolean | null): string {
  return value === null ? '-' : String(value);
}

export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
